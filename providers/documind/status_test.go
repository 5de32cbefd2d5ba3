package documind_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

func TestReviewStatus(t *testing.T) {
	tests := []struct {
		name string
		x    *documind.Extraction
		want poll.Status
	}{
		{"not listed yet", nil, poll.Status{State: poll.Queued, Raw: "not_listed"}},
		{"pending", &documind.Extraction{Status: "pending"}, poll.Status{State: poll.Running, Raw: "pending"}},
		{"processing", &documind.Extraction{Status: "processing"}, poll.Status{State: poll.Running, Raw: "processing"}},
		{"completed, needs review", &documind.Extraction{Status: "completed", NeedsReview: true}, poll.Status{State: poll.Waiting, Raw: "needs_review"}},
		{"completed, reviewed", &documind.Extraction{Status: "completed", NeedsReview: true, IsReviewed: true}, poll.Status{State: poll.Succeeded, Raw: "reviewed"}},
		{"reviewed whatever the status word", &documind.Extraction{Status: "archived", IsReviewed: true}, poll.Status{State: poll.Succeeded, Raw: "reviewed"}},
		{"completed, no review needed", &documind.Extraction{Status: "completed"}, poll.Status{State: poll.Succeeded, Raw: "not_needed"}},
		{"failed", &documind.Extraction{Status: "failed", ErrorMessage: "Extraction failed. Please contact support."},
			poll.Status{State: poll.Failed, Raw: "failed", Reason: "Extraction failed. Please contact support."}},
		{"failed without a message", &documind.Extraction{Status: "failed"}, poll.Status{State: poll.Failed, Raw: "failed"}},
		{"no status word but flagged", &documind.Extraction{NeedsReview: true}, poll.Status{State: poll.Waiting, Raw: "needs_review"}},
		{"no status word, not flagged", &documind.Extraction{}, poll.Status{State: poll.Unknown}},
		{"unknown word", &documind.Extraction{Status: "reindexing"}, poll.Status{State: poll.Unknown, Raw: "reindexing"}},
		{"unknown word, flagged", &documind.Extraction{Status: "reindexing", NeedsReview: true}, poll.Status{State: poll.Unknown, Raw: "reindexing"}},
		{"status words are case sensitive", &documind.Extraction{Status: "Completed"}, poll.Status{State: poll.Unknown, Raw: "Completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := documind.ReviewStatus(tt.x)
			assert.Equal(t, tt.want, got)
			if tt.want.State == poll.Unknown {
				assert.False(t, got.State.Final(), "an unknown word must not end a wait")
			}
		})
	}
}

func TestBatchStatus(t *testing.T) {
	items := func(statuses ...string) []documind.BatchItem {
		out := make([]documind.BatchItem, len(statuses))
		for i, st := range statuses {
			out[i] = documind.BatchItem{DocumentID: "doc-" + string(rune('a'+i)), Status: st}
			if st == "failed" {
				out[i].ErrorMessage = "Extraction failed. Please contact support."
			}
		}
		return out
	}
	tests := []struct {
		name string
		b    *documind.Batch
		want poll.Status
	}{
		{"nil", nil, poll.Status{State: poll.Unknown}},
		{"just started: no counts", &documind.Batch{Status: "pending", Items: items("pending", "pending")},
			poll.Status{State: poll.Running, Raw: "pending"}},
		{"pending, 1 of 4 done", &documind.Batch{Status: "pending", Total: 4, Pending: 3, Completed: 1},
			poll.Status{State: poll.Running, Raw: "pending", Progress: 0.25}},
		{"completed", &documind.Batch{Status: "completed", Total: 2, Completed: 2, Items: items("completed", "completed")},
			poll.Status{State: poll.Succeeded, Raw: "completed", Progress: 1}},
		{"failed", &documind.Batch{Status: "failed", Total: 2, Failed: 2, Items: items("failed", "failed")},
			poll.Status{State: poll.Failed, Raw: "failed", Progress: 1,
				Reason: "2 of 2 items failed; document doc-a: Extraction failed. Please contact support."}},
		{"partial_failed", &documind.Batch{Status: "partial_failed", Total: 3, Completed: 2, Failed: 1, Items: items("completed", "failed", "completed")},
			poll.Status{State: poll.PartiallyFailed, Raw: "partial_failed", Progress: 1,
				Reason: "1 of 3 items failed; document doc-b: Extraction failed. Please contact support."}},
		{"partial_failed while items are pending", &documind.Batch{Status: "partial_failed", Total: 4, Pending: 2, Completed: 1, Failed: 1, Items: items("pending", "failed", "completed", "pending")},
			poll.Status{State: poll.PartiallyFailed, Raw: "partial_failed", Progress: 0.5,
				Reason: "1 of 4 items failed, 2 still pending; document doc-b: Extraction failed. Please contact support."}},
		{"unknown word", &documind.Batch{Status: "cancelling", Total: 2, Completed: 1},
			poll.Status{State: poll.Unknown, Raw: "cancelling", Progress: 0.5}},
		{"counts above total are capped", &documind.Batch{Status: "pending", Total: 2, Completed: 2, Failed: 1},
			poll.Status{State: poll.Running, Raw: "pending", Progress: 1}},
		{"negative counts are ignored", &documind.Batch{Status: "pending", Total: 2, Completed: -3},
			poll.Status{State: poll.Running, Raw: "pending"}},
		{"negative total", &documind.Batch{Status: "pending", Total: -1, Completed: 1},
			poll.Status{State: poll.Running, Raw: "pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := documind.BatchStatus(tt.b)
			assert.Equal(t, tt.want, got)
			assert.False(t, math.IsNaN(got.Progress))
			assert.GreaterOrEqual(t, got.Progress, 0.0)
			assert.LessOrEqual(t, got.Progress, 1.0)
		})
	}
}
