package poll

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Strategy makes the delays of one wait: it returns a fresh
// [backoff.BackOff] per wait, because a BackOff keeps state. Any
// cenkalti/backoff/v4 policy can be used:
//
//	poll.WithBackoff(func() backoff.BackOff { return myPolicy() })
//
// A BackOff that returns [backoff.Stop] ends the wait with [ErrExhausted].
type Strategy func() backoff.BackOff

// jitter is the randomization factor of [Exponential]: each delay is drawn
// from ±20% around the nominal one, so that many clients started together
// spread out instead of polling in lockstep.
const jitter = 0.2

// Constant waits d between attempts. A negative d counts as 0.
func Constant(d time.Duration) Strategy {
	d = max(d, 0)
	return func() backoff.BackOff { return backoff.NewConstantBackOff(d) }
}

// Exponential starts near initial and doubles the delay after every
// attempt, with ±20% jitter, up to max. No delay is ever above max, even
// after jitter: once the cap is reached, delays are spread between 2/3 of
// max and max. It never stops by itself; the wait's timeout does.
//
// An initial of 0 or less counts as 1ms; a max below initial counts as
// initial.
func Exponential(initial, max time.Duration) Strategy {
	if initial <= 0 {
		initial = time.Millisecond
	}
	if max < initial {
		max = initial
	}
	return func() backoff.BackOff {
		b := &backoff.ExponentialBackOff{
			InitialInterval:     initial,
			RandomizationFactor: jitter,
			Multiplier:          2,
			// Jitter scales a delay up by at most 1+jitter, so capping the
			// nominal delay here keeps the jittered one at or under max
			// without piling every capped delay onto exactly max.
			MaxInterval:    time.Duration(float64(max) / (1 + jitter)),
			MaxElapsedTime: 0, // never Stop by itself
			Stop:           backoff.Stop,
			Clock:          backoff.SystemClock,
		}
		b.Reset()
		return &capped{BackOff: b, max: max}
	}
}

// capped guards the hard cap against the initial delay's jitter and float
// rounding.
type capped struct {
	backoff.BackOff
	max time.Duration
}

func (c *capped) NextBackOff() time.Duration {
	return min(c.BackOff.NextBackOff(), c.max)
}

// Default is the strategy a wait uses when none is given:
// Proportional(0.1, 10s, 10min). A job is seen at most max(10s, 10% of its
// duration) after it finished, while the number of requests grows with the
// logarithm of its duration: in the simulations of BENCHMARKS.md it makes a
// quarter of the requests of the docs' fixed 10 s loop for human reviews and
// a twentieth for runs that sit hours in review, and is never late. For jobs
// that take a second or two, where 10 s is too long to wait, use
// Exponential.
func Default() Strategy {
	return Proportional(0.1, 10*time.Second, 10*time.Minute)
}
