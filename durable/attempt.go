package durable

import (
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/jobpoll/poll"
)

// lastAttemptLead is the core's: how long before the deadline the last
// attempt starts, when no attempt timeout is set.
const lastAttemptLead = time.Second

// attempt applies the core's rules of a wait (wait.go) to one attempt of a
// stored wait: it updates the state and decides whether the wait ends or
// when the next attempt runs. It does no I/O, so it is tested on its own.
type attempt struct {
	plan      plan
	state     *waitState
	start     time.Time // when the wait was submitted
	strategy  backoff.BackOff
	retryable func(error) bool
	// slack is how late a snoozed job may start (River's fetch poll
	// interval): a delay that would end within slack of the deadline makes
	// the next attempt the last one, moved earlier by slack.
	slack time.Duration
}

// fetchResult is what one Poll gave.
type fetchResult struct {
	status poll.Status
	err    error
	// attemptTimedOut: the attempt timeout cut the fetch short.
	attemptTimedOut bool
	// deadlineCut: the wait's deadline cut the fetch short.
	deadlineCut bool
	// refused: the limiter refused to let the attempt run before the
	// deadline; no fetch was made.
	refused error
}

// decision is what follows an attempt: an outcome, or a snooze.
type decision struct {
	end  *outcomeRecord
	next time.Duration
	// changed: State or Raw differ from the previous observation (or it is
	// the first), for the log.
	changed bool
}

func (a *attempt) deadline() time.Time {
	if a.plan.Timeout <= 0 {
		return time.Time{}
	}
	return a.start.Add(a.plan.Timeout)
}

// begin is called before the fetch. A run that starts at or after the
// deadline (a worker was down, or River started it late) still makes one
// attempt, the last. It returns the bound for the fetch: the deadline, or
// for a last attempt at least the lead one attempt is given.
func (a *attempt) begin(now time.Time) time.Time {
	deadline := a.deadline()
	if deadline.IsZero() {
		return time.Time{}
	}
	if !now.Before(deadline) {
		a.state.LastChance = true
	}
	if a.state.LastChance {
		return maxTime(deadline, now.Add(a.lead()))
	}
	return deadline
}

// after decides what follows the attempt that gave r at now.
func (a *attempt) after(r fetchResult, now time.Time) decision {
	a.state.Attempts++
	if r.err != nil {
		return a.failed(r, now)
	}
	return a.observed(r.status, now)
}

func (a *attempt) observed(st poll.Status, now time.Time) decision {
	s := a.state
	prev := s.Status.status()
	d := decision{changed: !s.Observed || st.State != prev.State || st.Raw != prev.Raw}
	if !s.Observed || !sameProgress(st, prev) {
		s.LastChange = now
	}
	s.Status, s.Observed = toStatusJSON(st), true
	s.ErrorsInRow, s.LastError = 0, nil
	if st.State.Final() {
		if st.State == poll.Succeeded {
			d.end = a.outcome(EndSucceeded, "", nil, now)
		} else {
			d.end = a.outcome(EndJob, (&poll.JobError{Status: st}).Error(), nil, now)
		}
		return d
	}
	return a.schedule(d, st.RetryAfter, 0, now)
}

func (a *attempt) failed(r fetchResult, now time.Time) decision {
	s := a.state
	err := r.err
	var d decision
	if r.deadlineCut {
		// As in the core: the fetch error is only the deadline's; the
		// last real error stays in LastError.
		return a.timedOut(d, now)
	}
	if r.attemptTimedOut {
		err = fmt.Errorf("attempt %d timed out after %v: %w", s.Attempts, a.plan.AttemptTimeout, err)
	} else if !a.retryable(err) {
		msg := fmt.Sprintf("attempt %d failed after %v with a permanent error: %v", s.Attempts, round(now.Sub(a.start)), err)
		d.end = a.outcome(EndFetchError, msg, toErrorJSON(err), now)
		return d
	}
	s.ErrorsInRow++
	s.LastError = toErrorJSON(err)
	if a.plan.MaxErrors > 0 && s.ErrorsInRow >= a.plan.MaxErrors {
		return a.exhausted(d, fmt.Sprintf("%d consecutive errors (max errors %d)", s.ErrorsInRow, a.plan.MaxErrors), now)
	}
	return a.schedule(d, 0, poll.ServerDelay(err), now)
}

// schedule ends the wait on a stall or a limit, or picks the next delay:
// the strategy's, raised to the status's or the error's server hint,
// shortened to fit the deadline.
func (a *attempt) schedule(d decision, statusHint, errorHint time.Duration, now time.Time) decision {
	s := a.state
	changed := s.LastChange
	if changed.IsZero() { // nothing observed yet: counted from the start
		changed = a.start
	}
	if a.plan.StallTimeout > 0 && now.Sub(changed) >= a.plan.StallTimeout {
		msg := fmt.Sprintf("stalled: status %s unchanged for %v (stall timeout %v), %s in %v",
			a.lastStatus(), round(now.Sub(changed)), a.plan.StallTimeout, plural(s.Attempts, "attempt"), round(now.Sub(a.start)))
		d.end = a.outcome(EndStalled, a.withLastError(msg), s.LastError, now)
		return d
	}
	if a.plan.MaxAttempts > 0 && s.Attempts >= a.plan.MaxAttempts {
		return a.exhausted(d, fmt.Sprintf("max attempts %d", a.plan.MaxAttempts), now)
	}
	next := a.strategy.NextBackOff()
	if next == backoff.Stop {
		return a.exhausted(d, "the backoff strategy stopped", now)
	}
	s.Steps++
	s.Waited += next
	next = max(next, statusHint, errorHint, 0)
	next, ok := a.fit(next, now)
	if !ok {
		return a.timedOut(d, now)
	}
	d.next = next
	return d
}

// fit shortens a delay that would cross the deadline, or land so close to
// it that a fetch could not answer in time, so that one last attempt runs
// just before it, leaving it the lead (plus the slack of a late start,
// never more than half the time left). It reports false when that last
// attempt has run: the wait then ends with a timeout.
func (a *attempt) fit(next time.Duration, now time.Time) (time.Duration, bool) {
	deadline := a.deadline()
	if deadline.IsZero() {
		return next, true
	}
	remaining := deadline.Sub(now)
	if a.state.LastChance || remaining <= 0 {
		return 0, false
	}
	lead := min(a.lead()+a.slack, remaining/2)
	if next <= remaining-lead {
		return next, true
	}
	a.state.LastChance = true
	return remaining - lead, true
}

// lead is the time the last attempt is given before the deadline.
func (a *attempt) lead() time.Duration {
	if a.plan.AttemptTimeout > 0 {
		return a.plan.AttemptTimeout
	}
	return lastAttemptLead
}

// refused ends the wait when the limiter refused the attempt because its
// wait would cross the deadline: no attempt was made.
func (a *attempt) refused(err error, now time.Time) decision {
	a.state.LastError = toErrorJSON(err)
	return a.timedOut(decision{}, now)
}

func (a *attempt) timedOut(d decision, now time.Time) decision {
	msg := fmt.Sprintf("timed out after %v and %s; last status %s", round(a.plan.Timeout), plural(a.state.Attempts, "attempt"), a.lastStatus())
	d.end = a.outcome(EndTimeout, a.withLastError(msg), a.state.LastError, now)
	return d
}

func (a *attempt) exhausted(d decision, why string, now time.Time) decision {
	msg := fmt.Sprintf("gave up after %s in %v: %s; last status %s", plural(a.state.Attempts, "attempt"), round(now.Sub(a.start)), why, a.lastStatus())
	d.end = a.outcome(EndExhausted, a.withLastError(msg), a.state.LastError, now)
	return d
}

func (a *attempt) withLastError(msg string) string {
	if e := a.state.LastError; e != nil {
		msg += "; last error: " + e.Message
	}
	return msg
}

func (a *attempt) lastStatus() string {
	if !a.state.Observed {
		return "none observed"
	}
	return a.state.Status.status().String()
}

func (a *attempt) outcome(end EndReason, msg string, err *errorJSON, now time.Time) *outcomeRecord {
	return &outcomeRecord{
		End: end, Status: a.state.Status, Observed: a.state.Observed, Attempts: a.state.Attempts,
		Started: a.start, Ended: now, Message: msg, Error: err,
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// round keeps texts readable, as the core does.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
