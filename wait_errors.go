package poll

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The errors a wait ends with when the job did not reach a final state:
// each says what happened with numbers and keeps the sentinel, the
// context's error and the last fetch error reachable through errors.Is and
// errors.As.

// contextEnded returns the wait's error when ctx is done or the wait's own
// deadline passed, else nil.
func (w *wait[T]) contextEnded() error {
	ctx := w.ctx
	switch {
	case ctx.Err() == nil && w.waitCtx.Err() == nil:
		return nil
	case errors.Is(ctx.Err(), context.Canceled):
		errs := []error{ctx.Err()}
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			errs = append(errs, cause)
		}
		return &waitError{
			msg:  fmt.Sprintf("poll: canceled after %v and %s; last status %s: %v", round(time.Since(w.start)), plural(w.attempts, "attempt"), w.lastStatus(), context.Cause(ctx)),
			errs: errs,
		}
	default:
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			w.ctxDeadline = true
		}
		return w.timedOut(nil)
	}
}

// timedOut builds ErrTimeout. The time it names is the deadline's distance
// from the start: the wait may end a moment early, right after its last
// attempt, once no further attempt could run.
func (w *wait[T]) timedOut(cause error) error {
	errs := []error{ErrTimeout}
	source := ""
	if w.ctxDeadline {
		errs = append(errs, context.DeadlineExceeded)
		source = " (the context's deadline)"
	}
	msg := fmt.Sprintf("poll: timed out after %v%s and %s; last status %s", round(w.deadline.Sub(w.start)), source, plural(w.attempts, "attempt"), w.lastStatus())
	return w.withLastError(msg, errs, cause)
}

func (w *wait[T]) stalled(now time.Time) error {
	msg := fmt.Sprintf("poll: stalled: status %s unchanged for %v (stall timeout %v), %s in %v", w.lastStatus(), round(now.Sub(w.lastChange)), w.cfg.stallTimeout, plural(w.attempts, "attempt"), round(now.Sub(w.start)))
	return w.withLastError(msg, []error{ErrStalled}, nil)
}

func (w *wait[T]) exhausted(why string, now time.Time) error {
	msg := fmt.Sprintf("poll: gave up after %s in %v: %s; last status %s", plural(w.attempts, "attempt"), round(now.Sub(w.start)), why, w.lastStatus())
	return w.withLastError(msg, []error{ErrExhausted}, nil)
}

// withLastError appends the last transient fetch error, if any, to the
// message and the chain, so errors.As still reaches an *APIError.
func (w *wait[T]) withLastError(msg string, errs []error, cause error) error {
	if cause == nil {
		cause = w.lastErr
	}
	if cause != nil {
		msg += "; last error: " + cause.Error()
		errs = append(errs, cause)
	}
	return &waitError{msg: msg, errs: errs}
}

func (w *wait[T]) lastStatus() string {
	if !w.observed {
		return "none observed"
	}
	return w.status.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// round keeps error texts readable in real time ("12.345s", not
// "12.345678912s") and exact in tests.
func round(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}
