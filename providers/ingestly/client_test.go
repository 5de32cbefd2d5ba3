package ingestly_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/ingestly"
)

func TestNewRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		opts    []ingestly.Option
		wantErr string
	}{
		{name: "empty key", key: "", wantErr: "ingestly: the API key is empty"},
		{name: "blank key", key: "  ", wantErr: "ingestly: the API key is empty"},
		{name: "plain http to a remote host", key: testKey, opts: []ingestly.Option{ingestly.WithBaseURL("http://api.ingestly.ai")}, wantErr: "plain http"},
		{name: "base URL without host", key: testKey, opts: []ingestly.Option{ingestly.WithBaseURL("https://")}, wantErr: "has no host"},
		{name: "negative response limit", key: testKey, opts: []ingestly.Option{ingestly.WithMaxResponseBytes(-1)}, wantErr: "negative"},
		{name: "negative grace period", key: testKey, opts: []ingestly.Option{ingestly.WithRunGracePeriod(-time.Second)}, wantErr: "ingestly: the run grace period -1s is negative"},
		{name: "no trigger attempt", key: testKey, opts: []ingestly.Option{ingestly.WithTriggerRetry(0, nil)}, wantErr: "ingestly: the trigger attempts 0 must be at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ingestly.New(tt.key, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.wantErr)
			if tt.key != "" && strings.TrimSpace(tt.key) != "" {
				assert.NotContains(t, err.Error(), tt.key)
			}
		})
	}
}

func TestNewAcceptsLoopbackHTTPAndNilOptions(t *testing.T) {
	c, err := ingestly.New(testKey, nil, ingestly.WithBaseURL("http://127.0.0.1:8080"), ingestly.WithRunGracePeriod(0))
	require.NoError(t, err)
	require.NotNil(t, c)
}

func TestOptionsShapeRequests(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, `{"id":"r1","status":"queued"}`)),
		ingestly.WithBaseURL("https://eu.ingestly.example/v1/"),
		ingestly.WithUserAgent("invoice-bot/2.1"),
	)
	_, err := m.client.Run(context.Background(), "r1")
	require.NoError(t, err)
	r := m.one(t)
	assert.Equal(t, "/v1/runs/r1", r.Path)
	assert.Equal(t, "invoice-bot/2.1 jobpoll/", r.Header.Get("User-Agent")[:len("invoice-bot/2.1 jobpoll/")])
	assert.Equal(t, testKey, r.Header.Get("X-Api-Key"))
}

func TestMaxResponseBytesBoundsTheAnswer(t *testing.T) {
	big := `{"id":"r1","status":"queued","pad":"` + strings.Repeat("x", 200) + `"}`
	m := newMock(t, answers(jsonAnswer(http.StatusOK, big)), ingestly.WithMaxResponseBytes(100))
	_, err := m.client.Run(context.Background(), "r1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "100-byte limit")
}
