package durable

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newAttempt(t *testing.T, p plan, st *waitState) *attempt {
	t.Helper()
	b, err := strategies{}.resume(p.Strategy, st.Steps, st.Waited)
	require.NoError(t, err)
	return &attempt{plan: p, state: st, start: t0, strategy: b, retryable: poll.Transient}
}

func running() fetchResult {
	return fetchResult{status: poll.Status{State: poll.Running, Raw: "running"}}
}

func TestAttemptSnoozesForTheStrategysDelay(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(3 * time.Second)}, st)
	d := a.after(running(), t0)
	require.Nil(t, d.end)
	require.Equal(t, 3*time.Second, d.next)
	require.True(t, d.changed)
	require.Equal(t, 1, st.Attempts)
	require.Equal(t, 1, st.Steps)
	require.Equal(t, 3*time.Second, st.Waited)
	require.Equal(t, t0, st.LastChange)
}

func TestAttemptEndsOnAFinalStatus(t *testing.T) {
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, &waitState{})
	d := a.after(fetchResult{status: poll.Status{State: poll.Succeeded, Raw: "done"}}, t0.Add(time.Minute))
	require.Equal(t, EndSucceeded, d.end.End)
	require.Equal(t, t0.Add(time.Minute), d.end.Ended)
	require.NoError(t, endError(1, Target{}, d.end))

	a = newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, &waitState{})
	d = a.after(fetchResult{status: poll.Status{State: poll.Failed, Raw: "failed", Reason: "boom"}}, t0)
	require.Equal(t, EndJob, d.end.End)
	err := endError(7, IngestlyRun("d", "r"), d.end)
	require.ErrorIs(t, err, poll.ErrFailed)
	var je *poll.JobError
	require.ErrorAs(t, err, &je)
	require.Equal(t, "boom", je.Status.Reason)
	require.EqualError(t, err, `durable: wait 7 (ingestly run documentId=d runId=r): poll: job ended failed: boom`)
}

func TestAttemptRaisesTheDelayToServerHints(t *testing.T) {
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, &waitState{})
	r := running()
	r.status.RetryAfter = 7 * time.Second
	require.Equal(t, 7*time.Second, a.after(r, t0).next)

	st := &waitState{}
	a = newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, st)
	err := &poll.APIError{StatusCode: http.StatusTooManyRequests, RetryAfter: 9 * time.Second}
	d := a.after(fetchResult{err: err}, t0)
	require.Nil(t, d.end)
	require.Equal(t, 9*time.Second, d.next)
	require.Equal(t, 1, st.ErrorsInRow)
	require.Equal(t, 429, st.LastError.API.StatusCode)
	// The strategy's progress counts its own delay, not the hint's.
	require.Equal(t, time.Second, st.Waited)

	a = newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, &waitState{})
	d = a.after(fetchResult{err: poll.RetryAfter(4*time.Second, errors.New("slow down"))}, t0)
	require.Equal(t, 4*time.Second, d.next)
}

func TestServerDelayTakesTheLargestHint(t *testing.T) {
	require.Zero(t, poll.ServerDelay(nil))
	require.Zero(t, poll.ServerDelay(errors.New("plain")))
	api := &poll.APIError{StatusCode: 503, RetryAfter: 2 * time.Second}
	require.Equal(t, 2*time.Second, poll.ServerDelay(api))
	require.Equal(t, 5*time.Second, poll.ServerDelay(poll.RetryAfter(5*time.Second, api)))
	require.Equal(t, 3*time.Second, poll.ServerDelay(errors.Join(errors.New("x"), poll.RetryAfter(3*time.Second, errors.New("y")))))
}

func TestAttemptPermanentErrorEndsTheWait(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, st)
	api := &poll.APIError{StatusCode: 404, Method: "GET", URL: "https://x/runs/r", Message: "not found"}
	d := a.after(fetchResult{err: api}, t0.Add(2*time.Second))
	require.Equal(t, EndFetchError, d.end.End)
	err := endError(3, NaradaTask("req"), d.end)
	require.ErrorIs(t, err, ErrFetch)
	var got *poll.APIError
	require.ErrorAs(t, err, &got)
	require.Equal(t, 404, got.StatusCode)
	require.Contains(t, err.Error(), "attempt 1 failed after 2s with a permanent error: GET https://x/runs/r: 404 Not Found: not found")
}

func TestAttemptMaxErrors(t *testing.T) {
	st := &waitState{ErrorsInRow: 2, Attempts: 5}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), MaxErrors: 3}, st)
	d := a.after(fetchResult{err: &poll.APIError{StatusCode: 502}}, t0.Add(10*time.Second))
	require.Equal(t, EndExhausted, d.end.End)
	err := endError(1, NaradaTask("r"), d.end)
	require.ErrorIs(t, err, poll.ErrExhausted)
	require.Contains(t, err.Error(), "gave up after 6 attempts in 10s: 3 consecutive errors (max errors 3); last status none observed; last error: 502 Bad Gateway")
	var api *poll.APIError
	require.ErrorAs(t, err, &api)
}

func TestAttemptAnObservationResetsTheErrorCount(t *testing.T) {
	st := &waitState{ErrorsInRow: 2, LastError: &errorJSON{Message: "x"}}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), MaxErrors: 3}, st)
	require.Nil(t, a.after(running(), t0).end)
	require.Zero(t, st.ErrorsInRow)
	require.Nil(t, st.LastError)
}

func TestAttemptMaxAttempts(t *testing.T) {
	st := &waitState{Attempts: 2, Observed: true, Status: toStatusJSON(poll.Status{State: poll.Running, Raw: "running"})}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), MaxAttempts: 3}, st)
	d := a.after(running(), t0)
	require.Equal(t, EndExhausted, d.end.End)
	require.Contains(t, d.end.Message, "max attempts 3")
}

func TestAttemptStallTimeoutCountsFromTheLastChange(t *testing.T) {
	same := poll.Status{State: poll.Running, Raw: "running", Progress: 0.5}
	st := &waitState{Attempts: 4, Observed: true, Status: toStatusJSON(same), LastChange: t0.Add(time.Minute)}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), StallTimeout: 10 * time.Minute}, st)
	require.Nil(t, a.after(fetchResult{status: same}, t0.Add(10*time.Minute)).end)

	d := a.after(fetchResult{status: same}, t0.Add(11*time.Minute))
	require.Equal(t, EndStalled, d.end.End)
	require.ErrorIs(t, endError(1, Target{}, d.end), poll.ErrStalled)
	require.Contains(t, d.end.Message, "unchanged for 10m0s (stall timeout 10m0s), 6 attempts in 11m0s")

	// Progress counts as a change.
	st = &waitState{Attempts: 4, Observed: true, Status: toStatusJSON(same), LastChange: t0}
	a = newAttempt(t, plan{Strategy: ConstantSpec(time.Second), StallTimeout: time.Minute}, st)
	moved := same
	moved.Progress = 0.6
	d = a.after(fetchResult{status: moved}, t0.Add(time.Hour))
	require.Nil(t, d.end)
	require.Equal(t, t0.Add(time.Hour), st.LastChange)
}

func TestAttemptLastAttemptRunsJustBeforeTheDeadline(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Minute), Timeout: 100 * time.Second}, st)
	d := a.after(running(), t0) // at 0s: 60s fits
	require.Equal(t, time.Minute, d.next)
	require.False(t, st.LastChance)

	d = a.after(running(), t0.Add(60*time.Second)) // 40s left: 60s crosses
	require.Nil(t, d.end)
	require.Equal(t, 39*time.Second, d.next, "one second before the deadline")
	require.True(t, st.LastChance)

	require.Equal(t, t0.Add(100*time.Second), a.begin(t0.Add(99*time.Second)), "the fetch is bound by the deadline")
	d = a.after(running(), t0.Add(99*time.Second))
	require.Equal(t, EndTimeout, d.end.End)
	err := endError(5, Target{Provider: "p", Kind: "k"}, d.end)
	require.ErrorIs(t, err, poll.ErrTimeout)
	require.EqualError(t, err, `durable: wait 5 (p k): timed out after 1m40s and 3 attempts; last status running`)
}

func TestAttemptLastAttemptAllowsForLateStarts(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(9 * time.Second), Timeout: 10 * time.Second, AttemptTimeout: 2 * time.Second}, st)
	a.slack = time.Second
	d := a.after(running(), t0)
	// 9s + 1s of slack reaches the deadline: the last attempt comes at
	// 10s - (2s attempt timeout + 1s slack).
	require.Equal(t, 7*time.Second, d.next)
	require.True(t, st.LastChance)
}

func TestAttemptNeverLeadsByMoreThanHalfTheTimeLeft(t *testing.T) {
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Minute), Timeout: time.Second}, &waitState{})
	require.Equal(t, 500*time.Millisecond, a.after(running(), t0).next)
}

func TestAttemptAfterTheDeadlineIsTheLastOne(t *testing.T) {
	// A worker came back after the deadline: one attempt, then the end.
	st := &waitState{Attempts: 3, Observed: true, Status: toStatusJSON(poll.Status{State: poll.Running, Raw: "running"})}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), Timeout: time.Minute}, st)
	late := t0.Add(time.Hour)
	require.Equal(t, late.Add(time.Second), a.begin(late), "a late last attempt still gets its lead")
	require.True(t, st.LastChance)
	d := a.after(running(), late.Add(100*time.Millisecond))
	require.Equal(t, EndTimeout, d.end.End)
	require.Contains(t, d.end.Message, "timed out after 1m0s and 4 attempts")

	// ... unless that attempt sees the job done.
	st = &waitState{Attempts: 3}
	a = newAttempt(t, plan{Strategy: ConstantSpec(time.Second), Timeout: time.Minute}, st)
	a.begin(late)
	d = a.after(fetchResult{status: poll.Status{State: poll.Succeeded}}, late)
	require.Equal(t, EndSucceeded, d.end.End)
}

func TestAttemptCutByTheDeadlineTimesOutWithTheLastError(t *testing.T) {
	st := &waitState{Attempts: 2, LastError: &errorJSON{Message: "503 Service Unavailable"}}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), Timeout: time.Minute}, st)
	d := a.after(fetchResult{err: errors.New("context deadline exceeded"), deadlineCut: true}, t0.Add(time.Minute))
	require.Equal(t, EndTimeout, d.end.End)
	require.Contains(t, d.end.Message, "3 attempts; last status none observed; last error: 503 Service Unavailable")
}

func TestAttemptTimeoutIsATransientError(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), AttemptTimeout: time.Second}, st)
	d := a.after(fetchResult{err: errors.New("context deadline exceeded"), attemptTimedOut: true}, t0)
	require.Nil(t, d.end)
	require.Equal(t, "attempt 1 timed out after 1s: context deadline exceeded", st.LastError.Message)
}

func TestAttemptStrategyStop(t *testing.T) {
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second)}, &waitState{})
	a.strategy = stopBackOff{}
	d := a.after(running(), t0)
	require.Equal(t, EndExhausted, d.end.End)
	require.Contains(t, d.end.Message, "the backoff strategy stopped")
}

type stopBackOff struct{}

func (stopBackOff) NextBackOff() time.Duration { return -1 }
func (stopBackOff) Reset()                     {}

func TestAttemptStallTimeoutBeforeAnyObservation(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), StallTimeout: time.Minute}, st)
	d := a.after(fetchResult{err: &poll.APIError{StatusCode: 503}}, t0.Add(30*time.Second))
	require.Nil(t, d.end, "counted from the start, not from the zero time")
	d = a.after(fetchResult{err: &poll.APIError{StatusCode: 503}}, t0.Add(time.Minute))
	require.Equal(t, EndStalled, d.end.End)
	require.Contains(t, d.end.Message, "status none observed unchanged for 1m0s")
}

func TestAttemptDelayLandingWithinTheLeadBecomesTheLastAttempt(t *testing.T) {
	st := &waitState{}
	a := newAttempt(t, plan{Strategy: ConstantSpec(99500 * time.Millisecond), Timeout: 100 * time.Second}, st)
	d := a.after(running(), t0)
	require.Equal(t, 99*time.Second, d.next, "a fetch at 99.5s could not answer before 100s")
	require.True(t, st.LastChance)
}

func TestAttemptLimiterRefusalIsNotAnAttempt(t *testing.T) {
	st := &waitState{Attempts: 2}
	a := newAttempt(t, plan{Strategy: ConstantSpec(time.Second), Timeout: time.Minute}, st)
	d := a.refused(errors.New("rate: Wait(n=1) would exceed context deadline"), t0.Add(50*time.Second))
	require.Equal(t, EndTimeout, d.end.End)
	require.Equal(t, 2, d.end.Attempts)
	require.Contains(t, d.end.Message, "timed out after 1m0s and 2 attempts; last status none observed; last error: rate: Wait(n=1) would exceed context deadline")
}
