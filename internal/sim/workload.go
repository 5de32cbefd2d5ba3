// Package sim replays job-duration workloads against polling strategies
// and measures what each costs (requests per job) and what it gives
// (how late a finished job is seen). The runner lives in sim_test.go, where
// testing/synctest gives the real Poller virtual time: no real sleeping.
package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Workload is a population of job durations, drawn from what a provider's
// docs say about its jobs.
type Workload struct {
	Name string
	// Baseline is the interval of the docs' own fixed-interval sample loop.
	Baseline time.Duration
	// Sample draws one job duration.
	Sample func(r *rand.Rand) time.Duration
}

// logNormal draws durations whose median and 95th percentile are given.
func logNormal(median, p95 time.Duration) func(r *rand.Rand) time.Duration {
	sigma := math.Log(float64(p95)/float64(median)) / 1.6448536269514722
	return func(r *rand.Rand) time.Duration {
		return time.Duration(float64(median) * math.Exp(sigma*r.NormFloat64()))
	}
}

// mixture draws from a with probability pa, else from b.
func mixture(pa float64, a, b func(r *rand.Rand) time.Duration) func(r *rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration {
		if r.Float64() < pa {
			return a(r)
		}
		return b(r)
	}
}

// Workloads are the four the benchmarks use. Where the docs give no 95th
// percentile, the spread is a guess written next to it.
func Workloads() []Workload {
	return []Workload{
		// Narada's docs poll every 5 s; tasks take ~45 s, p95 ~3 min.
		{Name: "narada task", Baseline: 5 * time.Second, Sample: logNormal(45*time.Second, 3*time.Minute)},
		// Documind's review loop polls every 10 s; a person reviews:
		// median 8 min, p95 about 1 h.
		{Name: "documind review", Baseline: 10 * time.Second, Sample: logNormal(8*time.Minute, time.Hour)},
		// Ingestly says "poll every few seconds": 5 s. 70% of runs are
		// automated (median 20 s, p95 guessed at 1 min); 30% go through a
		// review (median 2 h, p95 guessed at 8 h).
		{Name: "ingestly run", Baseline: 5 * time.Second, Sample: mixture(0.7,
			logNormal(20*time.Second, time.Minute), logNormal(2*time.Hour, 8*time.Hour))},
		// Documind's batch sample sleeps 10 s; median 90 s, p95 ~10 min.
		{Name: "documind batch", Baseline: 10 * time.Second, Sample: logNormal(90*time.Second, 10*time.Minute)},
	}
}

// Allowed is the lateness target for a job of duration d: max(10 s, 10% of d).
func Allowed(d time.Duration) time.Duration {
	return max(10*time.Second, d/10)
}
