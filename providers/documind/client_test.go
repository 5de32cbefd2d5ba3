package documind_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

func TestNewRefusesBadConfiguration(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		opts    []documind.Option
		wantErr string
	}{
		{name: "empty key", key: "", wantErr: "API key is empty"},
		{name: "blank key", key: "  ", wantErr: "API key is empty"},
		{name: "plain http to a remote host", key: testKey, opts: []documind.Option{documind.WithBaseURL("http://api.documind.cloud/api/v1")}, wantErr: "plain http"},
		{name: "no host", key: testKey, opts: []documind.Option{documind.WithBaseURL("/api/v1")}, wantErr: "has no host"},
		{name: "unparsable", key: testKey, opts: []documind.Option{documind.WithBaseURL("https://api.documind.cloud/%zz")}, wantErr: "does not parse"},
		{name: "negative size limit", key: testKey, opts: []documind.Option{documind.WithMaxResponseBytes(-1)}, wantErr: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := documind.New(tt.key, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "documind: "), "error %q names the provider", err)
			if tt.key != "" && strings.TrimSpace(tt.key) != "" {
				assert.NotContains(t, err.Error(), tt.key)
			}
		})
	}
}

func TestNewAcceptsLoopbackHTTPAndNilOptions(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost:1/api/v1", "http://[::1]:9"} {
		c, err := documind.New(testKey, documind.WithBaseURL(u), nil)
		require.NoError(t, err, u)
		assert.NotNil(t, c)
	}
}

func TestClientSendsKeyAndUserAgent(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "pending")))

	_, err := m.client(documind.WithUserAgent("invoice-bot/2.1")).Batch(t.Context(), batchID)
	require.NoError(t, err)

	reqs := m.requests()
	require.Len(t, reqs, 1)
	h := reqs[0].Header
	assert.Equal(t, testKey, h.Get("X-API-Key"))
	assert.True(t, strings.HasPrefix(h.Get("User-Agent"), "invoice-bot/2.1 jobpoll/"), "User-Agent %q", h.Get("User-Agent"))
	assert.Equal(t, "application/json", h.Get("Accept"))
}

func TestDefaultUserAgentStartsWithJobpoll(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "pending")))
	_, err := m.client().Batch(t.Context(), batchID)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(m.requests()[0].Header.Get("User-Agent"), "jobpoll/"))
}

func TestWithBaseURLKeepsItsPath(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, "https://proxy.example.com/documind/api/v1/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "pending")))
	_, err := m.client(documind.WithBaseURL("https://proxy.example.com/documind/api/v1/")).Batch(t.Context(), batchID)
	require.NoError(t, err)
	assert.Equal(t, "/documind/api/v1/batch/"+batchID, m.requests()[0].Path)
}

func TestKeyIsNotSentToAnotherHost(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/batch/"+batchID, func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(http.StatusFound, "")
		resp.Header.Set("Location", "https://elsewhere.example.com/batch")
		return resp, nil
	})
	m.on(http.MethodGet, "https://elsewhere.example.com/batch", jsonAnswer(200, batchJSON("pending", "pending")))

	_, err := m.client().Batch(t.Context(), batchID)
	require.NoError(t, err)
	reqs := m.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, testKey, reqs[0].Header.Get("X-API-Key"))
	assert.Empty(t, reqs[1].Header.Get("X-API-Key"), "the key followed a redirect to another host")
}

func TestWithMaxResponseBytes(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "pending", "pending")))
	_, err := m.client(documind.WithMaxResponseBytes(64)).Batch(t.Context(), batchID)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "64-byte limit")
}

func TestAPIErrorsCarryDetail(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/batch/"+batchID, rawAnswer(404, `{"detail":"Batch not found"}`))
	_, err := m.client().Batch(t.Context(), batchID)
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 404, apiErr.StatusCode)
	assert.Equal(t, "Batch not found", apiErr.Message)
	assert.Equal(t, http.MethodGet, apiErr.Method)
	assert.NotContains(t, err.Error(), testKey)
}
