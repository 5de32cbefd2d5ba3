package durable

import (
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

func TestConstantResumes(t *testing.T) {
	b, err := strategies{}.resume(ConstantSpec(3*time.Second), 1000, time.Hour)
	require.NoError(t, err)
	require.Equal(t, 3*time.Second, b.NextBackOff())
}

func TestExponentialResumesWhereItWas(t *testing.T) {
	spec := ExponentialSpec(time.Second, time.Minute)
	for steps, lo := range map[int]time.Duration{0: 800 * time.Millisecond, 3: 6400 * time.Millisecond, 10: 40 * time.Second, 5000: 40 * time.Second} {
		b, err := strategies{}.resume(spec, steps, 0)
		require.NoError(t, err)
		for range 20 {
			// Fresh jitter each time, within ±20% of the nominal delay
			// (capped: between 2/3 of the cap and the cap).
			d := b.NextBackOff()
			require.GreaterOrEqual(t, d, lo, "after %d steps", steps)
			require.LessOrEqual(t, d, time.Minute)
			b, _ = strategies{}.resume(spec, steps, 0)
		}
	}
}

func TestProportionalResumesFromTheTimeWaited(t *testing.T) {
	spec := ProportionalSpec(0.1, time.Second, time.Hour)
	b, err := strategies{}.resume(spec, 12, 100*time.Minute)
	require.NoError(t, err)
	d := b.NextBackOff()
	require.GreaterOrEqual(t, d, 9*time.Minute) // 10% of 100 min, jittered down by up to 10%
	require.LessOrEqual(t, d, 10*time.Minute)
}

// TestDefaultSpecMatchesCore pins the parameters this package keeps for
// poll.Default(), which the core does not export: every delay of the
// core's default must lie where Proportional(0.1, 10s, 10m) puts it.
func TestDefaultSpecMatchesCore(t *testing.T) {
	spec, err := strategies{}.normalize(DefaultSpec())
	require.NoError(t, err)
	require.Equal(t, ProportionalSpec(0.1, 10*time.Second, 10*time.Minute), spec)

	core := poll.Default()()
	var waited time.Duration
	for i := range 200 {
		bound := min(max(time.Duration(float64(waited)*defaultFraction), defaultMin), defaultMax)
		d := core.NextBackOff()
		require.LessOrEqual(t, d, bound, "step %d", i)
		require.GreaterOrEqual(t, d, time.Duration(float64(bound)*0.9)-time.Nanosecond, "step %d", i)
		waited += d
	}
}

func TestNamedStrategiesAreReplayed(t *testing.T) {
	calls := 0
	r := strategies{named: map[string]poll.Strategy{"count": func() backoff.BackOff { return backoffCounter{&calls} }}}
	b, err := r.resume(NamedSpec("count"), 7, 0)
	require.NoError(t, err)
	require.Equal(t, 7, calls)
	require.Equal(t, 8*time.Second, b.NextBackOff())

	_, err = r.resume(NamedSpec("nope"), 0, 0)
	require.ErrorIs(t, err, ErrInvalidStrategy)
	_, err = r.normalize(NamedSpec("nope"))
	require.ErrorIs(t, err, ErrInvalidStrategy)
	_, err = r.normalize(ConstantSpec(-time.Second))
	require.ErrorIs(t, err, ErrInvalidStrategy)
}

// backoffCounter gives 1s, 2s, 3s, ... and counts its calls.
type backoffCounter struct{ calls *int }

func (b backoffCounter) NextBackOff() time.Duration {
	*b.calls++
	return time.Duration(*b.calls) * time.Second
}
func (b backoffCounter) Reset() { *b.calls = 0 }
