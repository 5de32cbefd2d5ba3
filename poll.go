package poll

import (
	"context"
	"errors"
)

// Fetch observes the job once. It is called with a context that carries the
// wait's deadline and, with [WithAttemptTimeout], the attempt's.
type Fetch[T any] func(ctx context.Context) (T, error)

// Poller waits for one job: it calls a [Fetch], maps each observation to a
// [Status] and stops at a final state, a deadline or a permanent error.
//
// A Poller holds no state between calls: Wait may be called again later
// and starts afresh. It must not be called concurrently for the same job,
// since both calls would poll the same API.
type Poller[T any] struct {
	fetch  Fetch[T]
	status func(T) Status
	cfg    config
}

// New returns a Poller that observes the job with fetch and maps each
// observation with status. Invalid arguments or options do not panic: Wait
// and Poll return an error naming them.
func New[T any](fetch Fetch[T], status func(T) Status, opts ...Option) *Poller[T] {
	p := &Poller[T]{fetch: fetch, status: status, cfg: newConfig(opts)}
	switch {
	case fetch == nil:
		p.cfg.err = errors.New("poll: New was given a nil fetch function")
	case status == nil:
		p.cfg.err = errors.New("poll: New was given a nil status function")
	}
	return p
}

// Wait polls until the job reaches a final state, the deadline passes, ctx
// is done or a fetch fails with a permanent error.
//
// It ALWAYS returns the last value observed (the zero value if none), with
// every error too, so a caller never loses a result. The error is nil when
// the job Succeeded; a [*JobError] for another final state; and otherwise
// matches one of [ErrTimeout], [ErrStalled], [ErrExhausted],
// context.Canceled, or wraps the permanent fetch error.
func (p *Poller[T]) Wait(ctx context.Context) (T, error) {
	if p.cfg.err != nil {
		var zero T
		return zero, p.cfg.err
	}
	w := newWait(p)
	return w.run(ctx)
}

// Poll observes the job once, with no waiting and no retry. It consults the
// limiter and applies the attempt timeout like one attempt of Wait. The
// status is the zero Status when the fetch failed.
func (p *Poller[T]) Poll(ctx context.Context) (T, Status, error) {
	var zero T
	if p.cfg.err != nil {
		return zero, Status{}, p.cfg.err
	}
	if p.cfg.limiter != nil {
		if err := p.cfg.limiter.Wait(ctx); err != nil {
			return zero, Status{}, err
		}
	}
	attemptCtx, cancel := p.cfg.attemptContext(ctx)
	defer cancel()
	v, err := p.fetch(attemptCtx)
	if err != nil {
		return v, Status{}, err
	}
	return v, p.status(v), nil
}

func (c *config) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.attemptTimeout > 0 {
		return context.WithTimeout(ctx, c.attemptTimeout)
	}
	return ctx, func() {}
}
