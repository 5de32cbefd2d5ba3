package ingestly

import (
	"encoding/json"
	"time"
)

// The shapes below are the ones the Ingestly docs show. Where the docs name
// an endpoint but not every field of its answer, the fields marked
// "inferred" follow the docs' naming (camelCase, ids as strings) and are
// left empty when the API does not send them. Unknown fields are ignored,
// as the docs ask.

// TriggerRequest is one document to submit to a workflow.
type TriggerRequest struct {
	// Filename is sent as the file part's filename (required).
	Filename string
	// File is the document's content. It is held in memory so that a
	// retry sends exactly the same bytes.
	File []byte
	// ContentType is the file part's media type. Default: guessed from
	// the filename's extension, as curl -F does, else
	// application/octet-stream.
	ContentType string
	// Reference is your own identifier for the document (e.g. "PO-1182"),
	// echoed back so you can match the result to your record. Optional.
	Reference string
	// IdempotencyKey makes a repeated trigger return the first answer
	// instead of submitting the document twice. Default: a new random
	// (version 4) UUID per call. Give your own, stored with your record,
	// to retry safely across process restarts.
	IdempotencyKey string
}

// TriggerResponse is Ingestly's answer to a trigger.
type TriggerResponse struct {
	DocumentID string `json:"documentId"`
	// RunID is empty when Status is "held" (the API sends null): the
	// document waits until someone runs it. Wait for it with
	// WaitForRun(ctx, DocumentID, "").
	RunID     string `json:"runId"`
	Status    string `json:"status"`
	Reference string `json:"reference"`
	// IdempotencyKey is the key the trigger was sent with: the caller's
	// or the generated one. It is not part of the API's answer.
	IdempotencyKey string `json:"-"`
}

// Held reports whether the document waits for someone to run it, so there
// is no run id yet.
func (r *TriggerResponse) Held() bool {
	return r != nil && r.Status == DocumentHeld
}

// Run is one execution of a workflow on a document.
type Run struct {
	ID         string `json:"id"`
	DocumentID string `json:"documentId"` // inferred
	WorkflowID string `json:"workflowId"` // inferred
	// Status is one of the Run* words (see [RunStatus]); new words can
	// appear without notice. WaitForRun also reports its own
	// [RunNotCreated] and [RunHeld] while there is no run to read.
	Status string `json:"status"`
	// Error says why a failed or cancelled run ended; nil otherwise.
	Error *RunError `json:"error,omitempty"`
}

// RunError is why a run failed (code and message) or was cancelled (code:
// by whom or why).
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// Document is a submitted file.
type Document struct {
	ID string `json:"id"`
	// Status is one of the Document* words, such as "failed",
	// "cancelled" or "held"; new words can appear without notice.
	Status     string `json:"status"`
	Reference  string `json:"reference,omitempty"`  // inferred
	WorkflowID string `json:"workflowId,omitempty"` // inferred
}

// ReviewTask is a person's check of a run's result.
type ReviewTask struct {
	ID    string `json:"id"`    // inferred
	RunID string `json:"runId"` // inferred, from the runId filter
	// Status is "pending" while the task waits for a person; the docs
	// show no other value, so treat any other as "no longer pending".
	Status string `json:"status"`
	// Decision is [DecisionApproved] or [DecisionRejected] once a person
	// finished the task, else empty.
	Decision string `json:"decision,omitempty"`
}

// Review task words the docs name.
const (
	// ReviewTaskPending is the status of a task a person has not finished.
	ReviewTaskPending = "pending"
	// DecisionApproved is the decision of an approved task.
	DecisionApproved = "approved"
	// DecisionRejected is the decision of a rejected task.
	DecisionRejected = "rejected"
)

// ReviewTaskQuery selects review tasks. Zero fields are not sent.
type ReviewTaskQuery struct {
	// RunID keeps the tasks of one run, including tasks of reusable
	// sections the run called.
	RunID string
	// Status keeps tasks in one status, e.g. [ReviewTaskPending].
	Status string
	// Page counts from 1. Default: 1.
	Page int
	// PageSize is at most [MaxReviewTaskPageSize]. Default: Ingestly's
	// own, 20 ([Client.AllReviewTasks] asks for the maximum instead).
	PageSize int
}

// MaxReviewTaskPageSize is the largest page Ingestly serves.
const MaxReviewTaskPageSize = 100

// ReviewTaskPage is one page of review tasks.
type ReviewTaskPage struct {
	// Count is the number of tasks on all pages.
	Count int `json:"count"`
	// Pages is the number of pages.
	Pages int          `json:"pages"`
	Data  []ReviewTask `json:"data"`
}

// RunOutput is what a run's Download Output node captured.
type RunOutput struct {
	ContentType string `json:"contentType"`
	// Filename is the name to save the output under.
	Filename string `json:"filename"`
	// IsBase64 is true for binary formats: Output is then a base64 string.
	IsBase64 bool `json:"isBase64"`
	// Output is a JSON value for JSON output, a JSON string for text
	// formats (CSV, XML, YAML, plain text) and a base64 JSON string for
	// binary formats. Read it with Decode, Text or Bytes.
	Output json.RawMessage `json:"output"`
}

// OriginalFile is a short-lived link to the file that was submitted.
type OriginalFile struct {
	// URL downloads the file until ExpiresOn (5 minutes); it needs no API
	// key. Treat it as a secret while it is valid.
	URL string `json:"url"`
	// ExpiresOn is when URL stops working; request a new one after it.
	ExpiresOn time.Time `json:"expiresOn"`
}
