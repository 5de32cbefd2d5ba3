package documind

import (
	"encoding/json"
)

// Extraction status words, as in the API's status field and the status
// filter of [ExtractionQuery].
const (
	ExtractionPending    = "pending"
	ExtractionProcessing = "processing"
	ExtractionCompleted  = "completed"
	ExtractionFailed     = "failed"
)

// Extraction modes for [ExtractRequest.ExtractionMode]. Setting Model
// selects Basic mode; setting neither Model nor ExtractionMode selects
// Advanced mode, with confidence scoring. Only VLM and Advanced flag fields
// for review.
const (
	ModeVLM = "vlm"
)

// ExtractRequest is the body of POST /extract/{document_id}, and the
// extraction_request of a batch.
type ExtractRequest struct {
	// Schema names the fields to extract. Required by /extract; a batch
	// accepts a prompt alone.
	Schema *Schema `json:"schema,omitempty"`
	// Prompt guides the extraction.
	Prompt string `json:"prompt,omitempty"`
	// Model selects Basic mode with that model, e.g.
	// "google-gemini-2.5-flash".
	Model string `json:"model,omitempty"`
	// ExtractionMode is [ModeVLM] or empty.
	ExtractionMode string `json:"extraction_mode,omitempty"`
	// ReviewThreshold (0–100, API default 80) is the confidence below which
	// a required field flags the extraction for review. A pointer, so that
	// 0 can be sent.
	ReviewThreshold *float64 `json:"review_threshold,omitempty"`
	// IncludeCitations is only valid in Advanced mode: leave Model and
	// ExtractionMode unset with it.
	IncludeCitations *bool `json:"include_citations,omitempty"`
	// AgenticOCR turns agentic OCR on or off (batch extraction).
	AgenticOCR *bool `json:"agentic_ocr,omitempty"`
	// ConfidenceInstruction tells the model how to score confidence
	// (batch extraction).
	ConfidenceInstruction string `json:"confidence_instruction,omitempty"`
}

// Schema is an extraction schema: the named entities to extract and which
// of them are required. Only required fields can flag an extraction for
// review.
type Schema struct {
	NamedEntities map[string]Entity `json:"named_entities"`
	Required      []string          `json:"required,omitempty"`
}

// Entity describes one field to extract.
type Entity struct {
	// Type is the field's type, e.g. "string", "number", "date".
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// ExtractResult is the 200 answer of POST /extract/{document_id}: the
// extraction is synchronous, so the results are already here.
type ExtractResult struct {
	DocumentID string `json:"document_id"`
	// Results holds the extracted fields, as a JSON object: decode it into
	// your own struct.
	Results json.RawMessage `json:"results"`
	// NeedsReview is true when a person must check the extraction first:
	// then wait for the review with [Client.WaitForReview] and use its
	// reviewed results.
	NeedsReview bool `json:"needs_review"`
	// NeedsReviewMetadata explains the flag:
	// {"confidence_scores": {...}, "review_flags": {...}}.
	NeedsReviewMetadata json.RawMessage `json:"needs_review_metadata,omitempty"`
}

// Extraction is one extraction as GET /data/extractions lists it.
type Extraction struct {
	ID               string `json:"id"`
	DocumentID       string `json:"document_id"`
	OriginalFilename string `json:"original_filename"`
	// Status is one of the Extraction* words: pending, processing,
	// completed, failed.
	Status      string `json:"status"`
	CreatedAt   Time   `json:"created_at"`
	UpdatedAt   Time   `json:"updated_at"`
	NeedsReview bool   `json:"needs_review"`
	IsReviewed  bool   `json:"is_reviewed"`
	// ReviewedAt is zero until a person reviewed the extraction.
	ReviewedAt Time `json:"reviewed_at"`
	// ReviewedBy is the reviewer's user id, empty until reviewed.
	ReviewedBy string `json:"reviewed_by,omitempty"`
	// Results is what the extraction found, as a JSON object.
	Results json.RawMessage `json:"results,omitempty"`
	// ReviewedResults is the reviewer's corrected version of Results, set
	// once IsReviewed is true. [Extraction.FinalResults] picks the right
	// one.
	ReviewedResults     json.RawMessage `json:"reviewed_results,omitempty"`
	NeedsReviewMetadata json.RawMessage `json:"needs_review_metadata,omitempty"`
	// ErrorMessage says why a failed extraction failed.
	ErrorMessage string `json:"error_message,omitempty"`
}

// FinalResults returns the results to use: the reviewed results once a
// person reviewed the extraction, else the extraction's own results. The
// docs warn to read reviewed_results, not results, after a review.
func (e *Extraction) FinalResults() json.RawMessage {
	if e == nil {
		return nil
	}
	if e.IsReviewed && len(e.ReviewedResults) > 0 && string(e.ReviewedResults) != "null" {
		return e.ReviewedResults
	}
	return e.Results
}

// ExtractionPage is one page of GET /data/extractions.
type ExtractionPage struct {
	Items []Extraction `json:"items"`
	// Total counts every extraction matching the filters, across pages.
	Total int `json:"total"`
	Skip  int `json:"skip"`
	Limit int `json:"limit"`
}

// Batch status words, as in [Batch.Status].
const (
	// BatchPending: at least one item is still pending and none failed.
	BatchPending = "pending"
	// BatchCompleted: every item completed.
	BatchCompleted = "completed"
	// BatchFailed: every item failed.
	BatchFailed = "failed"
	// BatchPartialFailed: at least one item failed and at least one did
	// not. The API reports it as soon as one item fails, even while others
	// are still pending.
	BatchPartialFailed = "partial_failed"
)

// BatchRequest is the body of POST /batch/extract.
type BatchRequest struct {
	// DocumentIDs are uploaded document ids (UUIDs); at least one.
	DocumentIDs []string `json:"document_ids"`
	// ExtractionRequest holds the same options as POST /extract; a prompt
	// alone is accepted.
	ExtractionRequest ExtractRequest `json:"extraction_request"`
}

// Batch is a batch extraction: the 202 answer of POST /batch/extract (id,
// status and pending items only) or GET /batch/{batch_id} (with counts and
// results).
type Batch struct {
	BatchID string `json:"batch_id"`
	// Status is one of the Batch* words.
	Status string `json:"status"`
	// Total, Pending, Completed and Failed count the items. The answer of
	// POST /batch/extract has no counts: they are 0 there.
	Total     int         `json:"total"`
	Pending   int         `json:"pending"`
	Completed int         `json:"completed"`
	Failed    int         `json:"failed"`
	Items     []BatchItem `json:"items"`
}

// BatchItem is one document of a batch.
type BatchItem struct {
	DocumentID       string `json:"document_id"`
	ExtractionID     string `json:"extraction_id"`
	OriginalFilename string `json:"original_filename,omitempty"`
	// Status is pending, completed or failed.
	Status string `json:"status"`
	// Results is what the extraction found, as a JSON object.
	Results             json.RawMessage `json:"results,omitempty"`
	NeedsReview         bool            `json:"needs_review"`
	NeedsReviewMetadata json.RawMessage `json:"needs_review_metadata,omitempty"`
	ResultsMetadata     json.RawMessage `json:"results_metadata,omitempty"`
	// ErrorMessage says why a failed item failed.
	ErrorMessage  string          `json:"error_message,omitempty"`
	ParsedContent json.RawMessage `json:"parsed_content,omitempty"`
	Layout        json.RawMessage `json:"layout,omitempty"`
	Sources       json.RawMessage `json:"sources,omitempty"`
}
