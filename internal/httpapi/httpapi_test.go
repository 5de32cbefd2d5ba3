package httpapi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/httpapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const key = "sk-secret-123456"

func newClient(t *testing.T, base string, hc *http.Client, opts ...func(*httpapi.Config)) *httpapi.Client {
	t.Helper()
	cfg := httpapi.Config{Name: "acme", BaseURL: base, AuthHeader: "X-API-Key", APIKey: key, HTTPClient: hc}
	httpapi.ApplyOptions(&cfg, opts)
	c, err := httpapi.New(cfg)
	require.NoError(t, err)
	return c
}

func mockClient() (*http.Client, *httpmock.MockTransport) {
	mt := httpmock.NewMockTransport()
	return &http.Client{Transport: mt}, mt
}

func TestPathSegmentsAreEscaped(t *testing.T) {
	tests := []struct {
		id      string
		wantRaw string
	}{
		{"550e8400-e29b-41d4-a716-446655440000", "/v1/jobs/550e8400-e29b-41d4-a716-446655440000/status"},
		{"../admin", "/v1/jobs/..%2Fadmin/status"},
		{"..", "/v1/jobs/%2E%2E/status"},
		{".", "/v1/jobs/%2E/status"},
		{"a/b?c#d", "/v1/jobs/a%2Fb%3Fc%23d/status"},
		{"100%", "/v1/jobs/100%25/status"},
		{"with space", "/v1/jobs/with%20space/status"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			hc, mt := mockClient()
			var got *http.Request
			mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
				got = r
				return httpmock.NewStringResponse(200, `{}`), nil
			})
			c := newClient(t, "https://api.example/v1/", hc)
			err := c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"jobs", tt.id, "status"}}, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.wantRaw, got.URL.EscapedPath())
			assert.Empty(t, got.URL.RawQuery, "an id never adds a query")
			assert.Empty(t, got.URL.Fragment)
			assert.Equal(t, "api.example", got.URL.Host)
		})
	}
	t.Run("empty segment", func(t *testing.T) {
		hc, mt := mockClient()
		c := newClient(t, "https://api.example", hc)
		err := c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"jobs", ""}}, nil)
		require.ErrorContains(t, err, "empty path segment")
		assert.Zero(t, mt.GetTotalCallCount(), "no request sent")
	})
}

func TestRequestHeadersAndBody(t *testing.T) {
	hc, mt := mockClient()
	var got *http.Request
	var body string
	mt.RegisterResponder("POST", "https://api.example/v1/jobs", func(r *http.Request) (*http.Response, error) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		return httpmock.NewStringResponse(202, `{"id":"j1"}`), nil
	})
	c := newClient(t, "https://api.example/v1", hc, func(c *httpapi.Config) { c.UserAgent = "billing-bot/2" })
	var out struct{ ID string }
	err := c.Do(t.Context(), &httpapi.Request{
		Method: "POST", Path: []string{"jobs"},
		Query:  map[string][]string{"dry_run": {"true"}},
		JSON:   map[string]string{"prompt": "hi"},
		Header: http.Header{"Idempotency-Key": {"k-1"}},
	}, &out)
	require.NoError(t, err)
	assert.Equal(t, "j1", out.ID)
	assert.Equal(t, key, got.Header.Get("X-API-Key"))
	assert.Equal(t, "billing-bot/2 jobpoll/"+httpapi.Version, got.Header.Get("User-Agent"))
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.Equal(t, "k-1", got.Header.Get("Idempotency-Key"))
	assert.Equal(t, "dry_run=true", got.URL.RawQuery)
	assert.JSONEq(t, `{"prompt":"hi"}`, body)
}

func TestKeyNeverLeavesTheAPIHost(t *testing.T) {
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("X-API-Key"); v != "" {
			leaked = append(leaked, v)
		}
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer elsewhere.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != key {
			w.WriteHeader(401)
			return
		}
		http.Redirect(w, r, elsewhere.URL+"/landing", http.StatusFound)
	}))
	defer api.Close()
	// Two loopback servers differ by port, so they are different hosts.
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	c := newClient(t, api.URL, hc)
	var out struct{ OK bool }
	require.NoError(t, c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"jobs", "1"}}, &out))
	assert.True(t, out.OK, "the redirect was followed")
	assert.Empty(t, leaked, "the API key was sent to another host")
	assert.Nil(t, hc.CheckRedirect, "the caller's client is left as it was")
}

func TestErrorAnswers(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		header      http.Header
		wantCode    string
		wantMessage string
		wantRetry   time.Duration
	}{
		{name: "documind detail", status: 404, contentType: "application/json", body: `{"detail":"Batch not found"}`, wantMessage: "Batch not found"},
		{name: "fastapi validation list", status: 422, contentType: "application/json", body: `{"detail":[{"loc":["body","document_ids"],"msg":"empty"}]}`, wantMessage: `[{"loc":["body","document_ids"],"msg":"empty"}]`},
		{name: "problem+json", status: 409, contentType: "application/problem+json",
			body:     `{"type":"https://docs.ingestly.ai/errors/run-not-completed","title":"Conflict","detail":"The run has not completed."}`,
			wantCode: "https://docs.ingestly.ai/errors/run-not-completed", wantMessage: "The run has not completed."},
		{name: "problem with only a title", status: 403, contentType: "application/problem+json", body: `{"type":"about:blank","title":"Forbidden"}`, wantMessage: "Forbidden"},
		{name: "html page", status: 502, contentType: "text/html", body: "<html><head><title>502 Bad Gateway</title></head>\n<body><h1>Bad   Gateway</h1></body></html>", wantMessage: "502 Bad Gateway Bad Gateway"},
		{name: "empty body", status: 500, wantMessage: ""},
		{name: "retry-after seconds", status: 429, body: `{"detail":"slow down"}`, header: http.Header{"Retry-After": {"30"}}, wantMessage: "slow down", wantRetry: 30 * time.Second},
		{name: "key echoed back is redacted", status: 401, body: `{"detail":"invalid key ` + key + `"}`, wantMessage: "invalid key [redacted]"},
		{name: "long junk is cut", status: 500, body: strings.Repeat("x", 5000), wantMessage: strings.Repeat("x", 200) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, mt := mockClient()
			mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(tt.status, tt.body)
				if tt.contentType != "" {
					resp.Header.Set("Content-Type", tt.contentType)
				}
				for k, v := range tt.header {
					resp.Header[k] = v
				}
				return resp, nil
			})
			c := newClient(t, "https://api.example", hc)
			err := c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"runs", "r1"}}, &struct{}{})
			var api *poll.APIError
			require.ErrorAs(t, err, &api)
			assert.Equal(t, tt.status, api.StatusCode)
			assert.Equal(t, "GET", api.Method)
			assert.Equal(t, "https://api.example/runs/r1", api.URL)
			assert.Equal(t, tt.wantCode, api.Code)
			assert.Equal(t, tt.wantMessage, api.Message)
			assert.Equal(t, tt.wantRetry, api.RetryAfter)
			assert.NotContains(t, err.Error(), key)
		})
	}
}

func TestSuccessBodies(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		contentLength int64
		limit         int64
		wantTransient bool
		wantText      string
	}{
		{name: "truncated JSON is transient", body: `{"status":"pend`, wantTransient: true, wantText: "unexpected EOF"},
		{name: "empty body is transient", body: ``, wantTransient: true, wantText: "empty body"},
		{name: "an HTML page with 200 is permanent", body: `<html><body>Sign in to the proxy</body></html>`, wantText: `the body starts "Sign in to the proxy"`},
		{name: "over the size limit", body: `{"a":"` + strings.Repeat("x", 100) + `"}`, limit: 64, wantText: "over the 64-byte limit"},
		{name: "declared over the size limit", body: `{}`, contentLength: 1 << 40, limit: 64, wantText: "1099511627776 bytes, over the 64-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc, mt := mockClient()
			mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(200, tt.body)
				if tt.contentLength > 0 {
					resp.ContentLength = tt.contentLength
				}
				return resp, nil
			})
			var opts []func(*httpapi.Config)
			if tt.limit > 0 {
				opts = append(opts, func(c *httpapi.Config) { c.MaxBodyBytes = tt.limit })
			}
			c := newClient(t, "https://api.example", hc, opts...)
			var out map[string]any
			err := c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"x"}}, &out)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantText)
			assert.Equal(t, tt.wantTransient, poll.Transient(err))
		})
	}
}

func TestNetworkErrorsStayClassifiable(t *testing.T) {
	hc, mt := mockClient()
	mt.RegisterNoResponder(httpmock.ConnectionFailure)
	c := newClient(t, "https://api.example", hc)
	err := c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"x"}}, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), key)

	hung := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done() // a request that never gets an answer
		return nil, r.Context().Err()
	})}
	c = newClient(t, "https://api.example", hung)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err = c.Do(ctx, &httpapi.Request{Method: "GET", Path: []string{"x"}}, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, poll.Transient(err))
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name, base, key string
		wantErr         string
	}{
		{"https", "https://api.example/v1", key, ""},
		{"loopback http", "http://127.0.0.1:8080", key, ""},
		{"localhost http", "http://localhost:9", key, ""},
		{"ipv6 loopback http", "http://[::1]:9", key, ""},
		{"plain http elsewhere", "http://api.example", key, "plain http, which is only allowed for loopback hosts"},
		{"private address over http", "http://10.0.0.5", key, "only allowed for loopback"},
		{"other scheme", "ftp://api.example", key, "must use https"},
		{"no host", "https://", key, "has no host"},
		{"credentials in URL", "https://user:pw@api.example", key, "must not carry credentials"},
		{"query in base", "https://api.example/?x=1", key, "must not have a query"},
		{"unparsable", "https://api example/%zz", key, "does not parse"},
		{"empty key", "https://api.example", " ", "API key is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := httpapi.New(httpapi.Config{Name: "acme", BaseURL: tt.base, AuthHeader: "X-API-Key", APIKey: tt.key})
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "acme: "))
			if tt.key == key {
				assert.NotContains(t, err.Error(), key)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"-3", 0},
		{"1.5", 0},
		{"soon", 0},
		{"Mon, 30 Nov 2026 12:01:30 GMT", 90 * time.Second},
		{"Monday, 30-Nov-26 12:00:10 GMT", 10 * time.Second},
		{"Mon Nov 30 12:00:20 2026", 20 * time.Second},
		{"Mon, 30 Nov 2026 11:00:00 GMT", 0},
		{"99999999999999999999", 0},
		{"9999999999999", time.Duration(int64(1<<63-1)/int64(time.Second)) * time.Second},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, httpapi.ParseRetryAfter(tt.in, now), "%q", tt.in)
	}
}

func TestErrorsAreUsableByThePoller(t *testing.T) {
	hc, mt := mockClient()
	mt.RegisterNoResponder(httpmock.NewStringResponder(503, `{"detail":"down"}`).HeaderSet(http.Header{"Retry-After": {"7"}}))
	c := newClient(t, "https://api.example", hc)
	err := c.Do(t.Context(), &httpapi.Request{Method: "GET", Path: []string{"x"}}, nil)
	assert.True(t, poll.Transient(err))
	var api *poll.APIError
	require.True(t, errors.As(err, &api))
	assert.Equal(t, 7*time.Second, api.RetryAfter)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
