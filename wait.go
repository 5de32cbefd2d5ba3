package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// lastAttemptLead is how long before the deadline the last attempt starts
// when the strategy's delay would cross the deadline and no attempt timeout
// is set: time for one fetch to answer before the deadline cuts it off.
const lastAttemptLead = time.Second

// wait is the state of one call to Wait. The Poller itself stays immutable.
type wait[T any] struct {
	p   *Poller[T]
	cfg *config

	// ctx is the caller's; waitCtx adds the wait's own deadline. Kept
	// here because a wait is one call's state, driven step by step.
	ctx     context.Context
	waitCtx context.Context
	cancel  context.CancelFunc

	start    time.Time
	deadline time.Time // zero when neither WithTimeout nor ctx set one
	// ctxDeadline: the deadline is ctx's, so a timeout also matches
	// context.DeadlineExceeded.
	ctxDeadline bool
	strategy    backoff.BackOff
	timer       *time.Timer
	wake        <-chan struct{}

	attempts    int
	errorsInRow int
	last        T      // the last value observed
	status      Status // the last status observed
	observed    bool
	lastChange  time.Time // when State, Raw or Progress last changed
	lastErr     error     // the last transient fetch error, cleared by an observation
	lastChance  bool      // the current sleep was shortened to fit the deadline
}

func newWait[T any](p *Poller[T]) *wait[T] {
	return &wait[T]{p: p, cfg: &p.cfg, wake: p.cfg.wake}
}

// outcome is what one attempt decided.
type outcome struct {
	status  Status
	changed bool
	err     error // the fetch error, or the wait's error when done
	done    bool
	next    time.Duration // counted from at
	at      time.Time     // when the attempt ended
}

func (w *wait[T]) run(ctx context.Context) (T, error) {
	next, err := w.begin(ctx)
	defer w.end()
	if err != nil {
		return w.last, err
	}
	for {
		if next > 0 {
			w.sleep(next)
		}
		o := w.step()
		if o.done {
			return w.last, o.err
		}
		next = o.next
	}
}

// begin starts the wait's clock and returns the delay before the first
// attempt. Call end when the wait is over, even after an error.
func (w *wait[T]) begin(ctx context.Context) (time.Duration, error) {
	w.ctx, w.waitCtx, w.cancel = ctx, ctx, func() {}
	w.start = time.Now()
	w.lastChange = w.start
	if w.cfg.timeout > 0 {
		// From w.start, not from a later clock reading, so that the
		// deadline is exactly the timeout away (and says so in errors).
		w.waitCtx, w.cancel = context.WithDeadline(ctx, w.start.Add(w.cfg.timeout))
	}
	w.deadline, _ = w.waitCtx.Deadline()
	if d, ok := ctx.Deadline(); ok && d.Equal(w.deadline) {
		w.ctxDeadline = true
	}
	w.strategy = w.cfg.strategy()
	if w.strategy == nil {
		return 0, errors.New("poll: the strategy returned a nil backoff.BackOff")
	}
	w.strategy.Reset()
	first := w.cfg.initialDelay
	if first > 0 {
		var ok bool
		if first, ok = w.fit(first, w.start); !ok {
			return 0, w.timedOut(nil)
		}
	}
	return first, nil
}

func (w *wait[T]) end() {
	w.cancel()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// step runs the attempt that follows a sleep and reports it. An outcome
// that ends the wait before any fetch (the context, the limiter) is not an
// attempt and is not reported.
func (w *wait[T]) step() outcome {
	// Checked after every sleep, so that cancellation wins over a timer
	// that fired at the same moment.
	if err := w.contextEnded(); err != nil {
		return w.endedBefore(err)
	}
	if w.cfg.limiter != nil {
		if err := w.cfg.limiter.Wait(w.waitCtx); err != nil {
			return w.endedBefore(w.limiterRefused("limiter", err))
		}
	}
	o := w.attempt()
	w.report(o)
	return o
}

// endedBefore is the outcome of a wait that ends before its next fetch.
func (w *wait[T]) endedBefore(err error) outcome {
	return outcome{status: w.status, err: err, done: true, at: time.Now()}
}

// limiterRefused turns a limiter's refusal into the wait's error: the
// context's end when it ended; ErrTimeout when the limiter refused because
// its wait would cross the deadline (golang.org/x/time/rate says so at
// once, in words, rather than waiting); otherwise an error naming it.
func (w *wait[T]) limiterRefused(which string, err error) error {
	if ended := w.contextEnded(); ended != nil {
		return ended
	}
	if !w.deadline.IsZero() && (errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "exceed context deadline")) {
		return w.timedOut(err)
	}
	return fmt.Errorf("poll: the %s refused attempt %d: %w", which, w.attempts+1, err)
}

// attempt runs one fetch and decides what follows it.
func (w *wait[T]) attempt() outcome {
	attemptCtx, cancel := w.cfg.attemptContext(w.waitCtx)
	v, err := w.p.fetch(attemptCtx)
	attemptTimedOut := err != nil && attemptCtx.Err() != nil && w.waitCtx.Err() == nil
	cancel()
	w.attempts++
	now := time.Now()

	var o outcome
	if err != nil {
		o = w.failed(err, attemptTimedOut, now)
	} else {
		o = w.observe(v, now)
	}
	o.at = now
	return o
}

// observe handles a successful fetch.
func (w *wait[T]) observe(v T, now time.Time) outcome {
	st := w.p.status(v)
	o := outcome{status: st}
	o.changed = !w.observed || st.State != w.status.State || st.Raw != w.status.Raw
	if !w.observed || !st.sameProgress(w.status) {
		w.lastChange = now
	}
	w.last, w.status, w.observed = v, st, true
	w.errorsInRow, w.lastErr = 0, nil

	if st.State.Final() {
		o.done = true
		if st.State != Succeeded {
			o.err = &JobError{Status: st}
		}
		return o
	}
	return w.schedule(o, st.RetryAfter, now)
}

// failed handles a fetch error.
func (w *wait[T]) failed(err error, attemptTimedOut bool, now time.Time) outcome {
	o := outcome{status: w.status, err: err}
	if ended := w.contextEnded(); ended != nil {
		// The fetch error is only the context's own; the last real error
		// stays in w.lastErr.
		o.err, o.done = ended, true
		return o
	}
	if attemptTimedOut {
		err = fmt.Errorf("poll: attempt %d timed out after %v: %w", w.attempts, w.cfg.attemptTimeout, err)
		o.err = err
	} else if !w.cfg.retryable(err) {
		o.err = &waitError{
			msg:  fmt.Sprintf("poll: attempt %d failed after %v with a permanent error: %v", w.attempts, round(now.Sub(w.start)), err),
			errs: []error{err},
		}
		o.done = true
		return o
	}
	w.errorsInRow++
	w.lastErr = err
	if w.cfg.maxErrors > 0 && w.errorsInRow >= w.cfg.maxErrors {
		o.err = w.exhausted(fmt.Sprintf("%d consecutive errors (max errors %d)", w.errorsInRow, w.cfg.maxErrors), now)
		o.done = true
		return o
	}
	return w.schedule(o, ServerDelay(err), now)
}

// schedule ends the wait on a stall or a limit, or picks the next delay:
// the strategy's, raised to the server's hint, shortened to fit the
// deadline.
func (w *wait[T]) schedule(o outcome, hint time.Duration, now time.Time) outcome {
	end := func(err error) outcome {
		o.err, o.done = err, true
		return o
	}
	if w.cfg.stallTimeout > 0 && now.Sub(w.lastChange) >= w.cfg.stallTimeout {
		return end(w.stalled(now))
	}
	if w.cfg.maxAttempts > 0 && w.attempts >= w.cfg.maxAttempts {
		return end(w.exhausted(fmt.Sprintf("max attempts %d", w.cfg.maxAttempts), now))
	}
	next := w.strategy.NextBackOff()
	if next == backoff.Stop {
		return end(w.exhausted("the backoff strategy stopped", now))
	}
	next = max(next, hint, 0)
	next, ok := w.fit(next, now)
	if !ok {
		return end(w.timedOut(nil))
	}
	o.next = next
	return o
}

// fit shortens a delay that would cross the deadline, or land so close to
// it that a fetch could not answer in time, so that one last attempt runs
// just before it, leaving it the lead. It reports false when that last attempt has
// already run, or no time is left: the wait then ends with ErrTimeout.
func (w *wait[T]) fit(d time.Duration, now time.Time) (time.Duration, bool) {
	if w.deadline.IsZero() {
		return d, true
	}
	remaining := w.deadline.Sub(now)
	if w.lastChance || remaining <= 0 {
		return 0, false
	}
	lead := lastAttemptLead
	if w.cfg.attemptTimeout > 0 {
		lead = w.cfg.attemptTimeout
	}
	lead = min(lead, remaining/2)
	if d <= remaining-lead {
		return d, true
	}
	w.lastChance = true
	return remaining - lead, true
}

// woken notes that a wake cut the current sleep short: the attempt it
// brings forward is not the last one any more, even if the sleep had been
// shortened to fit the deadline.
func (w *wait[T]) woken() {
	w.lastChance = false
}

func (w *wait[T]) sleep(d time.Duration) {
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.waitCtx.Done():
	case <-w.timer.C:
	case _, open := <-w.wake:
		if !open {
			w.wake = nil
		}
		w.woken()
	}
	w.timer.Stop()
}
