// Package documindtest is a fake Documind API for tests and examples, in
// the spirit of net/http/httptest: a real HTTP server on loopback with
// in-memory documents, extractions and batches whose lives a test scripts
// (when an extraction leaves pending, when a person reviews it, which batch
// items fail), plus faults on demand (429 with Retry-After, 5xx, a 404
// window, slow answers). It checks the X-API-Key header (401 otherwise) and
// answers with Documind's JSON shapes, status codes and {"detail": ...}
// errors.
//
//	srv := documindtest.NewServer()
//	defer srv.Close()
//	doc := srv.AddDocument(documindtest.Document{
//		NeedsReview: true,
//		Review:      &documindtest.Review{At: documindtest.After{Polls: 2}},
//	})
//	c := srv.Client()
//	_, _ = c.Extract(ctx, doc, documind.ExtractRequest{Schema: schema})
//	x, err := c.WaitForReview(ctx, doc, poll.WithBackoff(poll.Constant(time.Millisecond)))
package documindtest

import (
	"net/http"
	"sync"

	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/documind"
)

// APIKey is the only key the server accepts.
const APIKey = "documind-test-key"

// Route names for [Server.InjectFault] and [Server.Requests]: the patterns
// the server's mux routes on.
const (
	RouteExtract     = "POST /extract/{document_id}"
	RouteExtractions = "GET /data/extractions"
	RouteStartBatch  = "POST /batch/extract"
	RouteBatch       = "GET /batch/{batch_id}"
)

// Fault is a failure the server answers with instead of the real answer:
// see [Server.InjectFault].
type Fault = fakeapi.Fault

// Server is a fake Documind API on loopback. Its URL is the base URL, the
// counterpart of documind.DefaultBaseURL. Close it when done.
//
// InjectFault(route, n, fault) makes the next n requests to route answer
// with fault, after the key check; Requests(route) counts the requests
// that reached route, faults included.
type Server struct {
	*fakeapi.Server

	mu          sync.Mutex
	seq         int
	documents   map[string]*document
	extractions []*extraction // in creation order
	batches     map[string]*batch
}

// NewServer starts a fake Documind API with no documents.
func NewServer() *Server {
	s := &Server{documents: map[string]*document{}, batches: map[string]*batch{}}
	s.Server = fakeapi.New(fakeapi.Config{AuthHeader: "X-API-Key", APIKey: APIKey}, s.routes)
	return s
}

func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc(RouteExtract, s.handleExtract)
	mux.HandleFunc(RouteExtractions, s.handleExtractions)
	mux.HandleFunc(RouteStartBatch, s.handleStartBatch)
	mux.HandleFunc(RouteBatch, s.handleBatch)
}

// Client returns a client for this server, with its key; opts come after
// the server's base URL and HTTP client, so they can replace them. It
// panics if opts make documind.New fail, as only a broken test can.
func (s *Server) Client(opts ...documind.Option) *documind.Client {
	all := append([]documind.Option{
		documind.WithBaseURL(s.URL),
		documind.WithHTTPClient(s.Server.Client()),
	}, opts...)
	c, err := documind.New(APIKey, all...)
	if err != nil {
		panic("documindtest: " + err.Error())
	}
	return c
}
