//go:build unix

package poll_test

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/jobpoll/poll"
)

// BenchmarkEach10kWaits runs 10,000 waits at once through Each, each
// finishing on its fifth poll, 20ms apart. While all of them sleep, a probe
// wait measures the heap and the goroutines. Reported per run: heap
// bytes per wait, goroutines, and CPU time (user+system) for the whole run.
func BenchmarkEach10kWaits(b *testing.B) {
	const waits = 10_000
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		goroutinesBefore := runtime.NumGoroutine()
		cpuBefore := cpuTime()

		pollers := make([]*poll.Poller[int], waits+1)
		for i := range waits {
			polls := 0
			pollers[i] = poll.New(func(context.Context) (int, error) {
				polls++
				return polls, nil
			}, func(n int) poll.Status {
				if n >= 5 {
					return poll.Status{State: poll.Succeeded}
				}
				return poll.Status{State: poll.Running}
			}, poll.WithBackoff(poll.Constant(20*time.Millisecond)))
		}
		var heap uint64
		var goroutines int
		pollers[waits] = poll.New(func(context.Context) (int, error) {
			runtime.GC()
			var during runtime.MemStats
			runtime.ReadMemStats(&during)
			heap = during.HeapAlloc - before.HeapAlloc
			goroutines = runtime.NumGoroutine() - goroutinesBefore
			return 0, nil
		}, func(int) poll.Status { return poll.Status{State: poll.Succeeded} }, poll.WithInitialDelay(30*time.Millisecond))

		if _, err := poll.WaitAll(context.Background(), pollers); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(heap)/waits, "heap-B/wait")
		b.ReportMetric(float64(goroutines), "goroutines")
		b.ReportMetric((cpuTime() - cpuBefore).Seconds(), "cpu-s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
