package narada_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

func TestDispatchSendsTheDocumentedBody(t *testing.T) {
	c, rec := mockClient(t, always(http.StatusAccepted, `{"requestId":"req_abc123def456"}`))
	got, err := c.Dispatch(t.Context(), narada.DispatchRequest{
		Prompt:            "/Operator search for software engineering jobs",
		BrowserWindowID:   "win-1",
		ExecutionMode:     narada.ExecutionModeClient,
		ClearChat:         narada.Bool(false),
		PreviousRequestID: "req_prev",
		GenerateGIF:       true,
		ResponseFormat:    json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}}}`),
		CallbackURL:       "https://hooks.example/narada",
		CallbackHeaders:   map[string]string{"Authorization": "Bearer hook-token"},
		CallbackSecret:    "s3cret",
		Variables:         map[string]string{"city": "Paris"},
		Extra:             map[string]any{"timezone": "Europe/Paris"},
	})
	require.NoError(t, err)
	assert.Equal(t, "req_abc123def456", got.RequestID)

	reqs := rec.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/fast/v2/remote-dispatch", r.Path)
	assert.Empty(t, r.Query)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, testKey, r.Header.Get("x-api-key"))
	assert.Contains(t, r.Header.Get("User-Agent"), "jobpoll/")
	assert.JSONEq(t, `{
		"prompt": "/Operator search for software engineering jobs",
		"browserWindowId": "win-1",
		"executionMode": "client",
		"clearChat": false,
		"previousRequestId": "req_prev",
		"generateGif": true,
		"responseFormat": {"type":"object","properties":{"count":{"type":"integer"}}},
		"callbackUrl": "https://hooks.example/narada",
		"callbackHeaders": {"Authorization": "Bearer hook-token"},
		"callbackSecret": "s3cret",
		"variables": {"city": "Paris"},
		"timezone": "Europe/Paris"
	}`, string(r.Body))
}

func TestDispatchLeavesDefaultsToTheAPI(t *testing.T) {
	c, rec := mockClient(t, always(http.StatusAccepted, `{"requestId":"req_1"}`))
	_, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "summarize my inbox", ExecutionMode: narada.ExecutionModeCloud})
	require.NoError(t, err)
	// No clearChat (the API's default is true), no generateGif, no empties.
	assert.JSONEq(t, `{"prompt":"summarize my inbox","executionMode":"cloud"}`, string(rec.requests()[0].Body))

	_, err = c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", ClearChat: narada.Bool(true)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"prompt":"p","browserWindowId":"w","clearChat":true}`, string(rec.requests()[1].Body))
}

func TestDispatchValidatesBeforeSending(t *testing.T) {
	tests := []struct {
		name    string
		req     narada.DispatchRequest
		wantErr string
	}{
		{"no prompt", narada.DispatchRequest{BrowserWindowID: "w"}, "narada: DispatchRequest.Prompt is required"},
		{"blank prompt", narada.DispatchRequest{Prompt: " \n", BrowserWindowID: "w"}, "Prompt is required"},
		{"no window in the default mode", narada.DispatchRequest{Prompt: "p"}, "BrowserWindowID is required in execution mode client (the default)"},
		{"no window in client mode", narada.DispatchRequest{Prompt: "p", ExecutionMode: narada.ExecutionModeClient}, "BrowserWindowID is required in execution mode client"},
		{"response format not JSON", narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", ResponseFormat: json.RawMessage(`{`)}, "ResponseFormat is not valid JSON"},
		{"response format not an object", narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", ResponseFormat: json.RawMessage(`["a"]`)}, "must be a JSON Schema object"},
		{"callback over plain http", narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", CallbackURL: "http://hooks.example/x"}, `CallbackURL "http://hooks.example/x" must use https`},
		{"relative callback", narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", CallbackURL: "/hooks"}, "not an absolute URL"},
		{"callback with another scheme", narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", CallbackURL: "ftp://hooks.example/x"}, "must use https"},
		{"extra repeats a typed field", narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w", Extra: map[string]any{"clearChat": false}}, `Extra["clearChat"] names a typed field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := mockClient(t, always(http.StatusAccepted, `{"requestId":"req_1"}`))
			got, err := c.Dispatch(t.Context(), tt.req)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, got)
			assert.Empty(t, rec.requests(), "no request is sent for an invalid dispatch")
		})
	}
	t.Run("cloud modes need no window, loopback http callbacks are allowed", func(t *testing.T) {
		c, rec := mockClient(t, always(http.StatusAccepted, `{"requestId":"req_1"}`))
		for _, mode := range []narada.ExecutionMode{narada.ExecutionModeCloud, narada.ExecutionModeCloudBrowser, "some_future_mode"} {
			_, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", ExecutionMode: mode, CallbackURL: "http://127.0.0.1:9/hook"})
			require.NoError(t, err, mode)
		}
		assert.Len(t, rec.requests(), 3)
	})
}

func TestDispatchIsNeverRetried(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			c, rec := mockClient(t, always(status, `{"error":"try later"}`))
			got, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
			assert.Nil(t, got)
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.Equal(t, "try later", apiErr.Message)
			assert.Len(t, rec.requests(), 1, "exactly one request: a retry could start the task twice")
		})
	}
	t.Run("Run does not retry the dispatch either", func(t *testing.T) {
		c, rec := mockClient(t, always(http.StatusBadGateway, `{"error":"bad gateway"}`))
		got, err := c.Run(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
		assert.Nil(t, got)
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Len(t, rec.requests(), 1)
	})
}

func TestDispatchAnswers(t *testing.T) {
	t.Run("a 2xx without requestId is an error", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusAccepted, `{}`))
		_, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
		require.ErrorContains(t, err, "without a requestId")
	})
	t.Run("a 401 keeps the key out of the error", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusUnauthorized, `{"error":"invalid API key `+testKey+`"}`))
		_, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
		assert.NotContains(t, err.Error(), testKey)
	})
	t.Run("a network failure is returned as is", func(t *testing.T) {
		boom := errors.New("connection reset")
		c, _ := mockClient(t, func(int, *http.Request) (*http.Response, error) { return nil, boom })
		_, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
		require.ErrorIs(t, err, boom)
	})
}
