package poll_test

import (
	"context"
	"testing"

	"github.com/jobpoll/poll"
)

// countdown is a job that finishes on fetch number n. The fetch itself
// allocates nothing, so the benchmarks measure only the polling around it.
type countdown struct{ left int }

func (c *countdown) fetch(context.Context) (*countdown, error) {
	c.left--
	return c, nil
}

func countdownStatus(c *countdown) poll.Status {
	if c.left <= 0 {
		return poll.Status{State: poll.Succeeded, Raw: "done"}
	}
	return poll.Status{State: poll.Running, Raw: "running"}
}

// BenchmarkWaitPerAttempt runs one Wait of b.N attempts with zero delay:
// ns/op and allocs/op are the cost of one attempt of the poller.
func BenchmarkWaitPerAttempt(b *testing.B) {
	job := &countdown{left: b.N}
	p := poll.New(job.fetch, countdownStatus, poll.WithBackoff(poll.Constant(0)), poll.WithTimeout(0))
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := p.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWaitPerAttemptWithDeadline is the same with the default
// 10-minute timeout, which adds a deadline check per attempt.
func BenchmarkWaitPerAttemptWithDeadline(b *testing.B) {
	job := &countdown{left: b.N}
	p := poll.New(job.fetch, countdownStatus, poll.WithBackoff(poll.Constant(0)))
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := p.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHandWrittenLoop is the baseline: the same fetches and status
// checks in a bare loop.
func BenchmarkHandWrittenLoop(b *testing.B) {
	job := &countdown{left: b.N}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for {
		v, err := job.fetch(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if countdownStatus(v).State.Final() {
			return
		}
	}
}

// BenchmarkWaitShort measures a whole short wait (setup included): three
// attempts with the default options.
func BenchmarkWaitShort(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		job := &countdown{left: 3}
		p := poll.New(job.fetch, countdownStatus, poll.WithBackoff(poll.Constant(0)))
		if _, err := p.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
