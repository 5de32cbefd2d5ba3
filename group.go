package poll

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"
)

// DefaultMaxInFlight bounds the fetches a group runs at once when no
// [WithMaxInFlight] is given. It is also the number of worker goroutines a
// group uses, however many waits it holds.
const DefaultMaxInFlight = 32

// Result is the outcome of one wait of a group.
type Result[T any] struct {
	// Index is the poller's index in the slice given to Each or WaitAll.
	Index int
	// Value is the last value observed, as Wait returns it.
	Value T
	// Err is the error Wait would have returned.
	Err error
}

// GroupOption configures [Each] and [WaitAll].
type GroupOption func(*groupConfig)

type groupConfig struct {
	maxInFlight int
	limiter     Limiter
	stopOnError bool
	err         error
}

// WithMaxInFlight bounds how many fetches run at once. It bounds fetches,
// not waits: every wait keeps its own schedule, and a wait whose attempt is
// due while n fetches are running goes next. Default: [DefaultMaxInFlight].
func WithMaxInFlight(n int) GroupOption {
	return func(c *groupConfig) {
		if n < 1 {
			c.err = fmt.Errorf("poll: invalid group option: WithMaxInFlight(%d): at least 1 fetch must be allowed", n)
			return
		}
		c.maxInFlight = n
	}
}

// WithSharedLimiter makes every attempt of the group wait for l first, on
// top of any limiter of each poller: one request budget for all the waits.
func WithSharedLimiter(l Limiter) GroupOption {
	return func(c *groupConfig) { c.limiter = l }
}

// WithStopOnFirstError stops the other waits when one ends with an error;
// they end with context.Canceled, whose cause names the failed wait.
// Without it, one job's failure never stops the others.
func WithStopOnFirstError() GroupOption {
	return func(c *groupConfig) { c.stopOnError = true }
}

// Each waits for every poller concurrently and yields each outcome as it
// finishes, in completion order. Breaking out of the loop stops the
// remaining waits; Each returns only once they have stopped.
//
// The waits do not each hold a goroutine: a timer heap schedules their
// attempts and a fixed pool of workers (the in-flight bound) runs them, so
// 10,000 sleeping waits cost memory, not goroutines. A poller with
// [WithWake] adds one goroutine, to listen on its channel. The loop body
// runs on the caller's goroutine; keep it short, since no new attempt
// starts while it runs.
func Each[T any](ctx context.Context, pollers []*Poller[T], opts ...GroupOption) iter.Seq[Result[T]] {
	return func(yield func(Result[T]) bool) {
		cfg := groupConfig{maxInFlight: DefaultMaxInFlight}
		for _, opt := range opts {
			if opt != nil {
				opt(&cfg)
			}
		}
		if cfg.err != nil {
			for i := range pollers {
				if !yield(Result[T]{Index: i, Err: cfg.err}) {
					return
				}
			}
			return
		}
		g := newGroup(ctx, pollers, cfg)
		defer g.stop()
		g.run(pollers, yield)
	}
}

// WaitAll waits for every poller and returns their values in input order
// (each the last value observed) and their errors joined, each naming its
// index. The error is nil only when every job succeeded.
func WaitAll[T any](ctx context.Context, pollers []*Poller[T], opts ...GroupOption) ([]T, error) {
	values := make([]T, len(pollers))
	var errs []error
	for r := range Each(ctx, pollers, opts...) {
		values[r.Index] = r.Value
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("poller %d: %w", r.Index, r.Err))
		}
	}
	return values, errors.Join(errs...)
}

// group runs the waits of one call to Each. Its fields belong to the
// goroutine running Each, except a wait handed to a worker, which belongs
// to that worker until its outcome comes back on results.
type group[T any] struct {
	cfg     groupConfig
	ctx     context.Context
	cancel  context.CancelCauseFunc
	waits   []*wait[T]
	due     dueHeap
	timer   *time.Timer
	jobs    chan int      // waits whose attempt is due, for the workers
	results chan finished // outcomes of those attempts
	wakes   chan int      // waits woken through WithWake
	helpers sync.WaitGroup
	busy    int // attempts handed out and not yet back
	pending int // waits not yet yielded
}

type finished struct {
	index int
	o     outcome
}

func newGroup[T any](ctx context.Context, pollers []*Poller[T], cfg groupConfig) *group[T] {
	gctx, cancel := context.WithCancelCause(ctx)
	g := &group[T]{
		cfg:     cfg,
		ctx:     gctx,
		cancel:  cancel,
		waits:   make([]*wait[T], len(pollers)),
		due:     newDueHeap(len(pollers)),
		jobs:    make(chan int, cfg.maxInFlight),
		results: make(chan finished, cfg.maxInFlight),
		wakes:   make(chan int),
	}
	workers := min(cfg.maxInFlight, len(pollers))
	g.helpers.Add(workers)
	for range workers {
		go g.work()
	}
	return g
}

// work runs due attempts until the group stops.
func (g *group[T]) work() {
	defer g.helpers.Done()
	for i := range g.jobs {
		w := g.waits[i]
		if g.cfg.limiter != nil {
			if err := g.cfg.limiter.Wait(w.waitCtx); err != nil {
				ended := w.contextEnded()
				if ended == nil {
					ended = fmt.Errorf("poll: the group's limiter refused attempt %d: %w", w.attempts+1, err)
				}
				g.results <- finished{i, outcome{status: w.status, err: ended, done: true}}
				continue
			}
		}
		g.results <- finished{i, w.step()}
	}
}

// run starts every wait, then hands out due attempts and yields outcomes
// until every wait has ended or the caller stopped the loop.
func (g *group[T]) run(pollers []*Poller[T], yield func(Result[T]) bool) {
	g.pending = len(pollers)
	for i, p := range pollers {
		if !g.start(i, p, yield) {
			return
		}
	}
	ctxDone := g.ctx.Done()
	for g.pending > 0 {
		now := time.Now()
		for g.busy < g.cfg.maxInFlight && g.due.Len() > 0 && !g.due.peek().after(now) {
			g.busy++
			g.jobs <- g.due.pop()
		}
		var timerC <-chan time.Time
		if g.busy < g.cfg.maxInFlight && g.due.Len() > 0 {
			g.armTimer(g.due.peek().at.Sub(now))
			timerC = g.timer.C
		}
		select {
		case f := <-g.results:
			g.busy--
			if !g.finish(f.index, f.o, yield) {
				return
			}
		case i := <-g.wakes:
			g.due.moveUp(i, time.Now())
		case <-ctxDone:
			// Every sleeping wait is due now: its next step sees the
			// context and ends without a fetch.
			ctxDone = nil
			g.due.allDue(time.Now())
		case <-timerC:
		}
	}
}

// start begins wait i; a wait that cannot start is yielded at once.
func (g *group[T]) start(i int, p *Poller[T], yield func(Result[T]) bool) bool {
	if p == nil {
		return g.yield(Result[T]{Index: i, Err: fmt.Errorf("poll: poller %d is nil", i)}, yield)
	}
	if p.cfg.err != nil {
		return g.yield(Result[T]{Index: i, Err: p.cfg.err}, yield)
	}
	w := newWait(p)
	g.waits[i] = w
	first, err := w.begin(g.ctx)
	if err != nil {
		w.end()
		return g.yield(Result[T]{Index: i, Value: w.last, Err: err}, yield)
	}
	g.due.push(i, w.start.Add(first))
	if w.wake != nil {
		g.helpers.Add(1)
		go g.forwardWakes(i, w.wake)
	}
	return true
}

// forwardWakes turns receives on one poller's wake channel into wakes of
// its wait. A closed channel wakes once, as in Wait.
func (g *group[T]) forwardWakes(i int, wake <-chan struct{}) {
	defer g.helpers.Done()
	for {
		select {
		case _, open := <-wake:
			select {
			case g.wakes <- i:
			case <-g.ctx.Done():
				return
			}
			if !open {
				return
			}
		case <-g.ctx.Done():
			return
		}
	}
}

// finish yields a wait that ended, or schedules its next attempt.
func (g *group[T]) finish(i int, o outcome, yield func(Result[T]) bool) bool {
	w := g.waits[i]
	if !o.done {
		next := o.next
		if g.ctx.Err() != nil {
			next = 0 // the group is stopping: end this wait at its next step
		}
		g.due.push(i, time.Now().Add(next))
		return true
	}
	w.end()
	if o.err != nil && g.cfg.stopOnError {
		g.cancel(fmt.Errorf("poll: the group stopped because wait %d failed: %w", i, o.err))
	}
	return g.yield(Result[T]{Index: i, Value: w.last, Err: o.err}, yield)
}

// yield hands one outcome to the loop body.
func (g *group[T]) yield(r Result[T], yield func(Result[T]) bool) bool {
	g.pending--
	return yield(r)
}

func (g *group[T]) armTimer(d time.Duration) {
	if g.timer == nil {
		g.timer = time.NewTimer(d)
		return
	}
	g.timer.Reset(d)
}

// stop ends every wait still running and returns once no goroutine of the
// group is left.
func (g *group[T]) stop() {
	g.cancel(context.Canceled)
	close(g.jobs)
	for g.busy > 0 {
		<-g.results
		g.busy--
	}
	g.helpers.Wait()
	if g.timer != nil {
		g.timer.Stop()
	}
	for _, w := range g.waits {
		if w != nil {
			w.end()
		}
	}
}
