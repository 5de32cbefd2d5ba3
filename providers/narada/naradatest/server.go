// Package naradatest is a fake Narada Remote Dispatch API for tests, in the
// spirit of net/http/httptest: an in-memory server on loopback whose tasks
// are created by the real dispatch endpoint or scripted with
// [Server.AddTask], and whose life (a sequence of statuses, each taking
// effect after N polls and/or after a duration) the test decides. It checks
// the API key (401 otherwise), answers errors as {"error": "..."} (the
// docs give no error shape, so this plain one is assumed), delivers
// webhooks to callbackUrl when a task finishes, and injects faults on
// demand (429 with Retry-After, 5xx, 404, slow answers, reset
// connections).
package naradatest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/narada"
)

// APIKey is the only key the server accepts.
const APIKey = "narada-test-key"

// Routes, as given to InjectFault and Requests.
const (
	// RouteDispatch starts a task.
	RouteDispatch = "POST /remote-dispatch"
	// RouteTask reads a task's status.
	RouteTask = "GET /remote-dispatch/responses/{requestId}"
)

// Fault is a failure injected with InjectFault: a status code (with
// RetryAfter), a body, a delay, a dropped connection or a truncated body.
type Fault = fakeapi.Fault

// Server is the fake API. Its methods are safe for concurrent use.
type Server struct {
	*fakeapi.Server

	mu            sync.Mutex
	tasks         map[string]*task
	dispatchSteps []Step
	dispatched    []narada.DispatchRequest
	deliveries    map[string][]Delivery
	closed        bool

	// Webhook deliveries run on their own goroutines; Close cancels and
	// waits for them.
	hooks      *http.Client
	hookCtx    context.Context
	hookCancel context.CancelFunc
	hookWG     sync.WaitGroup
}

// NewServer starts a fake server on loopback. Close it when done. Tasks
// dispatched through it follow [DefaultSteps] until [Server.SetDispatchSteps]
// says otherwise.
func NewServer() *Server {
	s := &Server{
		tasks:         map[string]*task{},
		deliveries:    map[string][]Delivery{},
		dispatchSteps: DefaultSteps(),
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	s.hooks = &http.Client{Transport: transport, Timeout: webhookTimeout}
	s.hookCtx, s.hookCancel = context.WithCancel(context.Background())
	s.Server = fakeapi.New(fakeapi.Config{
		AuthHeader: "x-api-key",
		APIKey:     APIKey,
		ErrorBody: func(_ int, message string) (string, []byte) {
			b, _ := json.Marshal(map[string]string{"error": message})
			return "application/json", b
		},
	}, func(mux *http.ServeMux) {
		mux.HandleFunc(RouteDispatch, s.dispatch)
		mux.HandleFunc(RouteTask, s.status)
	})
	return s
}

// Client returns a client for this server, with its HTTP client; opts come
// after the server's own and win. It panics if opts make New fail (such as
// a negative WithMaxResponseBytes), as httptest panics on misuse.
func (s *Server) Client(opts ...narada.Option) *narada.Client {
	base := []narada.Option{narada.WithBaseURL(s.URL), narada.WithHTTPClient(s.Server.Server.Client())}
	c, err := narada.New(APIKey, append(base, opts...)...)
	if err != nil {
		panic("naradatest: " + err.Error())
	}
	return c
}

// Close stops the timers of scripted tasks, cancels webhook deliveries in
// flight and waits for them, then shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for _, t := range s.tasks {
		for _, timer := range t.timers {
			timer.Stop()
		}
	}
	s.mu.Unlock()
	s.hookCancel()
	s.hookWG.Wait()
	s.hooks.CloseIdleConnections()
	s.Server.Close()
}

// Dispatched returns the bodies POST /remote-dispatch received, in order,
// valid or not (fields the client does not type are in Extra).
func (s *Server) Dispatched() []narada.DispatchRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]narada.DispatchRequest(nil), s.dispatched...)
}

// Polls returns how many status requests reached the task (faults
// excluded, since a fault answers before the task is looked at).
func (s *Server) Polls(requestID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tasks[requestID]; ok {
		return t.polls
	}
	return 0
}

// newRequestID returns an id in the docs' style, "req_" and hex.
func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "req_" + hex.EncodeToString(b)
}

// timestamp writes a time as the docs show it:
// "2024-12-19T00:00:00.000000+00:00".
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000-07:00")
}

func (s *Server) errorf(w http.ResponseWriter, status int, format string, args ...any) {
	s.Error(w, status, fmt.Sprintf(format, args...))
}
