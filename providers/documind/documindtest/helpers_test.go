package documindtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind/documindtest"
)

// newServer starts a fake closed at the end of the test.
func newServer(t *testing.T) *documindtest.Server {
	srv := documindtest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

// call sends a raw request with the test key and decodes the JSON answer.
func call(t *testing.T, srv *documindtest.Server, method, path string, body any) (int, map[string]any) {
	t.Helper()
	return callWithKey(t, srv, documindtest.APIKey, method, path, body)
}

func callWithKey(t *testing.T, srv *documindtest.Server, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var reader io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		reader = bytes.NewBufferString(b)
	default:
		data, err := json.Marshal(b)
		require.NoError(t, err)
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, reader)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := srv.Server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "body %s", data)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), "body %s", data)
	return resp.StatusCode, out
}

var schema = map[string]any{
	"named_entities": map[string]any{
		"invoice_number": map[string]any{"type": "string", "description": "Invoice number"},
		"total":          map[string]any{"type": "number"},
	},
	"required": []string{"invoice_number"},
}

// items returns a list answer's items.
func items(t *testing.T, page map[string]any) []map[string]any {
	t.Helper()
	raw, ok := page["items"].([]any)
	require.True(t, ok, "items in %v", page)
	out := make([]map[string]any, len(raw))
	for i, it := range raw {
		out[i] = it.(map[string]any)
	}
	return out
}

// field collects one field of every item.
func field(list []map[string]any, key string) []any {
	out := make([]any, len(list))
	for i, it := range list {
		out[i] = it[key]
	}
	return out
}
