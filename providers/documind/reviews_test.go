package documind_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

func addPendingReviews(srv *documindtest.Server, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = srv.AddDocument(documindtest.Document{NeedsReview: true})
		srv.AddExtraction(ids[i], documindtest.Extraction{NeedsReview: true, Results: map[string]any{"n": i}})
	}
	return ids
}

// TestWaitForReviewsCoalesces counts the requests of each cycle on the fake
// server: 1,000 pending documents cost ceil(1000/100) = 10 requests a
// cycle, and a cycle in which documents finish costs at most
// ceil(pending/100) + ceil(finished/100).
func TestWaitForReviewsCoalesces(t *testing.T) {
	srv := fakeServer(t)
	ids := addPendingReviews(srv, 1000)
	// Noise: other documents of the organisation, pending too.
	addPendingReviews(srv, 150)

	var perCycle []int
	seen := 0
	notify := poll.WithNotify(func(a poll.Attempt) {
		require.NoError(t, a.Err)
		perCycle = append(perCycle, srv.Requests(documindtest.RouteExtractions)-seen)
		seen = srv.Requests(documindtest.RouteExtractions)
		switch a.N {
		case 1, 2: // nothing happens in the first two cycles
		case 3: // a person reviews 300 documents
			for _, id := range ids[:300] {
				require.NoError(t, srv.Review(id, map[string]any{"reviewed": true}))
			}
		case 4: // and the rest
			for _, id := range ids[300:] {
				require.NoError(t, srv.Review(id, nil))
			}
		}
	})
	got := map[int]int{}
	for r := range srv.Client().WaitForReviews(t.Context(), ids, fast, notify) {
		require.NoError(t, r.Err)
		got[r.Index]++
		require.NotNil(t, r.Value)
		assert.Equal(t, ids[r.Index], r.Value.DocumentID)
		assert.True(t, r.Value.IsReviewed)
	}
	require.Len(t, got, 1000, "every document is yielded")
	for i, n := range got {
		require.Equal(t, 1, n, "document %d yielded once", i)
	}
	t.Logf("requests per cycle: %v", perCycle)
	require.GreaterOrEqual(t, len(perCycle), 5)
	// Cycle 1 looks at 1,150 pending extractions: 12 pages. The watched
	// 1,000 alone would be 10; the 150 others are the organisation's.
	assert.Equal(t, []int{12, 12, 12}, perCycle[:3], "steady cycles: ceil(1150/100) each")
	assert.LessOrEqual(t, perCycle[3], 9+3, "300 finished: ceil(850/100) pending pages + ceil(300/100)")
	assert.LessOrEqual(t, perCycle[4], 2+7, "700 finished: ceil(150/100) pending pages + ceil(700/100)")
}

func TestWaitForReviewsOnlyWatched(t *testing.T) {
	srv := fakeServer(t)
	ids := addPendingReviews(srv, 1000)
	var first int
	notify := poll.WithNotify(func(a poll.Attempt) {
		if a.N == 1 {
			first = srv.Requests(documindtest.RouteExtractions)
			for _, id := range ids {
				require.NoError(t, srv.Review(id, nil))
			}
		}
	})
	n := 0
	for r := range srv.Client().WaitForReviews(t.Context(), ids, fast, notify) {
		require.NoError(t, r.Err)
		n++
	}
	assert.Equal(t, 1000, n)
	assert.Equal(t, 10, first, "1,000 pending documents cost ceil(1000/100) requests a cycle")
}

func TestWaitForReviewsEveryOutcome(t *testing.T) {
	srv := fakeServer(t)
	reviewed := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(reviewed, documindtest.Extraction{NeedsReview: true, Review: &documindtest.Review{At: documindtest.After{Polls: 4}}})
	notNeeded := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(notNeeded, documindtest.Extraction{})
	failed := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(failed, documindtest.Extraction{Status: "processing", Steps: []documindtest.Step{{Status: "failed", ErrorMessage: "OCR failed on page 2", At: documindtest.After{Polls: 2}}}})
	late := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(late, documindtest.Extraction{Listed: documindtest.After{Polls: 6}})

	ids := []string{reviewed, "not-a-uuid", notNeeded, failed, late, reviewed}
	results := map[int]poll.Result[*documind.Extraction]{}
	var order []int
	for r := range srv.Client().WaitForReviews(t.Context(), ids, fast) {
		results[r.Index] = r
		order = append(order, r.Index)
	}
	require.Len(t, results, len(ids))
	assert.Equal(t, 1, order[0], "an invalid id is yielded at once")
	require.ErrorIs(t, results[1].Err, documind.ErrInvalidInput)
	require.NoError(t, results[2].Err)
	assert.Equal(t, documind.RawReviewNotNeeded, documind.ReviewStatus(results[2].Value).Raw)
	require.ErrorIs(t, results[3].Err, poll.ErrFailed)
	assert.ErrorContains(t, results[3].Err, "OCR failed on page 2")
	require.NoError(t, results[4].Err, "a document listed late is waited for")
	for _, i := range []int{0, 5} {
		require.NoError(t, results[i].Err, "a document given twice is yielded for both indexes")
		assert.True(t, results[i].Value.IsReviewed)
	}
}

func TestWaitForReviewsTimeoutYieldsTheRest(t *testing.T) {
	srv := fakeServer(t)
	ids := addPendingReviews(srv, 3)
	require.NoError(t, srv.Review(ids[1], nil))
	var errs []error
	for r := range srv.Client().WaitForReviews(t.Context(), ids, fast, poll.WithTimeout(50*time.Millisecond)) {
		errs = append(errs, r.Err)
		if r.Index != 1 {
			require.ErrorIs(t, r.Err, poll.ErrTimeout)
			require.NotNil(t, r.Value, "the last extraction comes with the error")
			assert.False(t, r.Value.IsReviewed)
		}
	}
	require.Len(t, errs, 3)
	assert.NoError(t, errs[0], "the reviewed document came first")
}

func TestWaitForReviewsBreakStops(t *testing.T) {
	srv := fakeServer(t)
	ids := addPendingReviews(srv, 5)
	for _, id := range ids[:3] {
		require.NoError(t, srv.Review(id, nil))
	}
	n := 0
	for range srv.Client().WaitForReviews(t.Context(), ids, fast) {
		n++
		if n == 2 {
			break
		}
	}
	before := srv.Requests(documindtest.RouteExtractions)
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, 2, n)
	assert.Equal(t, before, srv.Requests(documindtest.RouteExtractions), "no request after the loop stopped")
}

func TestWaitForReviewsCanceled(t *testing.T) {
	srv := fakeServer(t)
	ids := addPendingReviews(srv, 2)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n := 0
	for r := range srv.Client().WaitForReviews(ctx, ids, fast) {
		n++
		require.ErrorIs(t, r.Err, context.Canceled)
	}
	assert.Equal(t, 2, n)
}
