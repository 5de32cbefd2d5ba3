package sim

import (
	"slices"
	"time"
)

// Job is one simulated job: how long it ran, how many requests the wait
// made, and how late after it finished the wait saw it.
type Job struct {
	Duration time.Duration
	Requests int
	Late     time.Duration
}

// Stats summarises a strategy on a workload.
type Stats struct {
	Jobs         int
	Requests     float64       // mean requests per job
	LateMean     time.Duration // mean detection delay
	LateP95      time.Duration // 95th percentile of the detection delay
	RelativeP95  float64       // 95th percentile of delay / job duration
	WithinTarget float64       // share of jobs seen within Allowed(duration)
}

// Summarize computes Stats over jobs. An empty slice gives zero Stats
// rather than a division by zero.
func Summarize(jobs []Job) Stats {
	n := len(jobs)
	if n == 0 {
		return Stats{}
	}
	lates := make([]time.Duration, n)
	relative := make([]float64, n)
	var requests int
	var lateSum time.Duration
	within := 0
	for i, j := range jobs {
		requests += j.Requests
		lateSum += j.Late
		lates[i] = j.Late
		if j.Duration > 0 {
			relative[i] = float64(j.Late) / float64(j.Duration)
		}
		if j.Late <= Allowed(j.Duration) {
			within++
		}
	}
	slices.Sort(lates)
	slices.Sort(relative)
	return Stats{
		Jobs:         n,
		Requests:     float64(requests) / float64(n),
		LateMean:     lateSum / time.Duration(n),
		LateP95:      lates[percentileIndex(n, 0.95)],
		RelativeP95:  relative[percentileIndex(n, 0.95)],
		WithinTarget: float64(within) / float64(n),
	}
}

func percentileIndex(n int, p float64) int {
	return min(n-1, int(float64(n)*p))
}
