// Command many-jobs waits for 300 Ingestly runs at once with poll.Each:
// one shared request budget, a bound on requests in flight, and a line
// per finished run saying how many are done, failed and still pending.
// It runs against an in-process fake Ingestly: no network, no API key.
package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"
	"time"

	"golang.org/x/time/rate"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

const jobs = 300

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	client := srv.Client()

	// Runs of different lengths; one in ten fails, one in twenty is
	// cancelled, and the server throws a few 503s and 429s.
	r := rand.New(rand.NewPCG(1, 2))
	runs := make([]ingestly.TriggerResponse, jobs)
	pollers := make([]*poll.Poller[*ingestly.Run], jobs)
	for i := range runs {
		final := ingestly.RunCompleted
		switch n := r.IntN(20); {
		case n < 2:
			final = ingestly.RunFailed
		case n == 2:
			final = ingestly.RunCancelled
		}
		runs[i] = srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
			{Status: ingestly.RunQueued, For: time.Duration(r.IntN(300)) * time.Millisecond},
			{Status: ingestly.RunRunning, For: time.Duration(200+r.IntN(1800)) * time.Millisecond},
			{Status: final},
		}})
		pollers[i] = client.RunPoller(runs[i].DocumentID, runs[i].RunID,
			// Small delays for the demo; the default (RunBackoff) suits
			// real runs of seconds to hours.
			poll.WithBackoff(poll.Exponential(50*time.Millisecond, 400*time.Millisecond)),
			poll.WithTimeout(time.Minute))
	}
	srv.InjectFault(ingestlytest.RouteRun, 20, ingestlytest.Fault{Status: 503})
	srv.InjectFault(ingestlytest.RouteRun, 10, ingestlytest.Fault{Status: 429, RetryAfter: "0"})

	// One read budget for every wait (Ingestly counts polls against the
	// plan's read limit) and at most 16 requests at once.
	limiter := rate.NewLimiter(rate.Limit(800), 50)
	fmt.Printf("waiting for %d runs: at most 16 requests in flight, 800 requests/s shared\n", jobs)

	start := time.Now()
	done, failed := 0, 0
	for res := range poll.Each(ctx, pollers, poll.WithMaxInFlight(16), poll.WithSharedLimiter(limiter)) {
		outcome := "completed"
		if res.Err != nil {
			failed++
			outcome = res.Value.Status
			if res.Value.Error != nil {
				outcome += " (" + res.Value.Error.Code + ")"
			}
		} else {
			done++
		}
		if res.Err != nil || (done+failed)%25 == 0 {
			fmt.Printf("%6s  run %-4d %-28s done %3d  failed %3d  pending %3d\n",
				time.Since(start).Round(10*time.Millisecond), res.Index, outcome, done, failed, jobs-done-failed)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Printf("all %d runs ended in %v: %d completed, %d failed or cancelled, %d requests (%.1f per run)\n",
		jobs, time.Since(start).Round(10*time.Millisecond), done, failed,
		srv.Requests(ingestlytest.RouteRun), float64(srv.Requests(ingestlytest.RouteRun))/jobs)
	return nil
}
