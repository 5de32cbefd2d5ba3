package narada_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

func TestTaskRequest(t *testing.T) {
	tests := []struct {
		id       string
		wantPath string
	}{
		{"req_abc123def456", "/fast/v2/remote-dispatch/responses/req_abc123def456"},
		{"../admin", "/fast/v2/remote-dispatch/responses/..%2Fadmin"},
		{"..", "/fast/v2/remote-dispatch/responses/%2E%2E"},
		{"a/b?c#d", "/fast/v2/remote-dispatch/responses/a%2Fb%3Fc%23d"},
		{"req 1", "/fast/v2/remote-dispatch/responses/req%201"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c, rec := mockClient(t, always(http.StatusOK, pendingJSON))
			got, err := c.Task(t.Context(), tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.id, got.RequestID, "the id asked for is filled in")

			reqs := rec.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, http.MethodGet, reqs[0].Method)
			assert.Equal(t, tt.wantPath, reqs[0].Path, "the id stays one escaped segment")
			assert.Empty(t, reqs[0].Query)
			assert.Empty(t, reqs[0].Body)
			assert.Equal(t, testKey, reqs[0].Header.Get("x-api-key"))
			assert.Contains(t, reqs[0].Header.Get("User-Agent"), "jobpoll/")
		})
	}
}

func TestTaskRefusesAnEmptyID(t *testing.T) {
	c, rec := mockClient(t, always(http.StatusOK, pendingJSON))
	for _, id := range []string{"", "  "} {
		_, err := c.Task(t.Context(), id)
		require.EqualError(t, err, "narada: the request id is empty")
		_, err = c.WaitForTask(t.Context(), id)
		require.EqualError(t, err, "narada: the request id is empty")
	}
	assert.Empty(t, rec.requests())
}

func TestTaskDecodesTheDocumentedAnswers(t *testing.T) {
	created := time.Date(2024, 12, 19, 0, 0, 0, 0, time.UTC)
	t.Run("pending", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusOK, pendingJSON))
		got, err := c.Task(t.Context(), "req_1")
		require.NoError(t, err)
		assert.Equal(t, narada.StatusPending, got.Status)
		assert.Nil(t, got.Response)
		assert.True(t, created.Equal(got.CreatedAt))
		assert.Nil(t, got.CompletedAt)
		assert.Nil(t, got.Usage)
	})
	t.Run("success", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusOK, successJSON))
		got, err := c.Task(t.Context(), "req_1")
		require.NoError(t, err)
		assert.Equal(t, narada.StatusSuccess, got.Status)
		require.NotNil(t, got.Response)
		assert.Equal(t, "Found 1,234 software engineering job listings.", got.Response.Text)
		assert.JSONEq(t, `{"count":1234}`, string(got.Response.StructuredOutput))
		require.NotNil(t, got.CompletedAt)
		assert.Equal(t, 45*time.Second, got.CompletedAt.Sub(got.CreatedAt))
	})
	t.Run("every field", func(t *testing.T) {
		body := `{"status":"success","browserWindowId":"win-9","response":{"text":"ok","structuredOutput":null},
			"createdAt":"2024-12-19T10:00:00.5+02:00","completedAt":"2024-12-19T08:01:00Z","usage":{"steps":12}}`
		c, _ := mockClient(t, always(http.StatusOK, body))
		got, err := c.Task(t.Context(), "req_1")
		require.NoError(t, err)
		assert.Equal(t, "win-9", got.BrowserWindowID)
		assert.Nil(t, got.Response.StructuredOutput, "null structured output reads as nil")
		assert.JSONEq(t, `{"steps":12}`, string(got.Usage))
		assert.Equal(t, 59500*time.Millisecond, got.CompletedAt.Sub(got.CreatedAt))
	})
	t.Run("a timestamp without an offset is read as UTC", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusOK, `{"status":"pending","createdAt":"2024-12-19T00:00:00.000000","completedAt":null,"usage":null}`))
		got, err := c.Task(t.Context(), "req_1")
		require.NoError(t, err)
		assert.True(t, created.Equal(got.CreatedAt))
		assert.Nil(t, got.Usage)
	})
	t.Run("a timestamp that is not a time is an error naming it", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusOK, `{"status":"pending","createdAt":"yesterday"}`))
		_, err := c.Task(t.Context(), "req_1")
		require.ErrorContains(t, err, `"yesterday"`)
	})
	t.Run("a 404 is a permanent APIError", func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusNotFound, `{"error":"task not found"}`))
		_, err := c.Task(t.Context(), "req_1")
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
		assert.Equal(t, "task not found", apiErr.Message)
		assert.False(t, poll.Transient(err))
	})
}

func TestDispatchRequestJSONRoundTrip(t *testing.T) {
	in := narada.DispatchRequest{
		Prompt: "p", BrowserWindowID: "w", ClearChat: narada.Bool(false),
		Extra: map[string]any{"attachments": []map[string]string{{"key": "uploads/a.pdf"}}},
	}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"prompt":"p","browserWindowId":"w","clearChat":false,"attachments":[{"key":"uploads/a.pdf"}]}`, string(data))

	var out narada.DispatchRequest
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, "p", out.Prompt)
	require.NotNil(t, out.ClearChat)
	assert.False(t, *out.ClearChat)
	assert.JSONEq(t, `[{"key":"uploads/a.pdf"}]`, string(out.Extra["attachments"].(json.RawMessage)))
	assert.Len(t, out.Extra, 1, "typed fields never land in Extra")

	_, err = json.Marshal(narada.DispatchRequest{Prompt: "p", Extra: map[string]any{"prompt": "q"}})
	require.ErrorContains(t, err, `Extra["prompt"] names a typed field`)
}
