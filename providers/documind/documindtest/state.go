package documindtest

import (
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Documind's status words.
const (
	statusPending       = "pending"
	statusProcessing    = "processing"
	statusCompleted     = "completed"
	statusFailed        = "failed"
	statusPartialFailed = "partial_failed"
)

// document is an uploaded document and its script.
type document struct {
	Document
}

// extraction is one extraction's state and the changes still to come.
// Every field is guarded by Server.mu.
type extraction struct {
	seq                     int
	id, documentID          string
	filename, status        string
	createdAt, updatedAt    time.Time
	needsReview, isReviewed bool
	reviewedAt              time.Time
	reviewedBy              string
	results                 map[string]any
	reviewedResults         map[string]any
	errorMessage            string
	batchID                 string

	polls  int
	listed After
	steps  []change
}

// change is a scripted change, applied once it is due.
type change struct {
	at    After
	apply func(e *extraction, now time.Time)
}

func (s *Server) newExtraction(documentID, filename, status string) *extraction {
	s.seq++
	now := time.Now()
	e := &extraction{
		seq: s.seq, id: uuid.NewString(), documentID: documentID, filename: filename,
		status: status, createdAt: now, updatedAt: now, results: map[string]any{},
	}
	s.extractions = append(s.extractions, e)
	return e
}

// due reports whether a change at a applies now.
func (e *extraction) due(a After, now time.Time) bool {
	return e.polls > a.Polls && now.Sub(e.createdAt) >= a.Time
}

// observe counts one poll of e and applies the changes that became due, in
// order: a later change waits for the earlier ones.
func (e *extraction) observe(now time.Time) {
	e.polls++
	for len(e.steps) > 0 && e.due(e.steps[0].at, now) {
		next := e.steps[0]
		e.steps = e.steps[1:]
		next.apply(e, now)
	}
}

// visible reports whether listings show e yet.
func (e *extraction) visible(now time.Time) bool {
	return e.due(e.listed, now)
}

func (e *extraction) review(now time.Time, r Review) {
	e.isReviewed = true
	e.reviewedAt, e.updatedAt = now, now
	e.reviewedBy = r.ReviewedBy
	if e.reviewedBy == "" {
		e.reviewedBy = Reviewer
	}
	e.reviewedResults = maps.Clone(r.Results)
	if e.reviewedResults == nil {
		e.reviewedResults = maps.Clone(e.results)
	}
}

func statusChange(st Step) change {
	return change{at: st.At, apply: func(e *extraction, now time.Time) {
		e.status, e.updatedAt = st.Status, now
		if st.ErrorMessage != "" {
			e.errorMessage = st.ErrorMessage
		}
	}}
}

// reviewChange reviews a flagged extraction once it is completed; a
// review due earlier waits for that.
func reviewChange(r Review) change {
	return change{at: r.At, apply: func(e *extraction, now time.Time) {
		if e.status == statusCompleted && e.needsReview && !e.isReviewed {
			e.review(now, r)
		}
	}}
}

// finish ends a batch extraction the way the document's script says.
func finish(d *document, results map[string]any) change {
	return change{at: d.Ready, apply: func(e *extraction, now time.Time) {
		e.updatedAt = now
		if d.FailWith != "" {
			e.status, e.errorMessage = statusFailed, d.FailWith
			return
		}
		e.status, e.results, e.needsReview = statusCompleted, results, d.NeedsReview
	}}
}

// batch is a batch extraction: its items are extractions.
type batch struct {
	id        string
	items     []*extraction
	overrides []string // aggregate words to report instead, one per answer
}

// startBatch creates a batch and one pending extraction per document; the
// documents must exist. Callers hold s.mu.
func (s *Server) startBatch(documentIDs []string, schema *wireSchema) *batch {
	b := &batch{id: uuid.NewString()}
	for _, id := range documentIDs {
		d := s.documents[id]
		e := s.newExtraction(id, d.Filename, statusPending)
		e.batchID = b.id
		if !d.StayPending {
			e.steps = append(e.steps, finish(d, resultsFor(d, schema)))
			if d.NeedsReview && d.Review != nil && d.FailWith == "" {
				e.steps = append(e.steps, reviewChange(*d.Review))
			}
		}
		b.items = append(b.items, e)
	}
	s.batches[b.id] = b
	return b
}

// aggregate is the batch status the docs define from the items' statuses.
func (b *batch) aggregate() (status string, pending, completed, failed int) {
	for _, e := range b.items {
		switch itemStatus(e) {
		case statusCompleted:
			completed++
		case statusFailed:
			failed++
		default:
			pending++
		}
	}
	switch {
	case failed == len(b.items):
		return statusFailed, pending, completed, failed
	case completed == len(b.items):
		return statusCompleted, pending, completed, failed
	case failed > 0:
		// As soon as one item failed, even while others are pending.
		return statusPartialFailed, pending, completed, failed
	}
	return statusPending, pending, completed, failed
}

// itemStatus is the word a batch item shows: pending, completed or failed.
func itemStatus(e *extraction) string {
	switch e.status {
	case statusCompleted, statusFailed:
		return e.status
	}
	return statusPending
}

// resultsFor is what extracting d finds: its scripted results, or a
// sample value per entity of the schema.
func resultsFor(d *document, schema *wireSchema) map[string]any {
	if d.Results != nil {
		return maps.Clone(d.Results)
	}
	out := map[string]any{}
	if schema != nil {
		for _, name := range sortedKeys(schema.NamedEntities) {
			out[name] = "sample " + name
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return maps.Clone(m)
}
