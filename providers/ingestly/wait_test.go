package ingestly_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

func runAnswer(id, status string) httpmock.Responder {
	return jsonAnswer(http.StatusOK, fmt.Sprintf(`{"id":%q,"documentId":"d1","status":%q}`, id, status))
}

func docAnswer(status string) httpmock.Responder {
	return jsonAnswer(http.StatusOK, fmt.Sprintf(`{"id":"d1","status":%q}`, status))
}

var notFound = problem(http.StatusNotFound, "https://api.ingestly.ai/problems/not-found", "run not found")

func repeat(r httpmock.Responder, n int) []httpmock.Responder {
	out := make([]httpmock.Responder, n)
	for i := range out {
		out[i] = r
	}
	return out
}

// seen records each attempt's status word and time, in virtual time.
type seen struct {
	start  time.Time
	raws   []string
	states []poll.State
	at     []time.Duration
}

func newSeen() *seen { return &seen{start: time.Now()} }

func (s *seen) notify() poll.Option {
	return poll.WithNotify(func(a poll.Attempt) {
		s.raws = append(s.raws, a.Status.Raw)
		s.states = append(s.states, a.Status.State)
		s.at = append(s.at, time.Since(s.start))
	})
}

func TestWaitForRunFollowsTheRunToTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1": {runAnswer("r1", "queued"), runAnswer("r1", "running"), runAnswer("r1", "awaiting_children"), runAnswer("r1", "review"), runAnswer("r1", "waiting"), runAnswer("r1", "completed")},
		})
		s := newSeen()
		run, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify(), poll.WithBackoff(poll.Constant(time.Second)))
		require.NoError(t, err)
		assert.Equal(t, &ingestly.Run{ID: "r1", DocumentID: "d1", Status: "completed"}, run)
		assert.Equal(t, []string{"queued", "running", "awaiting_children", "review", "waiting", "completed"}, s.raws)
		for _, r := range m.requests() {
			checkCommon(t, r)
			assert.Equal(t, http.MethodGet, r.Method)
		}
	})
}

func TestWaitForRunFinalFailures(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		sentinel   error
		wantReason string
	}{
		{name: "failed", body: `{"id":"r1","status":"failed","error":{"code":"node_failed","message":"OCR timed out"}}`, sentinel: poll.ErrFailed, wantReason: "node_failed: OCR timed out"},
		{name: "cancelled", body: `{"id":"r1","status":"cancelled","error":{"code":"cancelled_by_user"}}`, sentinel: poll.ErrCanceled, wantReason: "cancelled_by_user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newRouteMock(t, map[string][]httpmock.Responder{"/runs/r1": {runAnswer("r1", "running"), jsonAnswer(http.StatusOK, tt.body)}})
				run, err := m.client.WaitForRun(context.Background(), "d1", "r1")
				require.ErrorIs(t, err, tt.sentinel)
				var jobErr *poll.JobError
				require.ErrorAs(t, err, &jobErr)
				assert.Equal(t, tt.wantReason, jobErr.Status.Reason)
				assert.Contains(t, err.Error(), tt.wantReason)
				require.NotNil(t, run)
				assert.Equal(t, tt.name, run.Status)
			})
		})
	}
}

func TestWaitForRunKeepsPollingThroughUnknownWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1": {runAnswer("r1", "paused_for_audit"), runAnswer("r1", "Awaiting Sub-runs"), runAnswer("r1", "completed")},
		})
		s := newSeen()
		_, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify())
		require.NoError(t, err)
		assert.Equal(t, []string{"paused_for_audit", "Awaiting Sub-runs", "completed"}, s.raws)
	})
}

func TestWaitForRunDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{"/runs/r1": {runAnswer("r1", "review")}})
		s := newSeen()
		start := time.Now()
		run, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify())
		require.ErrorIs(t, err, poll.ErrTimeout)
		assert.Equal(t, "review", run.Status)
		// The wait ends after its last attempt, one second before the deadline.
		assert.InDelta(t, ingestly.DefaultRunTimeout.Seconds(), time.Since(start).Seconds(), 1, "the default timeout is 24 hours")
		// RunBackoff: 10 s first, 10% of the time waited, capped at 10 minutes.
		assert.InDelta(t, 9.5, s.at[1].Seconds(), 0.51)
		for i := 1; i < len(s.at); i++ {
			assert.LessOrEqual(t, s.at[i]-s.at[i-1], 10*time.Minute)
		}
		// 10 s steps to ~100 s, then ×1.1 to the 10-minute cap at ~100 min,
		// then 10 minutes apart: about 10 + 20 + 135.
		assert.Greater(t, len(s.at), 150)
		assert.Less(t, len(s.at), 200)
	})
}

func TestWaitForRunCallerOptionsWin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{"/runs/r1": {runAnswer("r1", "running")}})
		s := newSeen()
		_, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify(),
			poll.WithTimeout(10*time.Second), poll.WithBackoff(poll.Constant(3*time.Second)))
		require.ErrorIs(t, err, poll.ErrTimeout)
		// The last delay is cut to fit the 10 s deadline the caller set.
		assert.Equal(t, []time.Duration{0, 3 * time.Second, 6 * time.Second, 9 * time.Second, 9500 * time.Millisecond}, s.at)
	})
}

func TestWaitForRunTreatsAn404AsNotCreatedDuringTheGracePeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1": append(repeat(notFound, 3), runAnswer("r1", "running"), runAnswer("r1", "completed")),
		})
		s := newSeen()
		run, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify(), poll.WithBackoff(poll.Constant(5*time.Second)))
		require.NoError(t, err)
		assert.Equal(t, "completed", run.Status)
		assert.Equal(t, []string{"not_created", "not_created", "not_created", "running", "completed"}, s.raws)
		assert.Equal(t, []poll.State{poll.Queued, poll.Queued, poll.Queued, poll.Running, poll.Succeeded}, s.states)
		assert.NotContains(t, m.paths(), "/documents/d1", "no document read while the run appears in time")
	})
}

func TestWaitForRunGivesUpAfterTheGracePeriod(t *testing.T) {
	for _, docStatus := range []string{"failed", "cancelled", "held", "processing"} {
		t.Run(docStatus, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newRouteMock(t, map[string][]httpmock.Responder{
					"/runs/r1":      {notFound},
					"/documents/d1": {docAnswer(docStatus)},
				})
				s := newSeen()
				run, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify(), poll.WithBackoff(poll.Constant(4*time.Second)))
				require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
				var missing *ingestly.RunNotCreatedError
				require.ErrorAs(t, err, &missing)
				assert.Equal(t, ingestly.RunNotCreatedError{DocumentID: "d1", RunID: "r1", DocumentStatus: docStatus, Missing: 32 * time.Second, Err: missing.Err}, *missing)
				var apiErr *poll.APIError
				require.ErrorAs(t, err, &apiErr, "the 404 stays reachable")
				assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
				assert.Contains(t, err.Error(), fmt.Sprintf(`its document "d1" has status %q`, docStatus))
				assert.Contains(t, err.Error(), `run "r1" still answers 404 Not Found 32s after the first 404`)

				// Attempts at 0, 4, ..., 28 are within the 30 s grace; the one
				// at 32 s reads the document and ends the wait.
				assert.Len(t, s.at, 9)
				assert.Equal(t, 32*time.Second, s.at[8])
				assert.Equal(t, "/documents/d1", m.paths()[len(m.paths())-1])
				assert.Len(t, m.requests(), 10)
				require.NotNil(t, run)
				assert.Equal(t, ingestly.RunNotCreated, run.Status)
			})
		})
	}
}

func TestWaitForRunGracePeriodOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1":      {notFound},
			"/documents/d1": {docAnswer("failed")},
		}, ingestly.WithRunGracePeriod(0))
		s := newSeen()
		_, err := m.client.WaitForRun(context.Background(), "d1", "r1", s.notify())
		require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
		assert.Equal(t, []time.Duration{0}, s.at, "a grace of 0 gives up at the first 404")
		assert.Equal(t, []string{"/runs/r1", "/documents/d1"}, m.paths())
	})
}

func TestWaitForRunRetriesATransientDocumentError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1":      {notFound},
			"/documents/d1": {problem(http.StatusServiceUnavailable, "", "busy"), docAnswer("cancelled")},
		}, ingestly.WithRunGracePeriod(time.Second))
		_, err := m.client.WaitForRun(context.Background(), "d1", "r1", poll.WithBackoff(poll.Constant(time.Second)))
		require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
		assert.Contains(t, err.Error(), `status "cancelled"`)
		assert.Equal(t, []string{"/runs/r1", "/runs/r1", "/documents/d1", "/runs/r1", "/documents/d1"}, m.paths())
	})
}

func TestWaitForRunReportsAnUnreadableDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1":      {notFound},
			"/documents/d1": {problem(http.StatusForbidden, "https://api.ingestly.ai/problems/forbidden", "missing scope documents:read")},
		}, ingestly.WithRunGracePeriod(0))
		_, err := m.client.WaitForRun(context.Background(), "d1", "r1")
		require.Error(t, err)
		assert.NotErrorIs(t, err, ingestly.ErrRunNotCreated)
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusForbidden, apiErr.StatusCode)
		assert.Contains(t, err.Error(), `run "r1" still answers 404 Not Found 0s after the first 404, and reading its document to learn why failed`)
		assert.Contains(t, err.Error(), "missing scope documents:read")
	})
}

func TestWaitForRunHeldDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/documents/d1":      {docAnswer("held"), docAnswer("held"), docAnswer("processing")},
			"/documents/d1/runs": {jsonAnswer(http.StatusOK, `{"count":2,"pages":1,"data":[{"id":"r2","status":"queued"},{"id":"r1","status":"failed"}]}`)},
			"/runs/r2":           {runAnswer("r2", "review"), runAnswer("r2", "completed")},
		})
		s := newSeen()
		run, err := m.client.WaitForRun(context.Background(), "d1", "", s.notify(), poll.WithBackoff(poll.Constant(time.Minute)))
		require.NoError(t, err)
		assert.Equal(t, "r2", run.ID)
		assert.Equal(t, []string{"held", "held", "queued", "review", "completed"}, s.raws)
		assert.Equal(t, []poll.State{poll.Waiting, poll.Waiting, poll.Queued, poll.Waiting, poll.Succeeded}, s.states)
		assert.Equal(t, []string{"/documents/d1", "/documents/d1", "/documents/d1", "/documents/d1/runs", "/runs/r2", "/runs/r2"}, m.paths(),
			"one request per poll while held; the newest run is followed once found")
	})
}

func TestWaitForRunHeldDocumentEndsWithoutARun(t *testing.T) {
	for _, status := range []string{"cancelled", "failed"} {
		t.Run(status, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newRouteMock(t, map[string][]httpmock.Responder{
					"/documents/d1":      {docAnswer("held"), docAnswer(status)},
					"/documents/d1/runs": {jsonAnswer(http.StatusOK, `[]`)},
				})
				run, err := m.client.WaitForRun(context.Background(), "d1", "", poll.WithBackoff(poll.Constant(time.Second)))
				require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
				var missing *ingestly.RunNotCreatedError
				require.ErrorAs(t, err, &missing)
				assert.Equal(t, ingestly.RunNotCreatedError{DocumentID: "d1", DocumentStatus: status}, *missing)
				assert.Equal(t, fmt.Sprintf(`ingestly: document "d1" has no run and its status is %q`, status), missing.Error())
				assert.Equal(t, ingestly.RunHeld, run.Status)
				assert.Len(t, m.requests(), 3)
			})
		})
	}
}

func TestWaitForRunReleasedDocumentWithoutARunGetsTheGracePeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/documents/d1":      {docAnswer("processing")},
			"/documents/d1/runs": {jsonAnswer(http.StatusOK, `{"count":0,"pages":0,"data":[]}`)},
		}, ingestly.WithRunGracePeriod(10*time.Second))
		s := newSeen()
		_, err := m.client.WaitForRun(context.Background(), "d1", "", s.notify(), poll.WithBackoff(poll.Constant(4*time.Second)))
		require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
		assert.Contains(t, err.Error(), `document "d1" is no longer held but still lists no run 12s later; its status is "processing"`)
		assert.Equal(t, []string{"not_created", "not_created", "not_created", "not_created"}, s.raws)
	})
}

func TestWaitForRunRefusesAnEmptyDocumentID(t *testing.T) {
	m := newRouteMock(t, map[string][]httpmock.Responder{})
	run, err := m.client.WaitForRun(context.Background(), "", "r1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ingestly: WaitForRun: the document id must not be empty or blank (got "")`)
	assert.Nil(t, run)
	assert.Empty(t, m.requests())
}

func TestWaitForRunStopsOnPermanentErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1": {runAnswer("r1", "running"), problem(http.StatusUnauthorized, "https://api.ingestly.ai/problems/unauthorized", "invalid API key")},
		})
		_, err := m.client.WaitForRun(context.Background(), "d1", "r1")
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
		assert.NotContains(t, err.Error(), testKey)
		assert.Len(t, m.requests(), 2)
	})
}

func TestRunPollerPollsOnce(t *testing.T) {
	m := newRouteMock(t, map[string][]httpmock.Responder{"/runs/r1": {runAnswer("r1", "review")}})
	run, st, err := m.client.RunPoller("d1", "r1").Poll(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "r1", run.ID)
	assert.Equal(t, poll.Status{State: poll.Waiting, Raw: "review"}, st)
	assert.Len(t, m.requests(), 1)
}

func TestRunPollersWaitTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newRouteMock(t, map[string][]httpmock.Responder{
			"/runs/r1": {runAnswer("r1", "running"), runAnswer("r1", "completed")},
			"/runs/r2": {runAnswer("r2", "review"), runAnswer("r2", "review"), runAnswer("r2", "completed")},
		})
		runs, err := poll.WaitAll(context.Background(), []*poll.Poller[*ingestly.Run]{
			m.client.RunPoller("d1", "r1"), m.client.RunPoller("d2", "r2"),
		})
		require.NoError(t, err)
		assert.Equal(t, "completed", runs[0].Status)
		assert.Equal(t, "completed", runs[1].Status)
	})
}

func TestRunBackoff(t *testing.T) {
	b := ingestly.RunBackoff()()
	var elapsed time.Duration
	for i := range 300 {
		d := b.NextBackOff()
		require.NotEqual(t, backoff.Stop, d, "the strategy never stops by itself")
		bound := min(max(10*time.Second, elapsed/10), 10*time.Minute)
		require.LessOrEqual(t, d, bound, "attempt %d", i)
		require.GreaterOrEqual(t, d, bound*9/10, "attempt %d", i)
		elapsed += d
	}
	assert.Greater(t, elapsed, 24*time.Hour)
	a, b2 := ingestly.RunBackoff()(), ingestly.RunBackoff()()
	a.NextBackOff()
	assert.InDelta(t, 9.5, b2.NextBackOff().Seconds(), 0.51, "each wait gets a fresh BackOff")
}
