package poll

import (
	"math/rand/v2"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Proportional waits a fixed fraction of the time the wait has lasted so
// far, between min and max (before a downward jitter of up to 10%). Since a job that finishes
// during a sleep is seen at the end of it, the lateness of detection stays
// under max(min, fraction × the job's duration): a 30-second job is seen
// within min, a two-hour review within 12 minutes (fraction 0.1) or at most
// max. Requests then grow with the logarithm of the job's duration instead
// of linearly as with a fixed interval.
//
// Delays are jittered downwards by up to 10%, so that waits started
// together spread out while the lateness bound still holds. It never stops
// by itself. A fraction of 0 or less counts as 0.1; a min of 0 or less as
// 1ms; a max below min as min.
//
// The elapsed time is the sum of the delays it has returned, so it works
// the same in virtual time; a wait with [WithInitialDelay] passes the
// initial delay as the starting point with [ProportionalFrom].
func Proportional(fraction float64, min, max time.Duration) Strategy {
	return ProportionalFrom(0, fraction, min, max)
}

// ProportionalFrom is [Proportional] for a wait whose first attempt comes
// after start (its [WithInitialDelay]), or whose job was already running
// for start when the wait began.
func ProportionalFrom(start time.Duration, fraction float64, min, max time.Duration) Strategy {
	if fraction <= 0 {
		fraction = 0.1
	}
	if min <= 0 {
		min = time.Millisecond
	}
	if max < min {
		max = min
	}
	return func() backoff.BackOff {
		return &proportional{start: start, elapsed: start, fraction: fraction, min: min, max: max}
	}
}

type proportional struct {
	start, elapsed time.Duration
	fraction       float64
	min, max       time.Duration
}

func (p *proportional) NextBackOff() time.Duration {
	bound := time.Duration(float64(p.elapsed) * p.fraction)
	bound = min(max(bound, p.min), p.max)
	d := time.Duration(float64(bound) * (1 - 0.1*rand.Float64()))
	p.elapsed += d
	return d
}

func (p *proportional) Reset() { p.elapsed = p.start }
