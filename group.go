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
// The waits do not each hold a goroutine: one scheduler goroutine keeps
// their next attempts in a timer heap and hands due ones to a fixed pool of
// workers (the in-flight bound), so 10,000 sleeping waits cost memory, not
// goroutines. A poller with [WithWake] adds one goroutine, to listen on its
// channel. Attempts go on while the loop body runs; outcomes queue until
// it asks for the next.
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
		go g.schedule(pollers)
		defer g.stop()
		for r := range g.out {
			if !yield(r) {
				return
			}
		}
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
// scheduler goroutine, except a wait handed to a worker, which belongs to
// that worker until its outcome comes back on results.
type group[T any] struct {
	cfg     groupConfig
	ctx     context.Context
	cancel  context.CancelCauseFunc
	waits   []*wait[T]
	due     dueHeap
	timer   *time.Timer
	jobs    chan int       // waits whose attempt is due, for the workers
	results chan finished  // outcomes of those attempts
	wakes   chan int       // waits woken through WithWake
	out     chan Result[T] // outcomes for the loop body; closed at the end
	quit    chan struct{}  // closed when the loop body stops early
	done    chan struct{}  // closed when the scheduler has cleaned up
	outbox  []Result[T]    // ended waits the loop body has not taken yet
	helpers sync.WaitGroup // workers and wake listeners
	busy    int            // attempts handed out and not yet back
	pending int            // waits not ended yet
	wokenIn []bool         // a wake arrived while the wait's attempt was running
}

type finished struct {
	index int
	o     outcome
}

func newGroup[T any](ctx context.Context, pollers []*Poller[T], cfg groupConfig) *group[T] {
	gctx, cancel := context.WithCancelCause(ctx)
	// A wait has at most one attempt in flight, so more workers than
	// waits would only idle (and a huge bound would size huge channels).
	cfg.maxInFlight = max(1, min(cfg.maxInFlight, len(pollers)))
	g := &group[T]{
		cfg:     cfg,
		ctx:     gctx,
		cancel:  cancel,
		waits:   make([]*wait[T], len(pollers)),
		due:     newDueHeap(len(pollers)),
		jobs:    make(chan int, cfg.maxInFlight),
		results: make(chan finished, cfg.maxInFlight),
		wakes:   make(chan int),
		out:     make(chan Result[T]),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		wokenIn: make([]bool, len(pollers)),
	}
	g.helpers.Add(cfg.maxInFlight)
	for range cfg.maxInFlight {
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
				g.results <- finished{i, w.endedBefore(w.limiterRefused("group's limiter", err))}
				continue
			}
		}
		g.results <- finished{i, w.step()}
	}
}

// schedule starts every wait, then hands out due attempts and queues
// outcomes for the loop body until every wait has ended and been taken, or
// the loop body stopped.
func (g *group[T]) schedule(pollers []*Poller[T]) {
	defer g.cleanUp()
	g.pending = len(pollers)
	for i, p := range pollers {
		g.start(i, p)
	}
	ctxDone := g.ctx.Done()
	for g.pending > 0 || len(g.outbox) > 0 {
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
		var out chan<- Result[T]
		var next Result[T]
		if len(g.outbox) > 0 {
			out, next = g.out, g.outbox[0]
		}
		select {
		case f := <-g.results:
			g.busy--
			g.finish(f.index, f.o)
		case i := <-g.wakes:
			g.wake(i)
		case <-ctxDone:
			// Every sleeping wait is due now: its next step sees the
			// context and ends without a fetch.
			ctxDone = nil
			g.due.allDue(time.Now())
		case <-timerC:
		case out <- next:
			g.outbox = g.outbox[1:]
		case <-g.quit:
			return
		}
	}
}

// start begins wait i; a wait that cannot start ends at once.
func (g *group[T]) start(i int, p *Poller[T]) {
	if p == nil {
		g.ended(Result[T]{Index: i, Err: fmt.Errorf("poll: poller %d is nil", i)})
		return
	}
	if p.cfg.err != nil {
		g.ended(Result[T]{Index: i, Err: p.cfg.err})
		return
	}
	w := newWait(p)
	first, err := w.begin(g.ctx)
	if err != nil {
		w.end()
		g.ended(Result[T]{Index: i, Value: w.last, Err: err})
		return
	}
	g.waits[i] = w
	g.due.push(i, w.start.Add(first))
	if w.wake != nil {
		g.helpers.Add(1)
		go g.forwardWakes(i, w.wake)
	}
}

// wake brings wait i's next attempt forward to now. A wait whose attempt
// is running is marked, and scheduled at once when the attempt is back.
func (g *group[T]) wake(i int) {
	w := g.waits[i]
	switch {
	case w == nil:
	case g.due.moveUp(i, time.Now()):
		w.woken()
	case !g.due.has(i):
		g.wokenIn[i] = true
	}
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

// finish queues a wait that ended, or schedules its next attempt.
func (g *group[T]) finish(i int, o outcome) {
	w := g.waits[i]
	if !o.done {
		// The delay counts from the end of the attempt.
		due := o.at.Add(o.next)
		switch {
		case g.ctx.Err() != nil:
			due = o.at // the group is stopping: end this wait at its next step
		case g.wokenIn[i]:
			g.wokenIn[i] = false
			w.woken()
			due = o.at
		}
		g.due.push(i, due)
		return
	}
	w.end()
	g.waits[i] = nil
	g.ended(Result[T]{Index: i, Value: w.last, Err: o.err})
}

// ended queues one wait's outcome for the loop body, and stops the other
// waits when it is an error and WithStopOnFirstError was given.
func (g *group[T]) ended(r Result[T]) {
	g.pending--
	g.outbox = append(g.outbox, r)
	if r.Err != nil && g.cfg.stopOnError {
		// %v, not %w: the other waits' errors must match their own
		// cancellation, not this wait's error (ErrFailed, ErrTimeout...).
		g.cancel(fmt.Errorf("poll: the group stopped because wait %d failed: %v", r.Index, r.Err))
	}
}

func (g *group[T]) armTimer(d time.Duration) {
	if g.timer == nil {
		g.timer = time.NewTimer(d)
		return
	}
	g.timer.Reset(d)
}

// cleanUp runs when the scheduler returns: it stops every wait still
// running and every helper goroutine, then closes out.
func (g *group[T]) cleanUp() {
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
	close(g.out)
	close(g.done)
}

// stop makes the scheduler return if it has not, and waits until it has
// cleaned up: no goroutine of the group outlives Each.
func (g *group[T]) stop() {
	close(g.quit)
	<-g.done
}
