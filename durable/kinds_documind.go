package durable

import (
	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

// Names of the Documind kinds.
const (
	ProviderDocumind = "documind"
	KindReview       = "review"
	KindBatch        = "batch"
)

// DocumindReview is the target of a wait for a document's review
// (documind's WaitForReview): ids {"documentId"}.
func DocumindReview(documentID string) Target {
	return Target{Provider: ProviderDocumind, Kind: KindReview, IDs: map[string]string{"documentId": documentID}}
}

// DocumindBatch is the target of a wait for a batch (documind's
// WaitForBatch): ids {"batchId"}.
func DocumindBatch(batchID string) Target {
	return Target{Provider: ProviderDocumind, Kind: KindBatch, IDs: map[string]string{"batchId": batchID}}
}

// DocumindKinds are the Documind kinds, polled through c with
// ReviewPoller and BatchPoller. Their defaults are the provider's:
// documind.ReviewBackoff and ReviewTimeout for a review;
// documind.BatchBackoff, BatchTimeout and BatchStallTimeout for a batch.
// The observation stored is the *documind.Extraction or *documind.Batch.
func DocumindKinds(c *documind.Client) []Kind {
	review := NewKind(ProviderDocumind, KindReview,
		func(t Target, opts ...poll.Option) (*poll.Poller[*documind.Extraction], error) {
			return c.ReviewPoller(t.ID("documentId"), opts...), nil
		},
		KindConfig{
			IDs:        []string{"documentId"},
			Defaults:   Options{Timeout: documind.ReviewTimeout, Strategy: new(NamedSpec("documind.review"))},
			Strategies: map[string]poll.Strategy{"documind.review": documind.ReviewBackoff()},
		})
	batch := NewKind(ProviderDocumind, KindBatch,
		func(t Target, opts ...poll.Option) (*poll.Poller[*documind.Batch], error) {
			return c.BatchPoller(t.ID("batchId"), opts...), nil
		},
		KindConfig{
			IDs: []string{"batchId"},
			Defaults: Options{
				Timeout:      documind.BatchTimeout,
				StallTimeout: documind.BatchStallTimeout,
				Strategy:     new(NamedSpec("documind.batch")),
			},
			Strategies: map[string]poll.Strategy{"documind.batch": documind.BatchBackoff()},
		})
	return []Kind{review, batch}
}
