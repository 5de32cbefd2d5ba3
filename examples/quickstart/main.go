// Command quickstart waits for a simulated in-process job with the core
// poll package and prints every attempt: no network, no API key.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/jobpoll/poll"
)

// job is a stand-in for a remote job: queued for a moment, running for a
// couple of seconds with growing progress, then done.
type job struct {
	started time.Time
	length  time.Duration
}

type snapshot struct {
	State    string
	Progress float64
	Result   string
}

func (j *job) get(context.Context) (snapshot, error) {
	elapsed := time.Since(j.started)
	switch {
	case elapsed < 400*time.Millisecond:
		return snapshot{State: "queued"}, nil
	case elapsed < j.length:
		return snapshot{State: "running", Progress: float64(elapsed) / float64(j.length)}, nil
	}
	return snapshot{State: "done", Progress: 1, Result: "3 invoices extracted"}, nil
}

func status(s snapshot) poll.Status {
	states := map[string]poll.State{"queued": poll.Queued, "running": poll.Running, "done": poll.Succeeded}
	return poll.Status{State: states[s.State], Raw: s.State, Progress: s.Progress}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	j := &job{started: time.Now(), length: 2500 * time.Millisecond}
	p := poll.New(j.get, status,
		poll.WithTimeout(30*time.Second),
		poll.WithBackoff(poll.Exponential(200*time.Millisecond, time.Second)),
		poll.WithNotify(func(a poll.Attempt) {
			change := ""
			if a.Changed {
				change = "  <- state changed"
			}
			fmt.Printf("attempt %2d  %6s  %-9s %3.0f%%  next poll in %v%s\n",
				a.N, a.Elapsed.Round(10*time.Millisecond), a.Status.State, a.Status.Progress*100,
				a.Next.Round(10*time.Millisecond), change)
		}),
	)
	result, err := p.Wait(ctx)
	if err != nil {
		log.Fatalf("wait: %v", err)
	}
	fmt.Printf("done: %s\n", result.Result)
}
