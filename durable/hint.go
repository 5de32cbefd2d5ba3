package durable

import (
	"context"
	"time"

	"github.com/jobpoll/poll"
)

// serverDelay is the delay the server hints in a fetch error's chain ask
// for: an *poll.APIError's RetryAfter or a poll.RetryAfter mark, the
// largest of them; 0 when there is none.
//
// The core keeps that rule to itself (poll.RetryAfter's delay is
// unexported), so it is asked for it: a one-attempt wait whose fetch fails
// with err, with a zero strategy, reports in Attempt.Next the strategy's 0
// raised to the hint. The wait is then cancelled before its second
// attempt; it runs on this goroutine and leaves none behind.
func serverDelay(err error) time.Duration {
	if err == nil {
		return 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var next time.Duration
	p := poll.New(
		func(context.Context) (struct{}, error) { return struct{}{}, err },
		func(struct{}) poll.Status { return poll.Status{} },
		poll.WithBackoff(poll.Constant(0)),
		poll.WithTimeout(0),
		poll.WithRetryable(func(error) bool { return true }),
		poll.WithNotify(func(a poll.Attempt) {
			if a.N == 1 {
				next = a.Next
				cancel()
			}
		}),
	)
	_, _ = p.Wait(ctx)
	return next
}
