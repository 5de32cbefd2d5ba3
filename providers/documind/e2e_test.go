package documind_test

import (
	"cmp"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

// End-to-end tests: the wait helpers over real loopback HTTP against the
// fake server, with millisecond delays.

func fakeServer(t *testing.T) *documindtest.Server {
	srv := documindtest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

// fast keeps real-time waits tiny.
var fast = poll.WithBackoff(poll.Constant(time.Millisecond))

// noDelay drops WaitForBatch's default first-poll delay.
var noDelay = poll.WithInitialDelay(0)

func TestE2EExtractThenWaitForReview(t *testing.T) {
	srv := fakeServer(t)
	doc := srv.AddDocument(documindtest.Document{
		NeedsReview: true,
		Results:     map[string]any{"invoice_number": "INV-00l"},
		Review:      &documindtest.Review{At: documindtest.After{Polls: 3}, Results: map[string]any{"invoice_number": "INV-001"}},
	})
	c := srv.Client()

	res, err := c.Extract(t.Context(), doc, documind.ExtractRequest{Schema: invoiceSchema})
	require.NoError(t, err)
	require.True(t, res.NeedsReview)

	var states []string
	x, err := c.WaitForReview(t.Context(), res.DocumentID, fast, poll.WithNotify(func(a poll.Attempt) {
		states = append(states, a.Status.String())
	}))
	require.NoError(t, err)
	assert.True(t, x.IsReviewed)
	assert.Equal(t, documindtest.Reviewer, x.ReviewedBy)
	assert.False(t, x.ReviewedAt.IsZero())
	assert.JSONEq(t, `{"invoice_number":"INV-001"}`, string(x.FinalResults()))
	assert.JSONEq(t, `{"invoice_number":"INV-00l"}`, string(x.Results))
	assert.Equal(t, []string{`waiting ("needs_review")`, `waiting ("needs_review")`, `waiting ("needs_review")`, `succeeded ("reviewed")`}, states)
	assert.Equal(t, 4, srv.Requests(documindtest.RouteExtractions))
}

func TestE2EWaitForReviewThroughTheExtractionLifecycle(t *testing.T) {
	srv := fakeServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{
		Listed: documindtest.After{Polls: 2}, // not listed yet: an empty list keeps the wait going
		Status: "pending",
		Steps: []documindtest.Step{
			{Status: "processing", At: documindtest.After{Polls: 3}},
			{Status: "reindexing", At: documindtest.After{Polls: 4}}, // a word the client does not know
			{Status: "completed", At: documindtest.After{Polls: 5}},
		},
		NeedsReview: true,
		Review:      &documindtest.Review{At: documindtest.After{Polls: 6}},
	})
	var raws []string
	x, err := srv.Client().WaitForReview(t.Context(), doc, fast, poll.WithNotify(func(a poll.Attempt) {
		raws = append(raws, a.Status.Raw)
	}))
	require.NoError(t, err)
	assert.True(t, x.IsReviewed)
	assert.Equal(t, []string{"not_listed", "not_listed", "pending", "processing", "reindexing", "needs_review", "reviewed"}, raws)
}

func TestE2EWaitForReviewNewestExtractionWins(t *testing.T) {
	srv := fakeServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{Status: "failed", ErrorMessage: "old failure"})
	srv.AddExtraction(doc, documindtest.Extraction{Results: map[string]any{"v": 2.0}})
	x, err := srv.Client().WaitForReview(t.Context(), doc, fast)
	require.NoError(t, err)
	assert.Equal(t, "not_needed", documind.ReviewStatus(x).Raw)
	assert.JSONEq(t, `{"v":2}`, string(x.FinalResults()))
}

func TestE2EFailedExtraction(t *testing.T) {
	srv := fakeServer(t)
	doc := srv.AddDocument(documindtest.Document{FailWith: "Extraction failed. Please contact support."})
	c := srv.Client()
	_, err := c.Extract(t.Context(), doc, documind.ExtractRequest{Schema: invoiceSchema})
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusInternalServerError, apiErr.StatusCode)

	x, err := c.WaitForReview(t.Context(), doc, fast)
	require.ErrorIs(t, err, poll.ErrFailed)
	require.NotNil(t, x)
	assert.Contains(t, err.Error(), `failed: Extraction failed. Please contact support.`)
}

func TestE2EExtractUnknownDocument(t *testing.T) {
	srv := fakeServer(t)
	_, err := srv.Client().Extract(t.Context(), "11111111-1111-1111-1111-111111111111", documind.ExtractRequest{Schema: invoiceSchema})
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, "Document not found", apiErr.Message)
}

func TestE2EFaultsAreRetried(t *testing.T) {
	tests := []struct {
		name      string
		fault     documindtest.Fault
		opts      []poll.Option
		wantPolls int // 4 if 0: two faults, a poll that sees the review pending, one that sees it done
	}{
		{name: "503", fault: documindtest.Fault{Status: http.StatusServiceUnavailable}},
		{name: "500", fault: documindtest.Fault{Status: http.StatusInternalServerError}},
		{name: "connection reset", fault: documindtest.Fault{CloseConnection: true}},
		// The server did answer, so the cut answers still count as polls.
		{name: "body cut short", fault: documindtest.Fault{Truncate: true}, wantPolls: 3},
		{name: "slow answer", fault: documindtest.Fault{Delay: time.Second}, opts: []poll.Option{poll.WithAttemptTimeout(20 * time.Millisecond)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeServer(t)
			doc := srv.AddDocument(documindtest.Document{})
			srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true, Review: &documindtest.Review{At: documindtest.After{Polls: 1}}})
			srv.InjectFault(documindtest.RouteExtractions, 2, tt.fault)

			var errs int
			opts := append([]poll.Option{fast, poll.WithNotify(func(a poll.Attempt) {
				if a.Err != nil {
					errs++
				}
			})}, tt.opts...)
			x, err := srv.Client().WaitForReview(t.Context(), doc, opts...)
			require.NoError(t, err)
			assert.True(t, x.IsReviewed)
			assert.Equal(t, 2, errs)
			assert.Equal(t, cmp.Or(tt.wantPolls, 4), srv.Requests(documindtest.RouteExtractions))
		})
	}
}

func TestE2ERetryAfterSetsTheNextDelay(t *testing.T) {
	srv := fakeServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true})
	srv.InjectFault(documindtest.RouteExtractions, 1, documindtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "120"})

	// The delay is checked from the hook, then the wait is cut short: the
	// timing itself is pinned in virtual time by the synctest tests.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var seen poll.Attempt
	_, err := srv.Client().WaitForReview(ctx, doc, fast, poll.WithNotify(func(a poll.Attempt) {
		seen = a
		cancel()
	}))
	require.ErrorIs(t, err, context.Canceled)
	var apiErr *poll.APIError
	require.ErrorAs(t, seen.Err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.Equal(t, 120*time.Second, apiErr.RetryAfter)
	assert.Equal(t, 120*time.Second, seen.Next, "Retry-After raised the 1ms delay")
}

func TestE2EWrongKeyIsPermanent(t *testing.T) {
	srv := fakeServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	const wrong = "dm-live-wrong-key-1234"
	c, err := documind.New(wrong, documind.WithBaseURL(srv.URL))
	require.NoError(t, err)

	x, err := c.WaitForReview(t.Context(), doc, fast)
	assert.Nil(t, x)
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	assert.NotContains(t, err.Error(), wrong)
	assert.NotContains(t, apiErr.URL, wrong)

	_, err = c.WaitForBatch(t.Context(), "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", fast, noDelay)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	assert.NotContains(t, err.Error(), wrong)
}

func TestE2EBatchPartiallyFails(t *testing.T) {
	srv := fakeServer(t)
	var ids []string
	for i, d := range []documindtest.Document{
		{Ready: documindtest.After{Polls: 1}, Results: map[string]any{"invoice_number": "INV-1"}},
		{Ready: documindtest.After{Polls: 2}},
		{Ready: documindtest.After{Polls: 2}, NeedsReview: true},
		{Ready: documindtest.After{Polls: 3}},
		{Ready: documindtest.After{Polls: 4}, FailWith: "Extraction failed. Please contact support."},
	} {
		d.Filename = string(rune('a'+i)) + ".pdf"
		ids = append(ids, srv.AddDocument(d))
	}
	c := srv.Client()
	started, err := c.StartBatch(t.Context(), documind.BatchRequest{
		DocumentIDs:       ids,
		ExtractionRequest: documind.ExtractRequest{Schema: invoiceSchema},
	})
	require.NoError(t, err)
	assert.Equal(t, documind.BatchPending, started.Status)
	require.Len(t, started.Items, 5)

	var progress []float64
	b, err := c.WaitForBatch(t.Context(), started.BatchID, fast, noDelay, poll.WithNotify(func(a poll.Attempt) {
		progress = append(progress, a.Status.Progress)
	}))
	require.ErrorIs(t, err, poll.ErrPartiallyFailed)
	require.NotNil(t, b, "the batch comes back with the error")
	assert.Equal(t, []float64{0, 0.2, 0.6, 0.8, 1}, progress)
	assert.Equal(t, [4]int{5, 0, 4, 1}, [4]int{b.Total, b.Pending, b.Completed, b.Failed})
	require.Len(t, b.Items, 5)
	for i, it := range b.Items {
		assert.Equal(t, ids[i], it.DocumentID)
		assert.Equal(t, started.Items[i].ExtractionID, it.ExtractionID)
	}
	assert.Equal(t, "failed", b.Items[4].Status)
	assert.Equal(t, "Extraction failed. Please contact support.", b.Items[4].ErrorMessage)
	assert.JSONEq(t, `{"invoice_number":"INV-1"}`, string(b.Items[0].Results))
	assert.True(t, b.Items[2].NeedsReview)
	assert.Contains(t, err.Error(), "1 of 5 items failed")
}

func TestE2EBatchOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		docs    []documindtest.Document
		wantErr error
		status  string
	}{
		{"completed", []documindtest.Document{{}, {Ready: documindtest.After{Polls: 2}}}, nil, "completed"},
		{"failed", []documindtest.Document{{FailWith: "bad scan"}, {FailWith: "bad scan"}}, poll.ErrFailed, "failed"},
		{"one fails while another is still pending", []documindtest.Document{{FailWith: "bad scan"}, {StayPending: true}}, poll.ErrPartiallyFailed, "partial_failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeServer(t)
			var ids []string
			for _, d := range tt.docs {
				ids = append(ids, srv.AddDocument(d))
			}
			id, err := srv.StartBatch(ids...)
			require.NoError(t, err)
			b, err := srv.Client().WaitForBatch(t.Context(), id, fast, noDelay)
			if tt.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.wantErr)
			}
			assert.Equal(t, tt.status, b.Status)
		})
	}
}

func TestE2EBatchStuckPendingStalls(t *testing.T) {
	srv := fakeServer(t)
	id, err := srv.StartBatch(srv.AddDocument(documindtest.Document{}), srv.AddDocument(documindtest.Document{StayPending: true}))
	require.NoError(t, err)
	start := time.Now()
	b, err := srv.Client().WaitForBatch(t.Context(), id, fast, noDelay, poll.WithStallTimeout(30*time.Millisecond))
	require.ErrorIs(t, err, poll.ErrStalled)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.NotNil(t, b)
	assert.Equal(t, 1, b.Pending)
	assert.Equal(t, 0.5, documind.BatchStatus(b).Progress)
}

func TestE2EBatchUnknownStatusKeepsPolling(t *testing.T) {
	srv := fakeServer(t)
	id, err := srv.StartBatch(srv.AddDocument(documindtest.Document{}))
	require.NoError(t, err)
	require.NoError(t, srv.OverrideBatchStatus(id, "reconciling", 3))
	var states []poll.State
	b, err := srv.Client().WaitForBatch(t.Context(), id, fast, noDelay, poll.WithNotify(func(a poll.Attempt) {
		states = append(states, a.Status.State)
	}))
	require.NoError(t, err)
	assert.Equal(t, documind.BatchCompleted, b.Status)
	assert.Equal(t, []poll.State{poll.Unknown, poll.Unknown, poll.Unknown, poll.Succeeded}, states)
}

func TestE2EBatchNotFoundIsPermanent(t *testing.T) {
	srv := fakeServer(t)
	id, err := srv.StartBatch(srv.AddDocument(documindtest.Document{}))
	require.NoError(t, err)
	srv.InjectFault(documindtest.RouteBatch, 1, documindtest.Fault{Status: http.StatusNotFound})
	_, err = srv.Client().WaitForBatch(t.Context(), id, fast, noDelay)
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, 1, srv.Requests(documindtest.RouteBatch))

	_, err = srv.Client().WaitForBatch(t.Context(), "11111111-1111-1111-1111-111111111111", fast, noDelay)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "Batch not found", apiErr.Message)
}

func TestE2EBatchRetriesRateLimits(t *testing.T) {
	srv := fakeServer(t)
	id, err := srv.StartBatch(srv.AddDocument(documindtest.Document{Ready: documindtest.After{Polls: 1}}))
	require.NoError(t, err)
	srv.InjectFault(documindtest.RouteBatch, 2, documindtest.Fault{Status: http.StatusTooManyRequests})
	b, err := srv.Client().WaitForBatch(t.Context(), id, fast, noDelay)
	require.NoError(t, err)
	assert.Equal(t, documind.BatchCompleted, b.Status)
	assert.Equal(t, 4, srv.Requests(documindtest.RouteBatch))
}

func TestE2EExtractionsFilters(t *testing.T) {
	srv := fakeServer(t)
	a, b := srv.AddDocument(documindtest.Document{}), srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(a, documindtest.Extraction{NeedsReview: true})
	srv.AddExtraction(b, documindtest.Extraction{NeedsReview: true})
	require.NoError(t, srv.Review(b, nil))

	p, err := srv.Client().Extractions(t.Context(), documind.ExtractionQuery{
		NeedsReview: documind.Bool(true), IsReviewed: documind.Bool(false),
		CreatedAfter: time.Now().Add(-time.Hour), CreatedBefore: time.Now().Add(time.Hour),
		SortBy: documind.SortByCreatedAt, SortOrder: documind.SortAsc, Limit: 50,
	})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Total)
	assert.Equal(t, 50, p.Limit)
	require.Len(t, p.Items, 1)
	assert.Equal(t, a, p.Items[0].DocumentID)
	assert.False(t, p.Items[0].CreatedAt.IsZero())
}
