package ingestly_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/ingestly"
)

const testKey = "ing_test_secret_key"

// captured is one request as the API saw it.
type captured struct {
	Method string
	Path   string // escaped, as sent on the wire
	Query  url.Values
	Header http.Header
	Body   []byte
}

// mockAPI answers requests in order with its responders (the last one
// repeats) and records them.
type mockAPI struct {
	mu      sync.Mutex
	reqs    []captured
	answers []httpmock.Responder
	// routes, when set, answers by escaped path instead: each path's
	// responders in order, the last one repeating.
	routes map[string][]httpmock.Responder
	served map[string]int
	client *ingestly.Client
}

// newMock returns a client whose requests go to an in-memory transport
// answering with answers, in order.
func newMock(t *testing.T, answers []httpmock.Responder, opts ...ingestly.Option) *mockAPI {
	t.Helper()
	m := &mockAPI{answers: answers}
	m.client = newMockClient(t, m, opts)
	return m
}

// newRouteMock is newMock answering by path.
func newRouteMock(t *testing.T, routes map[string][]httpmock.Responder, opts ...ingestly.Option) *mockAPI {
	t.Helper()
	m := &mockAPI{routes: routes, served: map[string]int{}}
	m.client = newMockClient(t, m, opts)
	return m
}

func newMockClient(t *testing.T, m *mockAPI, opts []ingestly.Option) *ingestly.Client {
	t.Helper()
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(m.respond)
	c, err := ingestly.New(testKey, append([]ingestly.Option{ingestly.WithHTTPClient(&http.Client{Transport: mt})}, opts...)...)
	require.NoError(t, err)
	return c
}

func (m *mockAPI) respond(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	m.mu.Lock()
	n := len(m.reqs)
	m.reqs = append(m.reqs, captured{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.Query(), Header: req.Header.Clone(), Body: body})
	var answer httpmock.Responder
	if m.routes != nil {
		path := req.URL.EscapedPath()
		list, ok := m.routes[path]
		if !ok {
			m.mu.Unlock()
			return nil, fmt.Errorf("mock: no route for %s %s", req.Method, path)
		}
		answer = list[min(m.served[path], len(list)-1)]
		m.served[path]++
	} else {
		answer = m.answers[min(n, len(m.answers)-1)]
	}
	m.mu.Unlock()
	return answer(req)
}

// paths lists the requests' paths in order.
func (m *mockAPI) paths() []string {
	var out []string
	for _, r := range m.requests() {
		out = append(out, r.Path)
	}
	return out
}

func (m *mockAPI) requests() []captured {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]captured(nil), m.reqs...)
}

// one is the mock's only request.
func (m *mockAPI) one(t *testing.T) captured {
	t.Helper()
	reqs := m.requests()
	require.Len(t, reqs, 1)
	return reqs[0]
}

// jsonAnswer answers status with a JSON body.
func jsonAnswer(status int, body string) httpmock.Responder {
	return httpmock.NewStringResponder(status, body).HeaderSet(http.Header{"Content-Type": {"application/json"}})
}

// problem answers an RFC 7807 problem.
func problem(status int, typ, detail string) httpmock.Responder {
	body := `{"type":"` + typ + `","title":"` + http.StatusText(status) + `","status":` + strconv.Itoa(status) + `,"detail":"` + detail + `"}`
	return httpmock.NewStringResponder(status, body).HeaderSet(http.Header{"Content-Type": {"application/problem+json"}})
}

// answers lists responders, used in order.
func answers(rs ...httpmock.Responder) []httpmock.Responder { return rs }

// checkCommon asserts what every request carries: the key in X-Api-Key
// and a User-Agent with the library's token.
func checkCommon(t *testing.T, r captured) {
	t.Helper()
	require.Equal(t, testKey, r.Header.Get("X-Api-Key"))
	require.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "jobpoll/"), "User-Agent %q", r.Header.Get("User-Agent"))
}
