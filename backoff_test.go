package poll_test

import (
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

func TestConstant(t *testing.T) {
	for _, d := range []time.Duration{0, time.Millisecond, 10 * time.Second} {
		b := poll.Constant(d)()
		for range 100 {
			require.Equal(t, d, b.NextBackOff())
		}
	}
	assert.Equal(t, time.Duration(0), poll.Constant(-time.Second)().NextBackOff(), "negative counts as 0")
}

func TestExponential(t *testing.T) {
	tests := []struct {
		initial, max time.Duration
	}{
		{time.Second, time.Minute},
		{5 * time.Second, 60 * time.Second},
		{time.Millisecond, 10 * time.Millisecond},
		{time.Minute, time.Minute},
		{50 * time.Second, time.Minute}, // initial above max/1.2
		{time.Hour, time.Minute},        // max below initial counts as initial
	}
	for _, tt := range tests {
		t.Run(tt.initial.String()+".."+tt.max.String(), func(t *testing.T) {
			ceiling := max(tt.max, tt.initial)
			for range 200 {
				b := poll.Exponential(tt.initial, tt.max)()
				for i := range 40 {
					d := b.NextBackOff()
					require.NotEqual(t, backoff.Stop, d, "attempt %d: Exponential never stops by itself", i)
					require.LessOrEqual(t, d, ceiling, "attempt %d: no delay above max, even after jitter", i)
					require.Positive(t, d)
				}
			}
		})
	}
}

func TestExponentialGrowsByTwoWithJitter(t *testing.T) {
	const runs = 2000
	initial := time.Second
	sums := make([]float64, 6)
	firsts := map[time.Duration]bool{}
	for range runs {
		b := poll.Exponential(initial, time.Hour)()
		for i := range sums {
			d := b.NextBackOff()
			if i == 0 {
				firsts[d] = true
				// ±20% jitter around the initial delay.
				require.GreaterOrEqual(t, d, 800*time.Millisecond)
				require.LessOrEqual(t, d, 1200*time.Millisecond)
			}
			sums[i] += d.Seconds()
		}
	}
	for i := 1; i < len(sums); i++ {
		ratio := sums[i] / sums[i-1]
		assert.InDelta(t, 2.0, ratio, 0.1, "mean delay %d over mean delay %d", i, i-1)
	}
	assert.Greater(t, len(firsts), runs/2, "delays are jittered, not identical")
}

func TestExponentialAtTheCapStaysSpread(t *testing.T) {
	b := poll.Exponential(time.Second, time.Minute)()
	for range 20 {
		b.NextBackOff() // reach the cap
	}
	atMax, lowest := 0, time.Minute
	for range 1000 {
		d := b.NextBackOff()
		if d == time.Minute {
			atMax++
		}
		lowest = min(lowest, d)
	}
	assert.Less(t, atMax, 50, "capped delays do not pile up on exactly max")
	assert.GreaterOrEqual(t, lowest, 40*time.Second, "capped delays stay within 2/3 of max")
}

func TestStrategiesAreFreshPerWait(t *testing.T) {
	s := poll.Exponential(time.Second, time.Hour)
	a := s()
	for range 10 {
		a.NextBackOff()
	}
	first := s().NextBackOff()
	assert.LessOrEqual(t, first, 1200*time.Millisecond, "a new BackOff starts from the initial delay")
}

func TestDefault(t *testing.T) {
	b := poll.Default()()
	var elapsed time.Duration
	for i := range 200 {
		d := b.NextBackOff()
		require.NotEqual(t, backoff.Stop, d)
		bound := min(max(10*time.Second, elapsed/10), 10*time.Minute)
		require.LessOrEqual(t, d, bound, "delay %d after %v", i, elapsed)
		require.GreaterOrEqual(t, d, bound*9/10, "delay %d after %v", i, elapsed)
		elapsed += d
	}
}

func TestProportional(t *testing.T) {
	tests := []struct {
		name          string
		s             poll.Strategy
		start         time.Duration
		fraction      float64
		lowest, ceil  time.Duration
		wantFirstHigh time.Duration
	}{
		{"10% from zero", poll.Proportional(0.1, 10*time.Second, 10*time.Minute), 0, 0.1, 10 * time.Second, 10 * time.Minute, 10 * time.Second},
		{"25% from zero", poll.Proportional(0.25, time.Second, time.Minute), 0, 0.25, time.Second, time.Minute, time.Second},
		{"from an initial delay", poll.ProportionalFrom(time.Hour, 0.1, 10*time.Second, 10*time.Minute), time.Hour, 0.1, 10 * time.Second, 10 * time.Minute, 6 * time.Minute},
		{"bad arguments are corrected", poll.Proportional(-1, -time.Second, -time.Minute), 0, 0.1, time.Millisecond, time.Millisecond, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.s()
			elapsed := tt.start
			for i := range 300 {
				d := b.NextBackOff()
				bound := min(max(tt.lowest, time.Duration(float64(elapsed)*tt.fraction)), tt.ceil)
				if i == 0 {
					assert.Equal(t, tt.wantFirstHigh, bound)
				}
				require.LessOrEqual(t, d, bound, "delay %d never above the bound: the lateness guarantee", i)
				require.GreaterOrEqual(t, d, bound*9/10, "delay %d jittered by at most 10%%", i)
				elapsed += d
			}
			b.Reset()
			assert.LessOrEqual(t, b.NextBackOff(), tt.wantFirstHigh, "Reset starts again")
		})
	}
}
