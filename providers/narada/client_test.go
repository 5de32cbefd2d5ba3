package narada_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

func TestNewRefusesBadConfiguration(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		opts    []narada.Option
		wantErr string
	}{
		{"empty key", "", nil, "narada: the API key is empty"},
		{"blank key", "  ", nil, "narada: the API key is empty"},
		{"plain http to a public host", testKey, []narada.Option{narada.WithBaseURL("http://api.narada.ai/fast/v2")}, "plain http"},
		{"base URL without host", testKey, []narada.Option{narada.WithBaseURL("/fast/v2")}, "has no host"},
		{"base URL that does not parse", testKey, []narada.Option{narada.WithBaseURL("https://[::1")}, "does not parse"},
		{"negative size limit", testKey, []narada.Option{narada.WithMaxResponseBytes(-1)}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := narada.New(tt.key, tt.opts...)
			require.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, c)
			if tt.key != "" {
				assert.NotContains(t, err.Error(), tt.key, "the key never appears in an error")
			}
		})
	}
	t.Run("plain http to loopback is fine (fake servers)", func(t *testing.T) {
		_, err := narada.New(testKey, narada.WithBaseURL("http://127.0.0.1:8080/fast/v2"))
		require.NoError(t, err)
	})
}

func TestClientSendsKeyAndUserAgentToTheDefaultBaseURL(t *testing.T) {
	c, rec := mockClient(t, always(http.StatusOK, pendingJSON), narada.WithUserAgent("acme-bot/2.0"))
	_, err := c.Task(t.Context(), "req_abc123def456")
	require.NoError(t, err)

	reqs := rec.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, testBase+"/remote-dispatch/responses/req_abc123def456", reqs[0].URL)
	assert.Equal(t, testKey, reqs[0].Header.Get("x-api-key"))
	ua := reqs[0].Header.Get("User-Agent")
	assert.True(t, strings.HasPrefix(ua, "acme-bot/2.0 jobpoll/"), "User-Agent %q", ua)
	assert.Equal(t, "application/json", reqs[0].Header.Get("Accept"))
}

func TestWithBaseURL(t *testing.T) {
	c, rec := mockClient(t, always(http.StatusOK, pendingJSON), narada.WithBaseURL("https://proxy.example/narada/"))
	_, err := c.Task(t.Context(), "req_1")
	require.NoError(t, err)
	assert.Equal(t, "https://proxy.example/narada/remote-dispatch/responses/req_1", rec.requests()[0].URL)
}

func TestWithMaxResponseBytes(t *testing.T) {
	c, _ := mockClient(t, always(http.StatusOK, successJSON), narada.WithMaxResponseBytes(64))
	_, err := c.Task(t.Context(), "req_1")
	require.ErrorContains(t, err, "64-byte limit")
	assert.False(t, poll.Transient(err), "an oversized answer will not shrink by retrying")
}
