package documind

import (
	"context"
	"time"

	"github.com/jobpoll/poll"
)

// Defaults of the wait helpers. Options passed to a helper come after them,
// so the caller's win. The strategies were chosen by simulating each
// workload (see BENCHMARKS.md): both see a finished job at most
// max(10 s, 10% of its duration) late.
const (
	// ReviewTimeout bounds [Client.WaitForReview] and
	// [Client.WaitForReviews]. A person reviews: 8 minutes at the median,
	// an hour at the 95th percentile, so a shorter default would give up
	// on ordinary reviews; 4 hours leaves about 1 review in 300 behind.
	ReviewTimeout = 4 * time.Hour
	// BatchTimeout bounds [Client.WaitForBatch].
	BatchTimeout = time.Hour
	// BatchStallTimeout ends [Client.WaitForBatch] with poll.ErrStalled
	// when neither the batch's status nor its progress changed for this
	// long: the docs warn that items can stay pending forever when the
	// API process restarts. Progress counts as a change, so a large batch
	// that keeps finishing items never stalls.
	BatchStallTimeout = 10 * time.Minute
	// BatchFirstPoll is how long [Client.WaitForBatch] waits before its
	// first poll: StartBatch has just said "pending", and a batch takes
	// 90 s at the median.
	BatchFirstPoll = 10 * time.Second
)

// ReviewBackoff is the default strategy of the review waits:
// poll.Proportional(0.1, 10s, 10min).
//
// Why: a review waits on a person, minutes to hours. Polling every 10% of
// the time waited so far (at least every 10 s, at most every 10 minutes)
// sees a finished review at most max(10 s, 10% of its duration) late,
// while the requests grow with the logarithm of the duration: in the
// simulation about 30 requests per review where the docs' fixed 10 s loop
// makes about 110, and never late. The first poll runs at once, so an
// extraction that needs no review returns immediately.
func ReviewBackoff() poll.Strategy {
	return poll.Proportional(0.1, 10*time.Second, 10*time.Minute)
}

// BatchBackoff is the default strategy of [Client.WaitForBatch]: the first
// poll after [BatchFirstPoll], then poll.ProportionalFrom(BatchFirstPoll,
// 0.1, 10s, 5min).
//
// Why: batches take 90 s at the median and 10 minutes at the 95th
// percentile. Like [ReviewBackoff] it is never more than max(10 s, 10%)
// late; in the simulation it makes 0.65 times the requests of the docs'
// fixed 10 s loop. It cannot make half: most batches end within 100 s,
// where the 10 s lateness bound allows no wider spacing than that loop's.
// The 5-minute cap keeps polls frequent enough for [BatchStallTimeout].
func BatchBackoff() poll.Strategy {
	return poll.ProportionalFrom(BatchFirstPoll, 0.1, 10*time.Second, 5*time.Minute)
}

func reviewDefaults() []poll.Option {
	return []poll.Option{poll.WithBackoff(ReviewBackoff()), poll.WithTimeout(ReviewTimeout)}
}

func batchDefaults() []poll.Option {
	return []poll.Option{
		poll.WithInitialDelay(BatchFirstPoll),
		poll.WithBackoff(BatchBackoff()),
		poll.WithTimeout(BatchTimeout),
		poll.WithStallTimeout(BatchStallTimeout),
	}
}

// withDefaults puts the provider's defaults before the caller's options,
// which therefore win.
func withDefaults(defaults, opts []poll.Option) []poll.Option {
	return append(defaults, opts...)
}

// WaitForReview waits until the document's newest extraction can be used:
// a person reviewed it (then read ReviewedResults, or FinalResults), or it
// needed no review. It polls GET /data/extractions?document_id=…&limit=1,
// newest first; while no extraction is listed it keeps polling (Queued,
// "not_listed"). A failed extraction ends the wait with an error matching
// poll.ErrFailed whose text carries the error message.
//
// Defaults: [ReviewBackoff], [ReviewTimeout]; opts override them. Like
// every wait, it returns the last extraction observed (nil if none was
// listed) together with any error. documentID must be a UUID.
func (c *Client) WaitForReview(ctx context.Context, documentID string, opts ...poll.Option) (*Extraction, error) {
	if err := checkUUID("document id", documentID); err != nil {
		return nil, err
	}
	return c.ReviewPoller(documentID, opts...).Wait(ctx)
}

// ReviewPoller returns the poller WaitForReview uses, for callers who want
// Poll, their own options or many waits at once (poll.Each). An invalid
// documentID makes its first attempt fail with a permanent error, before
// any request.
func (c *Client) ReviewPoller(documentID string, opts ...poll.Option) *poll.Poller[*Extraction] {
	fetch := func(ctx context.Context) (*Extraction, error) {
		return c.latestExtraction(ctx, documentID)
	}
	return poll.New(fetch, ReviewStatus, withDefaults(reviewDefaults(), opts)...)
}

// WaitForBatch waits until the batch reaches a final status. A batch that
// partially failed returns the batch, every item included, AND an error
// matching poll.ErrPartiallyFailed: check the items' statuses. The API
// reports partial_failed as soon as one item fails, even while others are
// still pending (Batch.Pending > 0); call [Client.Batch] later for those.
//
// Defaults: [BatchFirstPoll], [BatchBackoff], [BatchTimeout] and [BatchStallTimeout]
// (poll.ErrStalled when nothing changed for 10 minutes, since a batch can
// stay pending forever); opts override them, e.g.
// poll.WithStallTimeout(0) turns the stall check off. batchID must be a
// UUID.
func (c *Client) WaitForBatch(ctx context.Context, batchID string, opts ...poll.Option) (*Batch, error) {
	if err := checkUUID("batch id", batchID); err != nil {
		return nil, err
	}
	return c.BatchPoller(batchID, opts...).Wait(ctx)
}

// BatchPoller returns the poller WaitForBatch uses, with the same
// defaults, for callers who want Poll, hooks or their own options.
func (c *Client) BatchPoller(batchID string, opts ...poll.Option) *poll.Poller[*Batch] {
	fetch := func(ctx context.Context) (*Batch, error) {
		return c.Batch(ctx, batchID)
	}
	defaults := batchDefaults()
	if checkUUID("batch id", batchID) != nil {
		// The first attempt fails before any request: make it run at once
		// rather than after BatchFirstPoll.
		defaults = append(defaults, poll.WithInitialDelay(0))
	}
	return poll.New(fetch, BatchStatus, withDefaults(defaults, opts)...)
}
