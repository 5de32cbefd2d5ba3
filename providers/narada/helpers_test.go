package narada_test

import (
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/narada"
)

const (
	testKey  = "nk-live-secret-0123456789"
	testBase = "https://api.narada.ai/fast/v2"
)

// captured is one request as the API saw it.
type captured struct {
	Method string
	URL    string // escaped
	Path   string // escaped
	Query  string
	Header http.Header
	Body   []byte
}

// recorder answers every request with respond and keeps what it saw. It
// runs on the calling goroutine, so it works inside a synctest bubble.
type recorder struct {
	mu   sync.Mutex
	reqs []captured
}

func (r *recorder) requests() []captured {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]captured(nil), r.reqs...)
}

// mockClient returns a narada client whose requests go to an in-memory
// httpmock transport answering with respond.
func mockClient(t *testing.T, respond func(n int, req *http.Request) (*http.Response, error), opts ...narada.Option) (*narada.Client, *recorder) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	rec := &recorder{}
	mt.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		var body []byte
		if req.Body != nil {
			body, _ = io.ReadAll(req.Body)
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, captured{
			Method: req.Method, URL: req.URL.String(), Path: req.URL.EscapedPath(),
			Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: body,
		})
		n := len(rec.reqs)
		rec.mu.Unlock()
		return respond(n, req)
	})
	c, err := narada.New(testKey, append([]narada.Option{narada.WithHTTPClient(&http.Client{Transport: mt})}, opts...)...)
	require.NoError(t, err)
	return c, rec
}

// always answers every request with the same JSON.
func always(status int, body string) func(int, *http.Request) (*http.Response, error) {
	return func(int, *http.Request) (*http.Response, error) {
		return jsonResponse(status, body), nil
	}
}

// sequence answers request n with bodies[n-1], repeating the last one.
func sequence(bodies ...string) func(int, *http.Request) (*http.Response, error) {
	return func(n int, _ *http.Request) (*http.Response, error) {
		return jsonResponse(http.StatusOK, bodies[min(n, len(bodies))-1]), nil
	}
}

func jsonResponse(status int, body string) *http.Response {
	resp := httpmock.NewStringResponse(status, body)
	resp.Header.Set("Content-Type", "application/json")
	return resp
}

const (
	pendingJSON = `{"status":"pending","response":null,"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":null}`
	successJSON = `{"status":"success","response":{"text":"Found 1,234 software engineering job listings.","structuredOutput":{"count":1234}},"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":"2024-12-19T00:00:45.000000+00:00"}`
	errorJSON   = `{"status":"error","response":{"text":"Failed to complete the task due to network timeout."},"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":"2024-12-19T00:02:30.000000+00:00"}`
	inputJSON   = `{"status":"input-required","response":{"text":"The task requires authentication. Please log in to continue."},"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":null}`
)
