package documindtest

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/google/uuid"
)

// Reviewer is the reviewed_by of reviews the server scripts, unless a
// [Review] names another.
const Reviewer = "0e3f5c2a-7b1d-4c8e-9a6f-2d4b8c1e5f70"

// After says when a scripted change takes effect, counted from the
// extraction's creation: once the extraction has been polled more than
// Polls times AND Time has passed. A zero field sets no condition, so the
// zero After takes effect at the first poll.
//
// A poll of an extraction is a GET /batch/{batch_id} of its batch, or a
// GET /data/extractions that could list it (no document_id filter, or its
// own). With After{Polls: 2}, two polls see the old state and the third
// sees the change. Prefer Polls in tests: it needs no real time.
type After struct {
	Polls int
	Time  time.Duration
}

// Document is an uploaded document and the script of what extracting it
// does.
type Document struct {
	// ID is the document id; empty means a fresh random UUID.
	ID string
	// Filename is its original_filename; default "document-<n>.pdf".
	Filename string
	// Results is what an extraction finds; nil means one sample value per
	// entity of the request's schema.
	Results map[string]any
	// NeedsReview flags the extraction for a person's review.
	NeedsReview bool
	// Review scripts the review of a flagged extraction; nil means no one
	// reviews it unless [Server.Review] is called.
	Review *Review
	// FailWith makes extraction fail with this error message: POST
	// /extract answers 500, a batch item ends failed.
	FailWith string
	// Ready is when a batch extraction of the document leaves pending
	// (completed, or failed with FailWith). POST /extract ignores it: it
	// is synchronous.
	Ready After
	// StayPending keeps a batch extraction pending forever, as when the
	// API process restarts while working on it.
	StayPending bool
}

// Review scripts a person's review of a flagged extraction.
type Review struct {
	// At is when the reviewer saves.
	At After
	// Results becomes reviewed_results; nil means the extraction's own
	// results, unchanged.
	Results map[string]any
	// ReviewedBy is the reviewer's user id; default [Reviewer].
	ReviewedBy string
}

// Extraction scripts an extraction listed by GET /data/extractions, for
// [Server.AddExtraction].
type Extraction struct {
	// Filename is its original_filename; default the document's.
	Filename string
	// Status is its first status word; default "completed". Any word is
	// served as is, unknown ones included.
	Status string
	// Steps change the status later, in order.
	Steps []Step
	// Results is what the extraction found; nil means {}.
	Results map[string]any
	// NeedsReview flags it for review; Review scripts the review, which
	// happens only once the extraction is completed.
	NeedsReview bool
	Review      *Review
	// ErrorMessage is the error_message of a failed extraction.
	ErrorMessage string
	// Listed hides the extraction from listings until then, as for an
	// extraction not yet listed.
	Listed After
}

// Step is one scripted status change of an extraction.
type Step struct {
	// Status is the new status word.
	Status string
	// At is when it takes effect.
	At After
	// ErrorMessage, when set, becomes the error_message.
	ErrorMessage string
}

// AddDocument registers an uploaded document, scripted by d, and returns
// its id.
func (s *Server) AddDocument(d Document) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if d.ID == "" {
		d.ID = uuid.NewString()
	}
	if d.Filename == "" {
		d.Filename = fmt.Sprintf("document-%d.pdf", s.seq)
	}
	d.Results = maps.Clone(d.Results)
	if d.Review != nil { // the caller may reuse theirs
		r := *d.Review
		r.Results = maps.Clone(r.Results)
		d.Review = &r
	}
	s.documents[d.ID] = &document{Document: d}
	return d.ID
}

// AddExtraction lists an extraction of documentID, scripted by x, as if
// the document had been extracted, and returns the extraction id. The
// document need not have been added.
func (s *Server) AddExtraction(documentID string, x Extraction) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	filename := x.Filename
	if filename == "" {
		if d := s.documents[documentID]; d != nil {
			filename = d.Filename
		} else {
			filename = "document.pdf"
		}
	}
	status := x.Status
	if status == "" {
		status = statusCompleted
	}
	e := s.newExtraction(documentID, filename, status)
	e.results = orEmpty(x.Results)
	e.needsReview = x.NeedsReview
	e.errorMessage = x.ErrorMessage
	e.listed = x.Listed
	for _, st := range x.Steps {
		e.steps = append(e.steps, statusChange(st))
	}
	if x.NeedsReview && x.Review != nil {
		e.steps = append(e.steps, reviewChange(*x.Review))
	}
	return e.id
}

// ErrNoExtraction is returned by [Server.Review] for a document with no
// extraction.
var ErrNoExtraction = errors.New("documindtest: the document has no extraction")

// Review has a person review the document's newest extraction now, as in
// the Documind dashboard: is_reviewed turns true and reviewed_results
// becomes results (nil: the extraction's own results).
func (s *Server) Review(documentID string, results map[string]any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var newest *extraction
	for _, e := range s.extractions {
		if e.documentID == documentID {
			newest = e
		}
	}
	if newest == nil {
		return fmt.Errorf("%w: %s", ErrNoExtraction, documentID)
	}
	newest.review(time.Now(), Review{Results: results})
	return nil
}

// StartBatch starts a batch extraction of the documents, as POST
// /batch/extract does, and returns the batch id. Every document must have
// been added with [Server.AddDocument].
func (s *Server) StartBatch(documentIDs ...string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(documentIDs) == 0 {
		return "", errors.New("documindtest: a batch needs at least one document")
	}
	for _, id := range documentIDs {
		if s.documents[id] == nil {
			return "", fmt.Errorf("documindtest: document %s was not added", id)
		}
	}
	return s.startBatch(documentIDs, nil).id, nil
}

// OverrideBatchStatus makes the next n answers of GET /batch/{batch_id}
// report status as the batch's aggregate status, e.g. a word the client
// does not know. The items and counts stay true.
func (s *Server) OverrideBatchStatus(batchID, status string, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.batches[batchID]
	if b == nil {
		return fmt.Errorf("documindtest: no batch %s", batchID)
	}
	for range n {
		b.overrides = append(b.overrides, status)
	}
	return nil
}
