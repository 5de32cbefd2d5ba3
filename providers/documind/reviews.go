package documind

import (
	"context"
	"errors"
	"iter"
	"slices"
	"time"

	"github.com/jobpoll/poll"
)

// reviewPageSize is the page size WaitForReviews lists with: the API's
// largest.
const reviewPageSize = 100

// individualChecks is how many documents outside the pending list a cycle
// looks up one by one before it lists recent updates instead.
const individualChecks = 2

// reviewedSlack widens the window of the recent-updates listing, so that a
// server clock behind ours loses nothing. A document the listing still
// misses is looked up on its own, so slack only saves requests.
const reviewedSlack = 5 * time.Minute

// WaitForReviews waits for many documents at once and yields each as its
// wait ends, in completion order, with its index in documentIDs: a
// reviewed extraction (or one that needed no review) with a nil error; a
// failed extraction with an error matching poll.ErrFailed; and, when the
// whole wait ends early (timeout, stall, cancellation, a permanent error),
// every document still waiting, with its last extraction and that error.
// An invalid id is yielded at once with an error matching ErrInvalidInput.
//
// It does not poll each document: a cycle pages through the pending
// reviews (needs_review=true&is_reviewed=false, 100 per page, oldest
// first), so 1,000 waiting documents cost 10 requests a cycle, not 1,000.
// Documents outside that list are found in a listing of recent updates
// (or, for one or two, looked up on their own), so a steady cycle costs
// ceil(pending/100) requests and each document that finishes costs at most
// one more. The first cycle looks up each document that is not pending. Unlike the docs' batch sample, which asks for limit=len(remaining)
// and misses documents once others fill the page, it reads every page.
//
// opts apply to the whole wait (one cycle is one attempt); defaults are
// [ReviewBackoff] and [ReviewTimeout]. Breaking out of the loop stops it.
func (c *Client) WaitForReviews(ctx context.Context, documentIDs []string, opts ...poll.Option) iter.Seq[poll.Result[*Extraction]] {
	return func(yield func(poll.Result[*Extraction]) bool) {
		w := &reviewWatch{c: c, yield: yield, remaining: map[string][]int{}, last: map[string]*Extraction{}, state: map[string]seenAs{}, total: len(documentIDs)}
		for i, id := range documentIDs {
			if err := checkUUID("document id", id); err != nil {
				if !w.emit(poll.Result[*Extraction]{Index: i, Err: err}) {
					return
				}
				continue
			}
			w.remaining[id] = append(w.remaining[id], i)
		}
		if len(w.remaining) == 0 {
			return
		}
		p := poll.New(w.cycle, w.status, withDefaults(reviewDefaults(), opts)...)
		_, err := p.Wait(ctx)
		if w.stopped || err == nil {
			return
		}
		for _, id := range w.remainingByIndex() {
			if !w.finish(id, w.last[id], err) {
				return
			}
		}
	}
}

// reviewWatch is the state of one WaitForReviews. Its cycle runs as the
// fetch of a poll.Poller, on the caller's goroutine, and yields documents
// as it finds them done.
type reviewWatch struct {
	c         *Client
	yield     func(poll.Result[*Extraction]) bool
	remaining map[string][]int       // document id → its indexes in documentIDs
	last      map[string]*Extraction // the last extraction seen per document
	total     int
	done      int
	state     map[string]seenAs // how each document was last seen
	stopped   bool              // the caller broke out of the loop
	lastCycle time.Time         // when the previous cycle started
}

// seenAs is how a cycle last saw a document that is still waiting.
type seenAs uint8

const (
	notSeen     seenAs = iota
	wasPending         // in the pending-review list
	wasLookedUp        // looked up on its own or listed as updated: not listed yet, or still processing
)

// errStopped ends the poller when the caller broke out of the loop.
var errStopped = errors.New("documind: the caller stopped WaitForReviews")

// cycle is one attempt: it finds which documents finished and yields them.
// The value it returns is the number of documents still waiting.
func (w *reviewWatch) cycle(ctx context.Context) (int, error) {
	started := time.Now()
	pending, err := w.pendingReviews(ctx)
	if err != nil {
		return len(w.remaining), err
	}
	var left []string
	for _, id := range w.remainingByIndex() {
		if x, ok := pending[id]; ok {
			w.last[id] = x
			w.state[id] = wasPending
		} else {
			left = append(left, id)
		}
	}
	if len(left) > individualChecks && !w.lastCycle.IsZero() {
		if left, err = w.recentUpdates(ctx, left); err != nil {
			return len(w.remaining), err
		}
	}
	for _, id := range left {
		x, err := w.c.latestExtraction(ctx, id)
		if err != nil {
			return len(w.remaining), err
		}
		w.state[id] = wasLookedUp
		if !w.settle(id, x) {
			return 0, errStopped
		}
	}
	w.lastCycle = started
	return len(w.remaining), nil
}

// pendingReviews pages through every extraction waiting for a review and
// returns those of the watched documents. A review that completes between
// two pages can shift the list and hide another document; that document
// is then looked up on its own, so paging can cost a request, never a
// result.
func (w *reviewWatch) pendingReviews(ctx context.Context) (map[string]*Extraction, error) {
	pending := map[string]*Extraction{}
	q := ExtractionQuery{NeedsReview: Bool(true), IsReviewed: Bool(false), SortBy: SortByCreatedAt, SortOrder: SortAsc, Limit: reviewPageSize}
	for {
		page, err := w.c.Extractions(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			x := &page.Items[i]
			if _, watched := w.remaining[x.DocumentID]; watched {
				pending[x.DocumentID] = x
			}
		}
		q.Skip += len(page.Items)
		if len(page.Items) == 0 || q.Skip >= page.Total {
			return pending, nil
		}
	}
}

// recentUpdates lists the extractions updated since the previous cycle,
// newest first, and settles the watched documents among ids that it finds
// (reviewed, processed, failed, newly listed). It returns the ids still to
// look up one by one: those it did not find that were pending a review
// last cycle. The others were looked up before and have not changed since.
func (w *reviewWatch) recentUpdates(ctx context.Context, ids []string) ([]string, error) {
	since := w.lastCycle.Add(-reviewedSlack)
	wanted := map[string]bool{}
	for _, id := range ids {
		wanted[id] = true
	}
	q := ExtractionQuery{SortBy: SortByUpdatedAt, SortOrder: SortDesc, Limit: reviewPageSize}
	for len(wanted) > 0 {
		page, err := w.c.Extractions(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			x := &page.Items[i]
			if wanted[x.DocumentID] {
				delete(wanted, x.DocumentID)
				w.state[x.DocumentID] = wasLookedUp
				if !w.settle(x.DocumentID, x) {
					return nil, errStopped
				}
			}
		}
		q.Skip += len(page.Items)
		if len(page.Items) == 0 || q.Skip >= page.Total || page.Items[len(page.Items)-1].UpdatedAt.Before(since) {
			break
		}
	}
	return slices.DeleteFunc(ids, func(id string) bool {
		return !wanted[id] || w.state[id] == wasLookedUp
	}), nil
}

// settle records a document's extraction and yields the document if its
// wait is over. It returns false when the caller stopped the loop.
func (w *reviewWatch) settle(id string, x *Extraction) bool {
	w.last[id] = x
	st := ReviewStatus(x)
	if !st.State.Final() {
		return true
	}
	var err error
	if st.State != poll.Succeeded {
		err = &poll.JobError{Status: st}
	}
	return w.finish(id, x, err)
}

// finish yields every index of a document whose wait is over.
func (w *reviewWatch) finish(id string, x *Extraction, err error) bool {
	indexes := w.remaining[id]
	delete(w.remaining, id)
	for _, i := range indexes {
		w.done++
		if !w.emit(poll.Result[*Extraction]{Index: i, Value: x, Err: err}) {
			return false
		}
	}
	return true
}

func (w *reviewWatch) emit(r poll.Result[*Extraction]) bool {
	if w.stopped {
		return false
	}
	if !w.yield(r) {
		w.stopped = true
	}
	return !w.stopped
}

// remainingByIndex returns the waiting documents in input order, so that
// results come out in a stable order within a cycle.
func (w *reviewWatch) remainingByIndex() []string {
	ids := make([]string, 0, len(w.remaining))
	for id := range w.remaining {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return w.remaining[a][0] - w.remaining[b][0] })
	return ids
}

// status turns a cycle into the whole wait's status: running with the
// share of documents done as progress (so the stall timeout sees
// progress), succeeded when none is left.
func (w *reviewWatch) status(left int) poll.Status {
	if left == 0 {
		return poll.Status{State: poll.Succeeded, Raw: "all_reviewed", Progress: 1}
	}
	progress := 0.0
	if w.total > 0 {
		progress = float64(w.done) / float64(w.total)
	}
	return poll.Status{State: poll.Waiting, Raw: RawNeedsReview, Progress: progress}
}
