package durable

import (
	"context"
	"errors"
	"time"

	"github.com/jobpoll/poll"
)

// Await waits until the wait ends and returns its outcome, from this
// process or any other sharing the database: the error is r.Err() (nil
// when the job succeeded; see [Result.Err]). Like poll's Wait it always
// returns the last Result read, with every error.
//
// It is a core poll.Poller whose fetch reads the wait's River row, so opts
// are poll options: by default it reads the row after 100 ms, then every
// tenth of the time it has awaited so far, at most every 5 s
// (poll.Proportional(0.1, 100ms, 5s)), with no deadline of its own (ctx
// bounds it); poll.WithTimeout gives it one (poll.ErrTimeout). In a
// process that works the wait, its end wakes Await at once.
func (c *Client) Await(ctx context.Context, id WaitID, opts ...poll.Option) (*Result, error) {
	wake, stop := c.hub.wake(id)
	defer stop()
	fetch := func(ctx context.Context) (*Result, error) { return c.Get(ctx, id) }
	defaults := []poll.Option{
		poll.WithBackoff(poll.Proportional(0.1, 100*time.Millisecond, 5*time.Second)),
		poll.WithTimeout(0),
		poll.WithRetryable(awaitRetryable),
		poll.WithWake(wake),
	}
	r, err := poll.New(fetch, watchStatus, append(defaults, opts...)...).Wait(ctx)
	if err != nil {
		return r, err
	}
	return r, r.Err()
}

// watchStatus maps a wait to the watcher's status: Succeeded once it
// ended, however it ended (Await then returns the wait's own error).
func watchStatus(r *Result) poll.Status {
	switch {
	case r == nil:
		return poll.Status{}
	case r.Done:
		return poll.Status{State: poll.Succeeded, Raw: r.JobState}
	case r.Attempts == 0:
		return poll.Status{State: poll.Queued, Raw: r.JobState}
	}
	return poll.Status{State: poll.Running, Raw: r.JobState, Progress: r.Status.Progress}
}

// awaitRetryable: reading the row fails for good only when the wait does
// not exist, the client was closed or ctx ended; database errors (a busy SQLite file, a dropped
// connection) are retried.
func awaitRetryable(err error) bool {
	return !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled)
}
