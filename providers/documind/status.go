package documind

import (
	"fmt"

	"github.com/jobpoll/poll"
)

// Raw words ReviewStatus reports where the API has no word of its own: a
// review is a pair of flags, not a status.
const (
	// RawReviewed: is_reviewed is true; reviewed_results are ready.
	RawReviewed = "reviewed"
	// RawNeedsReview: the extraction completed and waits for a person.
	RawNeedsReview = "needs_review"
	// RawReviewNotNeeded: the extraction completed and needs no review.
	RawReviewNotNeeded = "not_needed"
	// RawNotListed: no extraction of the document is listed (yet).
	RawNotListed = "not_listed"
)

// ReviewStatus maps an extraction onto the common model, for waiting until
// its results can be used:
//
//   - nil (no extraction listed yet): Queued, Raw "not_listed"
//   - is_reviewed: Succeeded, Raw "reviewed"
//   - failed: Failed, Reason the error message
//   - pending, processing: Running
//   - completed and needs_review: Waiting, Raw "needs_review"
//   - completed without needs_review: Succeeded, Raw "not_needed"
//   - any other status word: Unknown (never final), Raw the word
//
// An extraction with no status word but the needs_review flag is Waiting
// too: the flag is what the docs' own polling loops look at.
func ReviewStatus(e *Extraction) poll.Status {
	if e == nil {
		return poll.Status{State: poll.Queued, Raw: RawNotListed}
	}
	if e.IsReviewed {
		return poll.Status{State: poll.Succeeded, Raw: RawReviewed}
	}
	switch e.Status {
	case ExtractionFailed:
		return poll.Status{State: poll.Failed, Raw: e.Status, Reason: e.ErrorMessage}
	case ExtractionPending, ExtractionProcessing:
		return poll.Status{State: poll.Running, Raw: e.Status}
	case ExtractionCompleted, "":
		if e.NeedsReview {
			return poll.Status{State: poll.Waiting, Raw: RawNeedsReview}
		}
		if e.Status == ExtractionCompleted {
			return poll.Status{State: poll.Succeeded, Raw: RawReviewNotNeeded}
		}
	}
	return poll.Status{State: poll.Unknown, Raw: e.Status}
}

// BatchStatus maps a batch onto the common model:
//
//   - pending: Running, Progress (completed+failed)/total (0 while total
//     is 0, as in the answer of POST /batch/extract)
//   - completed: Succeeded
//   - failed: Failed
//   - partial_failed: PartiallyFailed
//   - any other word: Unknown (never final), Raw the word
//
// Failed and PartiallyFailed carry a Reason that counts the failures and
// quotes the first item's error message. A nil batch is Unknown.
func BatchStatus(b *Batch) poll.Status {
	if b == nil {
		return poll.Status{State: poll.Unknown}
	}
	st := poll.Status{Raw: b.Status, Progress: batchProgress(b)}
	switch b.Status {
	case BatchPending:
		st.State = poll.Running
	case BatchCompleted:
		st.State = poll.Succeeded
	case BatchFailed:
		st.State, st.Reason = poll.Failed, batchFailures(b)
	case BatchPartialFailed:
		st.State, st.Reason = poll.PartiallyFailed, batchFailures(b)
	default:
		st.State = poll.Unknown
	}
	return st
}

// batchProgress is the fraction of items done, failed ones included, kept
// within 0..1 whatever counts the server sends.
func batchProgress(b *Batch) float64 {
	if b.Total <= 0 {
		return 0
	}
	done := max(b.Completed, 0) + max(b.Failed, 0)
	return min(float64(done)/float64(b.Total), 1)
}

// batchFailures says how many items failed and why the first one did.
func batchFailures(b *Batch) string {
	var first *BatchItem
	failed := 0
	for i := range b.Items {
		if b.Items[i].Status == ExtractionFailed {
			failed++
			if first == nil {
				first = &b.Items[i]
			}
		}
	}
	failed = max(failed, b.Failed)
	total := max(b.Total, len(b.Items))
	reason := fmt.Sprintf("%d of %d items failed", failed, total)
	if b.Pending > 0 {
		// partial_failed is reported as soon as one item fails.
		reason += fmt.Sprintf(", %d still pending", b.Pending)
	}
	if first != nil && first.ErrorMessage != "" {
		reason += fmt.Sprintf("; document %s: %s", first.DocumentID, first.ErrorMessage)
	}
	return reason
}
