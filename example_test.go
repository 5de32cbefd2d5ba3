package poll_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/jobpoll/poll"
)

// Job is what a job API answers when asked about a job.
type Job struct {
	ID     string
	State  string
	Result string
}

// fakeJobAPI returns a fetch for a job that reports "queued", then
// "running", then finishes with the given state.
func fakeJobAPI(final string) poll.Fetch[*Job] {
	polls := 0
	return func(ctx context.Context) (*Job, error) {
		polls++
		switch {
		case polls == 1:
			return &Job{ID: "job-1", State: "queued"}, nil
		case polls < 4:
			return &Job{ID: "job-1", State: "running"}, nil
		}
		return &Job{ID: "job-1", State: final, Result: "42 rows"}, nil
	}
}

// jobStatus maps the API's words onto the common model.
func jobStatus(j *Job) poll.Status {
	states := map[string]poll.State{
		"queued": poll.Queued, "running": poll.Running,
		"done": poll.Succeeded, "error": poll.Failed, "cancelled": poll.Canceled,
	}
	return poll.Status{State: states[j.State], Raw: j.State}
}

func Example() {
	p := poll.New(fakeJobAPI("done"), jobStatus,
		poll.WithTimeout(time.Minute),
		poll.WithBackoff(poll.Constant(time.Millisecond)), // tiny for the example
	)
	job, err := p.Wait(context.Background())
	if err != nil {
		fmt.Println("wait failed:", err)
		return
	}
	fmt.Println(job.State, job.Result)
	// Output: done 42 rows
}

func ExamplePoller_Poll() {
	p := poll.New(fakeJobAPI("done"), jobStatus)
	_, status, err := p.Poll(context.Background())
	fmt.Println(status.State, status.State.Final(), err)
	// Output: queued false <nil>
}

func ExampleWithNotify() {
	p := poll.New(fakeJobAPI("done"), jobStatus,
		poll.WithBackoff(poll.Constant(time.Millisecond)),
		poll.WithNotify(func(a poll.Attempt) {
			if a.Changed {
				fmt.Printf("attempt %d: %s\n", a.N, a.Status.State)
			}
		}),
	)
	_, _ = p.Wait(context.Background())
	// Output:
	// attempt 1: queued
	// attempt 2: running
	// attempt 4: succeeded
}

func ExampleWithBackoff() {
	// Any cenkalti/backoff/v4 policy works; a fresh one is made per wait.
	threeTries := func() backoff.BackOff {
		return backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Millisecond), 2)
	}
	p := poll.New(fakeJobAPI("done"), jobStatus, poll.WithBackoff(threeTries))
	job, err := p.Wait(context.Background())
	fmt.Println(errors.Is(err, poll.ErrExhausted), job.State)
	// Output: true running
}

func ExampleExponential() {
	// Nominal delays 2s, 4s, 8s, 16s, then the 30s cap; each is jittered
	// by ±20%, and no delay is ever above 30s.
	b := poll.Exponential(2*time.Second, 30*time.Second)()
	bounds := [][2]time.Duration{
		{1600 * time.Millisecond, 2400 * time.Millisecond},
		{3200 * time.Millisecond, 4800 * time.Millisecond},
		{6400 * time.Millisecond, 9600 * time.Millisecond},
		{12800 * time.Millisecond, 19200 * time.Millisecond},
		{20 * time.Second, 30 * time.Second},
		{20 * time.Second, 30 * time.Second},
	}
	for i, bound := range bounds {
		d := b.NextBackOff()
		fmt.Printf("delay %d within %v..%v: %t\n", i+1, bound[0], bound[1], d >= bound[0] && d <= bound[1])
	}
	// Output:
	// delay 1 within 1.6s..2.4s: true
	// delay 2 within 3.2s..4.8s: true
	// delay 3 within 6.4s..9.6s: true
	// delay 4 within 12.8s..19.2s: true
	// delay 5 within 20s..30s: true
	// delay 6 within 20s..30s: true
}

// Each way a wait can end, and how to tell them apart.
func ExamplePoller_Wait_errors() {
	handle := func(job *Job, err error) {
		var jobErr *poll.JobError
		var apiErr *poll.APIError
		switch {
		case err == nil:
			fmt.Println("succeeded:", job.Result)
		case errors.As(err, &jobErr):
			// Failed, Canceled, InputRequired or PartiallyFailed: the job
			// ended, and job holds its last observation.
			fmt.Println("job ended:", jobErr.Status.State, errors.Is(err, poll.ErrCanceled))
		case errors.Is(err, poll.ErrTimeout), errors.Is(err, poll.ErrStalled):
			fmt.Println("gave up waiting; last seen:", job.State)
		case errors.Is(err, context.Canceled):
			fmt.Println("we were told to stop")
		case errors.As(err, &apiErr):
			fmt.Println("the API refused:", apiErr.StatusCode)
		default:
			fmt.Println("other:", err)
		}
	}
	fast := poll.WithBackoff(poll.Constant(time.Millisecond))

	handle(poll.New(fakeJobAPI("done"), jobStatus, fast).Wait(context.Background()))
	handle(poll.New(fakeJobAPI("cancelled"), jobStatus, fast).Wait(context.Background()))
	handle(poll.New(fakeJobAPI("running"), jobStatus, fast, poll.WithTimeout(20*time.Millisecond)).Wait(context.Background()))

	forbidden := func(ctx context.Context) (*Job, error) {
		return nil, &poll.APIError{StatusCode: http.StatusForbidden, Message: "wrong scope"}
	}
	handle(poll.New(forbidden, jobStatus).Wait(context.Background()))
	// Output:
	// succeeded: 42 rows
	// job ended: canceled true
	// gave up waiting; last seen: running
	// the API refused: 403
}
