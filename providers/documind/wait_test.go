package documind_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

// The wait helpers run here in virtual time: synctest's clock jumps
// through every sleep, so hour-long defaults take no real time.

const listURL = apiRoot + "/data/extractions"

func TestWaitForReviewPollsTheNewestExtractionUntilReviewed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, listURL,
			jsonAnswer(200, page()), // not listed yet: keep polling
			jsonAnswer(200, page(extraction("processing", false, false))),
			jsonAnswer(200, page(extraction("completed", true, false))),
			jsonAnswer(200, page(extraction("completed", true, false))),
			jsonAnswer(200, page(extraction("completed", true, true))),
		)
		var states []poll.State
		start := time.Now()
		x, err := m.client().WaitForReview(t.Context(), docID, poll.WithNotify(func(a poll.Attempt) {
			states = append(states, a.Status.State)
		}))
		require.NoError(t, err)
		require.NotNil(t, x)
		assert.True(t, x.IsReviewed)
		assert.JSONEq(t, `{"invoice_number":"INV-001"}`, string(x.ReviewedResults))
		assert.Equal(t, []poll.State{poll.Queued, poll.Running, poll.Waiting, poll.Waiting, poll.Succeeded}, states)

		reqs := m.requests()
		require.Len(t, reqs, 5)
		for _, r := range reqs {
			assert.Equal(t, http.MethodGet, r.Method)
			assert.Equal(t, "/api/v1/data/extractions", r.Path)
			assert.Equal(t, map[string][]string(url.Values{
				"document_id": {docID}, "limit": {"1"}, "sort_by": {"created_at"}, "sort_order": {"desc"},
			}), r.Query)
		}
		// ReviewBackoff: at once, then every 10 s (minus up to 10% jitter)
		// while 10% of the time waited is below 10 s.
		at := m.times(start)
		assert.Zero(t, at[0], "the first poll runs at once")
		for i := 1; i < len(at); i++ {
			gap := at[i] - at[i-1]
			assert.InDelta(t, float64(9500*time.Millisecond), float64(gap), float64(500*time.Millisecond+time.Millisecond), "delay %d", i)
		}
	})
}

func TestWaitForReviewDefaults(t *testing.T) {
	tests := []struct {
		name        string
		opts        []poll.Option
		wantTimeout time.Duration
		maxGap      time.Duration
	}{
		{name: "four hours, delays capped at ten minutes", wantTimeout: 4 * time.Hour, maxGap: 10 * time.Minute},
		{name: "caller options win", opts: []poll.Option{poll.WithTimeout(10 * time.Minute), poll.WithBackoff(poll.Constant(30 * time.Second))},
			wantTimeout: 10 * time.Minute, maxGap: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newMockAPI(t)
				m.on(http.MethodGet, listURL, jsonAnswer(200, page(extraction("completed", true, false))))
				start := time.Now()
				x, err := m.client().WaitForReview(t.Context(), docID, tt.opts...)
				elapsed := time.Since(start)

				require.ErrorIs(t, err, poll.ErrTimeout)
				require.NotNil(t, x, "the last extraction observed comes back with the error")
				assert.Equal(t, documind.ExtractionCompleted, x.Status)
				assert.Contains(t, err.Error(), `last status waiting ("needs_review")`)
				assert.LessOrEqual(t, elapsed, tt.wantTimeout)
				assert.Greater(t, elapsed, tt.wantTimeout-time.Minute)
				at := m.times(start)
				for i := 1; i < len(at); i++ {
					assert.LessOrEqual(t, at[i]-at[i-1], tt.maxGap)
				}
			})
		})
	}
}

func TestWaitForReviewReturnsAtOnce(t *testing.T) {
	failed := extraction("failed", false, false)
	failed["error_message"] = "Extraction failed. Please contact support."
	tests := []struct {
		name    string
		answer  map[string]any
		wantErr error
		raw     string
	}{
		{"no review needed", extraction("completed", false, false), nil, "not_needed"},
		{"already reviewed", extraction("completed", true, true), nil, "reviewed"},
		{"extraction failed", failed, poll.ErrFailed, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newMockAPI(t)
				m.on(http.MethodGet, listURL, jsonAnswer(200, page(tt.answer)))
				start := time.Now()
				x, err := m.client().WaitForReview(t.Context(), docID)
				require.NotNil(t, x)
				assert.Equal(t, 1, m.total())
				assert.Zero(t, time.Since(start))
				assert.Equal(t, tt.raw, documind.ReviewStatus(x).Raw)
				if tt.wantErr == nil {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, tt.wantErr)
				var jobErr *poll.JobError
				require.ErrorAs(t, err, &jobErr)
				assert.Equal(t, "Extraction failed. Please contact support.", jobErr.Status.Reason)
				assert.Contains(t, err.Error(), "Extraction failed. Please contact support.")
			})
		})
	}
}

func TestWaitForReviewRetriesTransientErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, listURL,
			rawAnswer(503, `{"detail":"temporary outage, retry later"}`),
			rawAnswer(429, `{"detail":"Rate limit exceeded"}`, "Retry-After", "90"),
			func(*http.Request) (*http.Response, error) {
				return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
			},
			jsonAnswer(200, page(extraction("completed", true, true))),
		)
		var errs []error
		start := time.Now()
		x, err := m.client().WaitForReview(t.Context(), docID, poll.WithNotify(func(a poll.Attempt) { errs = append(errs, a.Err) }))
		require.NoError(t, err)
		assert.True(t, x.IsReviewed)
		require.Len(t, errs, 4)
		var apiErr *poll.APIError
		require.ErrorAs(t, errs[1], &apiErr)
		assert.Equal(t, 90*time.Second, apiErr.RetryAfter)
		at := m.times(start)
		assert.GreaterOrEqual(t, at[2]-at[1], 90*time.Second, "Retry-After raised the delay")
	})
}

func TestWaitForReviewStopsOnPermanentErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, listURL, rawAnswer(401, `{"detail":"Invalid API key"}`))
		x, err := m.client().WaitForReview(t.Context(), docID)
		assert.Nil(t, x)
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 401, apiErr.StatusCode)
		assert.Equal(t, 1, m.total())
		assert.NotContains(t, err.Error(), testKey)
	})
}

func TestWaitForReviewRefusesABadID(t *testing.T) {
	m := newMockAPI(t)
	x, err := m.client().WaitForReview(t.Context(), "../admin")
	assert.Nil(t, x)
	require.ErrorIs(t, err, documind.ErrInvalidInput)
	assert.Equal(t, `documind: document id "../admin" is not a UUID (want 8-4-4-4-12 hex digits, e.g. 550e8400-e29b-41d4-a716-446655440000); no request was sent`, err.Error())
	assert.Zero(t, m.total())

	// The poller cannot return an error, so its first attempt does.
	_, err = m.client().ReviewPoller("a/b?c#d").Wait(t.Context())
	require.ErrorIs(t, err, documind.ErrInvalidInput)
	assert.Zero(t, m.total())
}

func TestReviewPollerPoll(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, listURL, jsonAnswer(200, page(extraction("completed", true, false))))
	x, st, err := m.client().ReviewPoller(docID).Poll(t.Context())
	require.NoError(t, err)
	assert.Equal(t, docID, x.DocumentID)
	assert.Equal(t, poll.Status{State: poll.Waiting, Raw: "needs_review"}, st)
	assert.Equal(t, 1, m.total())
}

func TestWaitForBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, apiRoot+"/batch/"+batchID,
			jsonAnswer(200, batchJSON("pending", "pending", "pending", "pending", "pending", "pending")),
			jsonAnswer(200, batchJSON("pending", "completed", "pending", "pending", "pending", "pending")),
			jsonAnswer(200, batchJSON("pending", "completed", "completed", "completed", "pending", "pending")),
			jsonAnswer(200, batchJSON("completed", "completed", "completed", "completed", "completed", "completed")),
		)
		var progress []float64
		start := time.Now()
		b, err := m.client().WaitForBatch(t.Context(), batchID, poll.WithNotify(func(a poll.Attempt) {
			progress = append(progress, a.Status.Progress)
		}))
		require.NoError(t, err)
		assert.Equal(t, documind.BatchCompleted, b.Status)
		assert.Equal(t, []float64{0, 0.2, 0.6, 1}, progress)
		for _, r := range m.requests() {
			assert.Equal(t, "/api/v1/batch/"+batchID, r.Path)
		}
		// BatchFirstPoll, then every 10 s (minus up to 10% jitter).
		at := m.times(start)
		assert.Equal(t, documind.BatchFirstPoll, at[0], "the first poll waits BatchFirstPoll")
		for i := 1; i < len(at); i++ {
			assert.InDelta(t, float64(9500*time.Millisecond), float64(at[i]-at[i-1]), float64(500*time.Millisecond+time.Millisecond), "delay %d", i)
		}
	})
}

func TestWaitForBatchFinalStates(t *testing.T) {
	tests := []struct {
		name    string
		answer  map[string]any
		wantErr error
		reason  string
	}{
		{"partial_failed returns the batch and ErrPartiallyFailed", batchJSON("partial_failed", "completed", "failed", "completed"),
			poll.ErrPartiallyFailed, "1 of 3 items failed; document " + docID + ": Extraction failed. Please contact support."},
		{"partial_failed while items are pending", batchJSON("partial_failed", "failed", "pending"),
			poll.ErrPartiallyFailed, "1 of 2 items failed, 1 still pending"},
		{"failed", batchJSON("failed", "failed", "failed"), poll.ErrFailed, "2 of 2 items failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newMockAPI(t)
				m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, tt.answer))
				b, err := m.client().WaitForBatch(t.Context(), batchID)
				require.ErrorIs(t, err, tt.wantErr)
				require.NotNil(t, b, "the batch comes back with the error")
				assert.Len(t, b.Items, len(tt.answer["items"].([]map[string]any)), "every item comes back")
				var jobErr *poll.JobError
				require.ErrorAs(t, err, &jobErr)
				assert.Contains(t, jobErr.Status.Reason, tt.reason)
				for _, other := range []error{poll.ErrFailed, poll.ErrPartiallyFailed} {
					if other != tt.wantErr {
						assert.NotErrorIs(t, err, other)
					}
				}
			})
		})
	}
}

func TestWaitForBatchStallsOnAForeverPendingBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "completed", "pending")))
		start := time.Now()
		b, err := m.client().WaitForBatch(t.Context(), batchID)
		elapsed := time.Since(start)
		require.ErrorIs(t, err, poll.ErrStalled)
		require.NotNil(t, b)
		assert.Equal(t, 1, b.Pending)
		assert.GreaterOrEqual(t, elapsed, documind.BatchStallTimeout)
		assert.Less(t, elapsed, (documind.BatchFirstPoll+documind.BatchStallTimeout)*11/10+time.Second, "noticed within one delay: 10% of the time waited")
		assert.Contains(t, err.Error(), "stall timeout 10m0s")
	})
}

func TestWaitForBatchProgressIsNotAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		done := 0
		m.on(http.MethodGet, apiRoot+"/batch/"+batchID, func(*http.Request) (*http.Response, error) {
			done++ // one more item done on every poll of a huge batch
			return httpmock.NewJsonResponse(200, map[string]any{
				"batch_id": batchID, "status": "pending", "total": 100000, "pending": 100000 - done, "completed": done, "failed": 0, "items": []any{},
			})
		})
		start := time.Now()
		_, err := m.client().WaitForBatch(t.Context(), batchID)
		require.ErrorIs(t, err, poll.ErrTimeout, "the hour-long default timeout, not the stall timeout, ends it")
		assert.NotErrorIs(t, err, poll.ErrStalled)
		assert.Greater(t, time.Since(start), documind.BatchTimeout-time.Minute)
		assert.LessOrEqual(t, time.Since(start), documind.BatchTimeout)
	})
}

func TestWaitForBatchCallerOptionsWin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "pending")))
		start := time.Now()
		_, err := m.client().WaitForBatch(t.Context(), batchID,
			poll.WithStallTimeout(0), poll.WithTimeout(2*time.Hour), poll.WithBackoff(poll.Constant(10*time.Minute)))
		require.ErrorIs(t, err, poll.ErrTimeout)
		assert.NotErrorIs(t, err, poll.ErrStalled)
		assert.Greater(t, time.Since(start), 110*time.Minute)
		at := m.times(start)
		assert.Equal(t, 10*time.Minute, at[1]-at[0])
	})
}

func TestWaitForBatchUnknownWordKeepsPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, apiRoot+"/batch/"+batchID,
			jsonAnswer(200, batchJSON("reconciling", "completed", "pending")),
			jsonAnswer(200, batchJSON("reconciling", "completed", "pending")),
			jsonAnswer(200, batchJSON("completed", "completed", "completed")),
		)
		var raws []string
		b, err := m.client().WaitForBatch(t.Context(), batchID, poll.WithNotify(func(a poll.Attempt) { raws = append(raws, a.Status.Raw) }))
		require.NoError(t, err)
		assert.Equal(t, documind.BatchCompleted, b.Status)
		assert.Equal(t, []string{"reconciling", "reconciling", "completed"}, raws)
	})
}

func TestWaitForBatchRefusesABadID(t *testing.T) {
	m := newMockAPI(t)
	b, err := m.client().WaitForBatch(t.Context(), "../admin")
	assert.Nil(t, b)
	require.ErrorIs(t, err, documind.ErrInvalidInput)
	assert.Zero(t, m.total())

	_, err = m.client().BatchPoller("").Wait(t.Context())
	require.ErrorIs(t, err, documind.ErrInvalidInput)
	assert.Zero(t, m.total())
}

func TestWaitForBatchHonoursTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMockAPI(t)
		m.on(http.MethodGet, apiRoot+"/batch/"+batchID, jsonAnswer(200, batchJSON("pending", "pending")))
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		b, err := m.client().WaitForBatch(ctx, batchID)
		require.ErrorIs(t, err, poll.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotNil(t, b)

		ctx, cancel = context.WithCancel(t.Context())
		cancel()
		_, err = m.client().WaitForBatch(ctx, batchID)
		require.True(t, errors.Is(err, context.Canceled), "err %v", err)
	})
}

func TestDefaultStrategies(t *testing.T) {
	tests := []struct {
		name          string
		strategy      poll.Strategy
		first, capped time.Duration
	}{
		{"review", documind.ReviewBackoff(), 10 * time.Second, 10 * time.Minute},
		{"batch", documind.BatchBackoff(), 10 * time.Second, 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.strategy()
			first := b.NextBackOff()
			assert.InDelta(t, float64(tt.first), float64(first), float64(tt.first)/10)
			var last time.Duration
			for range 100 {
				last = b.NextBackOff()
				assert.LessOrEqual(t, last, tt.capped)
			}
			assert.Greater(t, last, tt.capped/2, "the delay reaches the cap")
			assert.NotSame(t, b, tt.strategy(), "a fresh BackOff per wait")
		})
	}
}
