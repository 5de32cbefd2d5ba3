package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/narada"
)

// The help and the first progress line describe each provider's schedule
// in words; these tests keep the words true when a provider retunes it.

func TestPollingTextMatchesTheStrategies(t *testing.T) {
	t.Parallel()
	between := regexp.MustCompile(`between (\S+) and (\S+)$`)
	for _, tt := range []struct {
		name     string
		text     string
		strategy poll.Strategy
	}{
		{"wait narada", waitNaradaDefaults.polling, narada.TaskBackoff()},
		{"run narada", runNaradaDefaults.polling, narada.TaskBackoff()},
		{"documind review", waitReviewCmd.defaults.polling, documind.ReviewBackoff()},
		{"documind batch", waitBatchCmd.defaults.polling, documind.BatchBackoff()},
		{"ingestly run", waitRunCmd.defaults.polling, ingestly.RunBackoff()},
	} {
		m := between.FindStringSubmatch(tt.text)
		require.Len(t, m, 3, "%s: %q", tt.name, tt.text)
		lo, err := time.ParseDuration(m[1])
		require.NoError(t, err)
		hi, err := time.ParseDuration(m[2])
		require.NoError(t, err)

		b := tt.strategy()
		b.Reset()
		least, most := time.Duration(1<<62), time.Duration(0)
		for range 500 {
			d := b.NextBackOff()
			least, most = min(least, d), max(most, d)
		}
		// The strategies jitter their delays down by up to 10%.
		assert.InDelta(t, float64(lo), float64(least), 0.1*float64(lo), "%s: shortest delay", tt.name)
		assert.InDelta(t, float64(hi), float64(most), 0.1*float64(hi), "%s: longest delay", tt.name)
		assert.LessOrEqual(t, most, hi, tt.name)
	}
}

func TestDefaultsMatchTheProviders(t *testing.T) {
	t.Parallel()
	assert.Equal(t, narada.DefaultTaskTimeout, waitNaradaCmd.defaults.timeout)
	assert.Equal(t, narada.DefaultTaskTimeout, runNaradaCmd.defaults.timeout)
	assert.Contains(t, runNaradaDefaults.polling, human(narada.TaskFirstPoll)+" after the dispatch")
	assert.Equal(t, documind.ReviewTimeout, waitReviewCmd.defaults.timeout)
	assert.Equal(t, documind.BatchTimeout, waitBatchCmd.defaults.timeout)
	assert.Equal(t, documind.BatchStallTimeout, waitBatchCmd.defaults.stall)
	assert.Equal(t, ingestly.DefaultRunTimeout, waitRunCmd.defaults.timeout)
	assert.Equal(t, ingestly.DefaultRunTimeout, triggerIngestlyCmd.defaults.timeout)
}
