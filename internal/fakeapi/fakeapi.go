// Package fakeapi is the plumbing the providers' fake servers share: an
// httptest.Server on loopback that checks the API key, counts requests per
// route and injects faults on demand, so that each provider's fake only
// implements its endpoints.
package fakeapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is a failure the server answers with instead of the real response.
type Fault struct {
	// Status, when not 0, is the status code answered, with Body (or a
	// JSON error naming the status when Body is empty).
	Status int
	// RetryAfter, when not empty, is sent as the Retry-After header:
	// delta-seconds ("30") or an HTTP date.
	RetryAfter string
	// Body replaces the answer's body, sent with ContentType and Status
	// (200 when 0): an HTML page where JSON was expected. ContentType
	// alone keeps the real answer and changes only its Content-Type.
	Body        string
	ContentType string
	// Delay holds the answer back (a slow server). The request's context
	// ends the wait early.
	Delay time.Duration
	// CloseConnection drops the connection without an answer (a reset).
	CloseConnection bool
	// Truncate sends the real answer cut in half (a body cut short).
	Truncate bool
}

// Server is a fake API on loopback.
type Server struct {
	*httptest.Server
	// APIKey is the key the server accepts.
	APIKey     string
	authHeader string
	errorBody  func(status int, message string) (contentType string, body []byte)

	mu     sync.Mutex
	faults map[string][]Fault // by route pattern, consumed in order
	counts map[string]int     // by route pattern
}

// Config describes the API a fake serves.
type Config struct {
	AuthHeader string
	APIKey     string
	// ErrorBody renders the provider's own error shape.
	ErrorBody func(status int, message string) (contentType string, body []byte)
}

// New starts a server for cfg; routes registers the provider's handlers on
// the mux, with patterns such as "GET /batch/{id}".
func New(cfg Config, routes func(mux *http.ServeMux)) *Server {
	s := &Server{
		APIKey:     cfg.APIKey,
		authHeader: cfg.AuthHeader,
		errorBody:  cfg.ErrorBody,
		faults:     map[string][]Fault{},
		counts:     map[string]int{},
	}
	if s.errorBody == nil {
		s.errorBody = func(_ int, message string) (string, []byte) {
			b, _ := json.Marshal(map[string]string{"detail": message})
			return "application/json", b
		}
	}
	mux := http.NewServeMux()
	routes(mux)
	s.Server = httptest.NewServer(s.handler(mux))
	return s
}

// InjectFault makes the next n requests to route (a pattern given to the
// mux, e.g. "GET /batch/{id}") answer with f, after the API key check. A
// Truncate or ContentType fault runs the real handler, so the request
// counts as a poll of the fake's scripted jobs like any answered one.
func (s *Server) InjectFault(route string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[route] = append(s.faults[route], f)
	}
}

// Requests returns how many requests reached route so far, those refused
// for a wrong key and those answered with a fault included.
func (s *Server) Requests(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[route]
}

// Error writes the provider's error shape.
func (s *Server) Error(w http.ResponseWriter, status int, message string) {
	ct, body := s.errorBody(status, message)
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// JSON writes v as a JSON answer.
func JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) handler(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, route := mux.Handler(r)
		s.mu.Lock()
		s.counts[route]++
		s.mu.Unlock()
		if r.Header.Get(s.authHeader) != s.APIKey {
			s.Error(w, http.StatusUnauthorized, "invalid or missing API key")
			return
		}
		s.mu.Lock()
		var fault *Fault
		if queue := s.faults[route]; len(queue) > 0 {
			fault, s.faults[route] = &queue[0], queue[1:]
		}
		s.mu.Unlock()
		if fault == nil {
			mux.ServeHTTP(w, r)
			return
		}
		s.serveFault(w, r, mux, *fault)
	})
}

func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, mux *http.ServeMux, f Fault) {
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case f.CloseConnection:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case f.Truncate:
		rec := record(mux, r, w)
		body := rec.Body.Bytes()
		// Promise the whole body and send half: the connection closes
		// mid-body, as when a proxy or the network drops it.
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body[:len(body)/2])
		return
	case f.Body == "" && f.ContentType != "" && f.Status == 0:
		rec := record(mux, r, w)
		w.Header().Set("Content-Type", f.ContentType)
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	switch {
	case f.Body != "" || f.ContentType != "":
		if f.ContentType != "" {
			w.Header().Set("Content-Type", f.ContentType)
		}
		status := f.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(f.Body))
	case f.Status != 0:
		s.Error(w, f.Status, strings.ToLower(http.StatusText(f.Status)))
	default:
		mux.ServeHTTP(w, r) // a pure delay
	}
}

// record runs the real handler into a recorder and copies its headers to w.
func record(mux *http.ServeMux, r *http.Request, w http.ResponseWriter) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, r)
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	return rec
}
