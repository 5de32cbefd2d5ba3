package documindtest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
)

// handleStartBatch serves POST /batch/extract: 202 with one pending item
// per document. Items leave pending as their documents' scripts say.
func (s *Server) handleStartBatch(w http.ResponseWriter, r *http.Request) {
	var req wireBatchRequest
	if !decodeBody(w, r, &req) {
		return
	}
	var issues []issue
	if len(req.DocumentIDs) == 0 {
		issues = append(issues, issue{Type: "too_short", Loc: []any{"body", "document_ids"},
			Msg: "List should have at least 1 item after validation, not 0", Input: []string{}})
	}
	ids := make([]string, 0, len(req.DocumentIDs))
	for i, raw := range req.DocumentIDs {
		var id string
		if json.Unmarshal(raw, &id) != nil || !isUUID(id) {
			issues = append(issues, uuidIssue([]any{"body", "document_ids", i}, raw))
			continue
		}
		ids = append(ids, id)
	}
	if req.ExtractionRequest == nil {
		issues = append(issues, issue{Type: "missing", Loc: []any{"body", "extraction_request"}, Msg: "Field required"})
	}
	if len(issues) > 0 {
		unprocessable(w, issues...)
		return
	}
	if msg := checkOptions(req.ExtractionRequest); msg != "" {
		s.Error(w, http.StatusBadRequest, msg)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if s.documents[id] == nil {
			s.Error(w, http.StatusForbidden, "No access to document "+id)
			return
		}
	}
	b := s.startBatch(ids, req.ExtractionRequest.Schema)
	out := wireStarted{BatchID: b.id, Status: statusPending, Items: []wireStartedItem{}}
	for _, e := range b.items {
		out.Items = append(out.Items, wireStartedItem{DocumentID: e.documentID, ExtractionID: e.id, Status: statusPending})
	}
	fakeapi.JSON(w, http.StatusAccepted, out)
}

// handleBatch serves GET /batch/{batch_id}, a poll of every item.
func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("batch_id")
	if !isUUID(id) {
		s.Error(w, http.StatusBadRequest, "Invalid batch ID")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.batches[id]
	if b == nil {
		s.Error(w, http.StatusNotFound, "Batch not found")
		return
	}
	now := time.Now()
	out := wireBatch{BatchID: b.id, Total: len(b.items), Items: []wireBatchItem{}}
	for _, e := range b.items {
		e.observe(now)
		out.Items = append(out.Items, e.wireItem())
	}
	out.Status, out.Pending, out.Completed, out.Failed = b.aggregate()
	if len(b.overrides) > 0 {
		out.Status, b.overrides = b.overrides[0], b.overrides[1:]
	}
	fakeapi.JSON(w, http.StatusOK, out)
}
