package documind

import (
	"context"
	"time"

	"github.com/jobpoll/poll"
)

// Defaults of the wait helpers. Options passed to a helper come after them,
// so the caller's win.
const (
	// ReviewTimeout bounds [Client.WaitForReview]. A person reviews:
	// that takes minutes, sometimes an hour (the docs' own SLA table goes
	// up to an hour), so the core default of 10 minutes would give up on
	// ordinary reviews.
	ReviewTimeout = time.Hour
	// BatchTimeout bounds [Client.WaitForBatch].
	BatchTimeout = time.Hour
	// BatchStallTimeout ends [Client.WaitForBatch] with poll.ErrStalled
	// when neither the batch's status nor its progress changed for this
	// long: the docs warn that items can stay pending forever when the
	// API process restarts. Progress counts as a change, so a large batch
	// that keeps finishing items never stalls.
	BatchStallTimeout = 10 * time.Minute
)

// ReviewBackoff is the default strategy of [Client.WaitForReview]:
// exponential from 5 s to 1 min, ±20% jitter.
//
// Why: a review waits on a person, minutes to an hour. The first poll runs
// at once (a review that is not needed returns then), 5 s later catches a
// reviewer who was already looking, and the delay reaches its 1-minute cap
// after about 75 s. From then on a wait costs about 60 requests an hour
// (the docs' "low-priority" row; a fixed 10 s poll costs 360) and notices
// a finished review at most a minute late, under 10% of a 10-minute
// review. It is the shape of the docs' own backoff example (5 s to 60 s).
func ReviewBackoff() poll.Strategy {
	return poll.Exponential(5*time.Second, time.Minute)
}

// BatchBackoff is the default strategy of [Client.WaitForBatch]:
// exponential from 2 s to 30 s, ±20% jitter.
//
// Why: a batch item is a machine extraction, seconds to a few minutes per
// document, and each poll reports progress worth showing. Starting at 2 s
// lets a batch of a few documents finish without waiting on a long sleep;
// the 30-second cap is the docs' "batch processing" interval (120 requests
// an hour) and stays far below [BatchStallTimeout], so a stall is noticed
// within 30 s of the timeout.
func BatchBackoff() poll.Strategy {
	return poll.Exponential(2*time.Second, 30*time.Second)
}

func reviewDefaults() []poll.Option {
	return []poll.Option{poll.WithBackoff(ReviewBackoff()), poll.WithTimeout(ReviewTimeout)}
}

func batchDefaults() []poll.Option {
	return []poll.Option{
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
// Defaults: [BatchBackoff], [BatchTimeout] and [BatchStallTimeout]
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
	return poll.New(fetch, BatchStatus, withDefaults(batchDefaults(), opts)...)
}
