package poll

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// DefaultTimeout is the wait's own deadline when no [WithTimeout] is given.
const DefaultTimeout = 10 * time.Minute

// Option configures a [Poller]. Options are not generic, so one option list
// serves pollers of any result type. Later options override earlier ones,
// which lets a provider set its defaults and the caller override them.
type Option func(*config)

// Limiter is consulted once before every attempt. A shared
// *golang.org/x/time/rate.Limiter satisfies it, so many pollers can share
// one request budget.
type Limiter interface {
	Wait(ctx context.Context) error
}

// Attempt describes one attempt, for [WithNotify].
type Attempt struct {
	// N counts attempts from 1.
	N int
	// Elapsed is the time since Wait started, at the end of the attempt.
	Elapsed time.Duration
	// Status is this attempt's observation; after a failed fetch it is the
	// last status observed before it (zero if none).
	Status Status
	// Changed is true on the first observation and whenever State or Raw
	// differ from the previous observation.
	Changed bool
	// Err is the fetch error of this attempt, if any. On the final attempt
	// of a wait that ends in error it is the error Wait returns.
	Err error
	// Next is the delay before the next attempt; 0 after the last one.
	Next time.Duration
}

type config struct {
	strategy       Strategy
	timeout        time.Duration
	initialDelay   time.Duration
	attemptTimeout time.Duration
	maxAttempts    int
	maxErrors      int
	retryable      func(error) bool
	stallTimeout   time.Duration
	limiter        Limiter
	wake           <-chan struct{}
	notify         func(Attempt)
	logger         *slog.Logger
	// err is the first invalid option; Wait and Poll return it.
	err error
}

func newConfig(opts []Option) config {
	c := config{strategy: Default(), timeout: DefaultTimeout, retryable: Transient}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	return c
}

func (c *config) invalid(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("poll: invalid option: "+format, args...)
	}
}

func (c *config) duration(name string, d time.Duration, dst *time.Duration) {
	if d < 0 {
		c.invalid("%s(%v): the duration must not be negative", name, d)
		return
	}
	*dst = d
}

func (c *config) count(name string, n int, dst *int) {
	if n < 0 {
		c.invalid("%s(%d): the count must not be negative", name, n)
		return
	}
	*dst = n
}

// WithBackoff sets the delays between attempts. Default: [Default]().
// A nil strategy keeps the default.
func WithBackoff(s Strategy) Option {
	return func(c *config) {
		if s != nil {
			c.strategy = s
		}
	}
}

// WithTimeout sets the wait's own deadline, counted from the start of Wait.
// 0 means no deadline of its own: only ctx bounds the wait.
// Default: [DefaultTimeout] (10 minutes).
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.duration("WithTimeout", d, &c.timeout) }
}

// WithInitialDelay waits d before the first attempt. Default: 0, the first
// attempt runs at once.
func WithInitialDelay(d time.Duration) Option {
	return func(c *config) { c.duration("WithInitialDelay", d, &c.initialDelay) }
}

// WithAttemptTimeout bounds each fetch. A fetch that overruns it counts as a
// transient error. Default: 0, no bound beyond the wait's own deadline.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *config) { c.duration("WithAttemptTimeout", d, &c.attemptTimeout) }
}

// WithMaxAttempts ends the wait with [ErrExhausted] after n attempts.
// Default: 0, no limit.
func WithMaxAttempts(n int) Option {
	return func(c *config) { c.count("WithMaxAttempts", n, &c.maxAttempts) }
}

// WithMaxErrors ends the wait with [ErrExhausted] after n consecutive
// transient errors. Default: 0, retry until the deadline.
func WithMaxErrors(n int) Option {
	return func(c *config) { c.count("WithMaxErrors", n, &c.maxErrors) }
}

// WithRetryable decides which fetch errors are transient (retried) and
// which end the wait. Default: [Transient]. A nil func keeps the default.
func WithRetryable(retryable func(error) bool) Option {
	return func(c *config) {
		if retryable != nil {
			c.retryable = retryable
		}
	}
}

// WithStallTimeout ends the wait with [ErrStalled] when State, Raw and
// Progress have not changed for d. It catches jobs that are stuck in a
// non-final state. Default: 0, off.
func WithStallTimeout(d time.Duration) Option {
	return func(c *config) { c.duration("WithStallTimeout", d, &c.stallTimeout) }
}

// WithLimiter consults l once before every attempt. Default: none.
func WithLimiter(l Limiter) Option {
	return func(c *config) { c.limiter = l }
}

// WithWake lets a receive on ch cut the current sleep short, so the next
// attempt runs at once: send on it when a webhook says the job changed.
// A closed channel wakes the wait once and is then ignored, so it can
// never turn the wait into a busy loop. Default: none.
func WithWake(ch <-chan struct{}) Option {
	return func(c *config) { c.wake = ch }
}

// WithNotify calls fn after every attempt, the final one included. Wait
// calls it on its own goroutine; in a group ([Each], [WaitAll]) the group's
// workers call it, so a hook shared by several pollers of a group must be
// safe for concurrent use. Default: none.
func WithNotify(fn func(Attempt)) Option {
	return func(c *config) { c.notify = fn }
}

// WithLogger logs each attempt on one line: Debug normally, Info when the
// state changed, Warn when the attempt failed or the wait ended in error.
// Default: none.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}
