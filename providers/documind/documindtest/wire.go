package documindtest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
)

// The server writes its own JSON shapes, independent of the documind
// package's types, so that a wrong tag in the client shows up in tests.

type wireExtraction struct {
	ID                  string         `json:"id"`
	DocumentID          string         `json:"document_id"`
	OriginalFilename    string         `json:"original_filename"`
	Status              string         `json:"status"`
	CreatedAt           string         `json:"created_at"`
	UpdatedAt           string         `json:"updated_at"`
	NeedsReview         bool           `json:"needs_review"`
	IsReviewed          bool           `json:"is_reviewed"`
	ReviewedAt          *string        `json:"reviewed_at"`
	ReviewedBy          *string        `json:"reviewed_by"`
	Results             map[string]any `json:"results"`
	ReviewedResults     map[string]any `json:"reviewed_results"`
	NeedsReviewMetadata map[string]any `json:"needs_review_metadata"`
	ErrorMessage        *string        `json:"error_message"`
}

type wirePage struct {
	Items []wireExtraction `json:"items"`
	Total int              `json:"total"`
	Skip  int              `json:"skip"`
	Limit int              `json:"limit"`
}

type wireExtractResult struct {
	DocumentID          string         `json:"document_id"`
	Results             map[string]any `json:"results"`
	NeedsReview         bool           `json:"needs_review"`
	NeedsReviewMetadata map[string]any `json:"needs_review_metadata"`
}

type wireStartedItem struct {
	DocumentID   string `json:"document_id"`
	ExtractionID string `json:"extraction_id"`
	Status       string `json:"status"`
}

type wireStarted struct {
	BatchID string            `json:"batch_id"`
	Status  string            `json:"status"`
	Items   []wireStartedItem `json:"items"`
}

type wireBatchItem struct {
	DocumentID          string         `json:"document_id"`
	ExtractionID        string         `json:"extraction_id"`
	OriginalFilename    string         `json:"original_filename"`
	Status              string         `json:"status"`
	Results             map[string]any `json:"results"`
	NeedsReview         bool           `json:"needs_review"`
	NeedsReviewMetadata map[string]any `json:"needs_review_metadata"`
	ResultsMetadata     map[string]any `json:"results_metadata"`
	ErrorMessage        *string        `json:"error_message"`
	ParsedContent       any            `json:"parsed_content"`
	Layout              any            `json:"layout"`
	Sources             any            `json:"sources"`
}

type wireBatch struct {
	BatchID   string          `json:"batch_id"`
	Status    string          `json:"status"`
	Total     int             `json:"total"`
	Pending   int             `json:"pending"`
	Completed int             `json:"completed"`
	Failed    int             `json:"failed"`
	Items     []wireBatchItem `json:"items"`
}

// Request bodies, decoded loosely so that a missing field can be told
// from a zero one.

type wireSchema struct {
	NamedEntities map[string]json.RawMessage `json:"named_entities"`
	Required      []string                   `json:"required"`
}

type wireExtractRequest struct {
	Schema                *wireSchema `json:"schema"`
	Prompt                string      `json:"prompt"`
	Model                 string      `json:"model"`
	ExtractionMode        string      `json:"extraction_mode"`
	ReviewThreshold       *float64    `json:"review_threshold"`
	IncludeCitations      *bool       `json:"include_citations"`
	AgenticOCR            *bool       `json:"agentic_ocr"`
	ConfidenceInstruction string      `json:"confidence_instruction"`
}

type wireBatchRequest struct {
	DocumentIDs       []json.RawMessage   `json:"document_ids"`
	ExtractionRequest *wireExtractRequest `json:"extraction_request"`
}

// stamp writes a timestamp as the API does: ISO 8601 in UTC, microseconds.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (e *extraction) wire() wireExtraction {
	w := wireExtraction{
		ID: e.id, DocumentID: e.documentID, OriginalFilename: e.filename,
		Status: e.status, CreatedAt: stamp(e.createdAt), UpdatedAt: stamp(e.updatedAt),
		NeedsReview: e.needsReview, IsReviewed: e.isReviewed,
		ReviewedBy: nullable(e.reviewedBy), Results: orEmpty(e.results),
		NeedsReviewMetadata: reviewMetadata(e.results, e.needsReview),
		ErrorMessage:        nullable(e.errorMessage),
	}
	if e.isReviewed {
		at := stamp(e.reviewedAt)
		w.ReviewedAt, w.ReviewedResults = &at, orEmpty(e.reviewedResults)
	}
	return w
}

func (e *extraction) wireItem() wireBatchItem {
	return wireBatchItem{
		DocumentID: e.documentID, ExtractionID: e.id, OriginalFilename: e.filename,
		Status: itemStatus(e), Results: orEmpty(e.results), NeedsReview: e.needsReview,
		NeedsReviewMetadata: map[string]any{},
		ResultsMetadata:     map[string]any{"batch_id": e.batchID},
		ErrorMessage:        nullable(e.errorMessage),
	}
}

// reviewMetadata explains a review flag: the docs give its shape,
// {"confidence_scores": {}, "review_flags": {}}; the fake flags the
// first field in name order with a low confidence.
func reviewMetadata(results map[string]any, needsReview bool) map[string]any {
	scores, flags := map[string]any{}, map[string]any{}
	if needsReview {
		for _, name := range sortedKeys(results) {
			scores[name], flags[name] = 0.42, true
			break
		}
	}
	return map[string]any{"confidence_scores": scores, "review_flags": flags}
}

// issue is one FastAPI validation error, the 422 shape.
type issue struct {
	Type  string `json:"type"`
	Loc   []any  `json:"loc"`
	Msg   string `json:"msg"`
	Input any    `json:"input,omitempty"`
}

// unprocessable answers 422 with FastAPI's {"detail": [issues]}.
func unprocessable(w http.ResponseWriter, issues ...issue) {
	fakeapi.JSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": issues})
}
