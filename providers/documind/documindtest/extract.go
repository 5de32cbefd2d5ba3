package documindtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/google/uuid"

	"github.com/jobpoll/poll/internal/fakeapi"
)

// maxBody bounds request bodies the fake reads.
const maxBody = 1 << 20

// handleExtract serves POST /extract/{document_id}: a synchronous
// extraction, recorded as a completed (or failed) extraction.
func (s *Server) handleExtract(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("document_id")
	if !isUUID(id) {
		unprocessable(w, uuidIssue([]any{"path", "document_id"}, id))
		return
	}
	var req wireExtractRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Schema == nil {
		unprocessable(w, issue{Type: "missing", Loc: []any{"body", "schema"}, Msg: "Field required"})
		return
	}
	if msg := checkOptions(&req); msg != "" {
		s.Error(w, http.StatusBadRequest, msg)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.documents[id]
	if d == nil {
		s.Error(w, http.StatusNotFound, "Document not found")
		return
	}
	e := s.newExtraction(id, d.Filename, statusCompleted)
	if d.FailWith != "" {
		e.status, e.errorMessage = statusFailed, d.FailWith
		s.Error(w, http.StatusInternalServerError, d.FailWith)
		return
	}
	e.results, e.needsReview = resultsFor(d, req.Schema), d.NeedsReview
	if d.NeedsReview && d.Review != nil {
		e.steps = append(e.steps, reviewChange(*d.Review))
	}
	fakeapi.JSON(w, http.StatusOK, wireExtractResult{
		DocumentID:          id,
		Results:             orEmpty(e.results),
		NeedsReview:         e.needsReview,
		NeedsReviewMetadata: reviewMetadata(e.results, e.needsReview),
	})
}

// checkOptions returns the 400 message for extraction options the API
// refuses, or "".
func checkOptions(req *wireExtractRequest) string {
	switch {
	case req.Schema != nil && len(req.Schema.NamedEntities) == 0:
		return "Invalid schema: named_entities must name at least one field"
	case req.ExtractionMode != "" && req.ExtractionMode != "vlm":
		return fmt.Sprintf("Invalid extraction_mode %q: only \"vlm\" is supported", req.ExtractionMode)
	case req.ReviewThreshold != nil && (*req.ReviewThreshold < 0 || *req.ReviewThreshold > 100):
		return fmt.Sprintf("Invalid review_threshold %v: must be between 0 and 100", *req.ReviewThreshold)
	case req.IncludeCitations != nil && *req.IncludeCitations && (req.Model != "" || req.ExtractionMode == "vlm"):
		return "include_citations is only valid for Advanced extraction: do not set model or extraction_mode \"vlm\""
	}
	return ""
}

// decodeBody reads a JSON body into v, answering 422 as FastAPI does when
// it is not JSON.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		unprocessable(w, issue{Type: "json_invalid", Loc: []any{"body"}, Msg: "JSON decode error: " + err.Error()})
		return false
	}
	return true
}

func uuidIssue(loc []any, input any) issue {
	return issue{Type: "uuid_parsing", Loc: loc, Msg: "Input should be a valid UUID", Input: input}
}

// isUUID accepts the canonical 8-4-4-4-12 form only.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}
