// Package ingestlytest is a fake Ingestly API for tests and examples, in
// the spirit of net/http/httptest: it serves the endpoints package ingestly
// calls on loopback, with in-memory state, and lets a test script each
// run's life.
//
//	srv := ingestlytest.NewServer()
//	defer srv.Close()
//	srv.SetWorkflow("invoices", ingestlytest.Script{Stages: []ingestlytest.Stage{
//		{Status: "running", Polls: 2},
//		{Status: "review", Polls: 3},
//		{Status: "completed"},
//	}})
//	c := srv.Client()
//	trig, _ := c.Trigger(ctx, "invoices", ingestly.TriggerRequest{...})
//	run, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID, poll.WithBackoff(poll.Constant(time.Millisecond)))
//
// It checks the X-Api-Key header (401 otherwise), answers errors as RFC
// 7807 problems (application/problem+json), honours Idempotency-Key on
// the trigger (the same key gets the same answer), and injects faults on
// demand with InjectFault (429 with Retry-After, 5xx, slow or cut
// answers). Where the Ingestly docs do not say (status codes of the
// trigger, problem type URIs, the finished review task's status), the fake
// makes a documented choice of its own.
package ingestlytest

import (
	"net/http"
	"sync"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/ingestly"
)

// APIKey is the only key the fake accepts.
const APIKey = "ingestly-test-key"

// Routes, as given to InjectFault and Requests.
const (
	RouteTrigger      = "POST /workflows/{workflowId}/trigger"
	RouteRun          = "GET /runs/{runId}"
	RouteRunOutput    = "GET /runs/{runId}/output"
	RouteDocument     = "GET /documents/{documentId}"
	RouteDocumentRuns = "GET /documents/{documentId}/runs"
	RouteOriginalFile = "GET /documents/{documentId}/original"
	RouteReviewTasks  = "GET /review-tasks"
)

// Fault is a failure the server answers with instead of the real answer:
// a status (with Retry-After), a delay, a dropped connection or a body cut
// short. See [fakeapi.Fault] for the fields.
type Fault = fakeapi.Fault

// Server is a fake Ingestly API on loopback. Its methods are safe for
// concurrent use.
type Server struct {
	*fakeapi.Server

	mu        sync.Mutex
	seq       int
	workflows map[string]Script
	documents map[string]*document
	runs      map[string]*run
	tasks     []*task
	answers   map[answerKey]answer // stored trigger answers, by idempotency key
	uploads   []Upload
}

// NewServer starts a fake Ingestly API. Close it when done.
func NewServer() *Server {
	s := &Server{
		workflows: map[string]Script{},
		documents: map[string]*document{},
		runs:      map[string]*run{},
		answers:   map[answerKey]answer{},
	}
	s.Server = fakeapi.New(fakeapi.Config{
		AuthHeader: "X-Api-Key",
		APIKey:     APIKey,
		ErrorBody:  problemBody,
	}, func(mux *http.ServeMux) {
		mux.HandleFunc(RouteTrigger, s.handleTrigger)
		mux.HandleFunc(RouteRun, s.handleRun)
		mux.HandleFunc(RouteRunOutput, s.handleRunOutput)
		mux.HandleFunc(RouteDocument, s.handleDocument)
		mux.HandleFunc(RouteDocumentRuns, s.handleDocumentRuns)
		mux.HandleFunc(RouteOriginalFile, s.handleOriginalFile)
		mux.HandleFunc(RouteReviewTasks, s.handleReviewTasks)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			s.Error(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		})
	})
	return s
}

// Client returns a client for the fake, with its key and base URL; opts
// come after them. It panics if opts make ingestly.New fail, as a test
// helper that cannot go on.
func (s *Server) Client(opts ...ingestly.Option) *ingestly.Client {
	c, err := ingestly.New(APIKey, append([]ingestly.Option{ingestly.WithBaseURL(s.URL)}, opts...)...)
	if err != nil {
		panic("ingestlytest: Client: " + err.Error())
	}
	return c
}

// SetWorkflow makes every later trigger of workflowID follow sc. A
// trigger of a workflow that was never set answers 404.
func (s *Server) SetWorkflow(workflowID string, sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.workflows[workflowID] = sc
}

// AddRun submits a document that follows sc without going through the
// trigger endpoint, and returns what the trigger would have answered.
func (s *Server) AddRun(sc Script) ingestly.TriggerResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, resp := s.submit("", "", sc, time.Now())
	return resp
}

// Release runs a held document now and returns its new run id. It reports
// false for a document that is unknown or not held.
func (s *Server) Release(documentID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, ok := s.documents[documentID]
	if !ok || !doc.held {
		return "", false
	}
	return s.release(doc, time.Now()).id, true
}

// AddReviewTasks adds tasks to a run's review tasks, e.g. to test paging.
// A task without an ID gets one; one without a Status is pending.
func (s *Server) AddReviewTasks(runID string, tasks ...ingestly.ReviewTask) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tasks {
		if t.ID == "" {
			t.ID = s.newID(taskPrefix)
		}
		if t.Status == "" {
			t.Status = ingestly.ReviewTaskPending
		}
		t.RunID = runID
		s.tasks = append(s.tasks, &task{ReviewTask: t, stage: -1})
	}
}

// Uploads returns the documents received by the trigger endpoint, in
// order. A trigger answered from a stored idempotency key adds none.
func (s *Server) Uploads() []Upload {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Upload(nil), s.uploads...)
}
