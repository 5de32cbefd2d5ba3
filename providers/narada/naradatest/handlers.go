package naradatest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/narada"
)

// maxDispatchBody bounds a dispatch body, as any real server would.
const maxDispatchBody = 1 << 20

// dispatch serves POST /remote-dispatch: 202 {"requestId": "req_..."}.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDispatchBody))
	if err != nil {
		s.errorf(w, http.StatusRequestEntityTooLarge, "the body is over %d bytes", maxDispatchBody)
		return
	}
	var req narada.DispatchRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.errorf(w, http.StatusBadRequest, "the body is not a valid JSON request: %v", err)
		return
	}
	s.mu.Lock()
	s.dispatched = append(s.dispatched, req)
	s.mu.Unlock()

	switch req.ExecutionMode {
	case "", narada.ExecutionModeClient, narada.ExecutionModeCloud, narada.ExecutionModeCloudBrowser:
	default:
		s.errorf(w, http.StatusBadRequest, "executionMode must be client, cloud or cloud_browser, not %q", req.ExecutionMode)
		return
	}
	switch {
	case strings.TrimSpace(req.Prompt) == "":
		s.errorf(w, http.StatusBadRequest, "prompt is required")
		return
	case (req.ExecutionMode == "" || req.ExecutionMode == narada.ExecutionModeClient) && req.BrowserWindowID == "":
		s.errorf(w, http.StatusBadRequest, "browserWindowId is required when executionMode is client")
		return
	}
	if req.CallbackURL != "" {
		if err := checkCallback(req.CallbackURL); err != nil {
			s.errorf(w, http.StatusBadRequest, "%v", err)
			return
		}
	}

	s.mu.Lock()
	id := newRequestID()
	for s.tasks[id] != nil {
		id = newRequestID()
	}
	s.addLocked(Task{
		RequestID:       id,
		BrowserWindowID: req.BrowserWindowID,
		Steps:           s.dispatchSteps,
		CallbackURL:     req.CallbackURL,
		CallbackHeaders: req.CallbackHeaders,
		CallbackSecret:  req.CallbackSecret,
	})
	s.mu.Unlock()
	fakeapi.JSON(w, http.StatusAccepted, narada.DispatchResponse{RequestID: id})
}

// status serves GET /remote-dispatch/responses/{requestId}.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("requestId")
	s.mu.Lock()
	t, ok := s.tasks[id]
	if !ok {
		s.mu.Unlock()
		s.errorf(w, http.StatusNotFound, "no task with requestId %q", id)
		return
	}
	s.advanceLocked(t, time.Now())
	body := t.wire()
	t.polls++
	s.mu.Unlock()
	fakeapi.JSON(w, http.StatusOK, body)
}
