// Package poll waits for asynchronous jobs to finish: the API answered
// "accepted, come back later", and something has to come back.
//
// A [Poller] calls a [Fetch] to observe the job, maps each observation to a
// [Status] in one common model ([Queued], [Running], [Waiting], then a final
// [Succeeded], [Failed], [Canceled], [InputRequired] or [PartiallyFailed]),
// and sleeps between attempts as a [Strategy] says:
//
//	p := poll.New(
//		func(ctx context.Context) (*Job, error) { return api.Get(ctx, id) },
//		func(j *Job) poll.Status { return poll.Status{State: mapState(j.State), Raw: j.State} },
//		poll.WithTimeout(5*time.Minute),
//	)
//	job, err := p.Wait(ctx)
//
// The rules of a wait, each pinned by a test:
//
//   - The first attempt runs at once, unless [WithInitialDelay].
//   - The next delay is the strategy's, raised (never lowered) to
//     [Status.RetryAfter] or to a server delay carried by the error
//     ([RetryAfter], [APIError.RetryAfter]).
//   - A wait never sleeps past its deadline: a delay that would cross it,
//     or end so close to it that a fetch could not answer in time, is
//     shortened so that one last attempt runs just before the deadline (one
//     second before it, or the attempt timeout if set, but never more than
//     half of the time left); then Wait returns [ErrTimeout]. A wake
//     (WithWake) during that last sleep makes the attempt it brings forward
//     an ordinary one.
//   - The context is checked after every sleep, so cancellation wins over a
//     timer that fired at the same moment. A canceled ctx ends the wait at
//     once with context.Canceled; ctx's deadline gives [ErrTimeout] that
//     also matches context.DeadlineExceeded.
//   - Transient fetch errors ([Transient]: network errors, timeouts, 408,
//     425, 429, 5xx) are retried with the same strategy; any other error
//     ends the wait at once, wrapped so that errors.Is and errors.As reach
//     it.
//   - Wait always returns the last value observed, with every error.
//   - No goroutine outlives Wait: the whole wait runs on the caller's
//     goroutine.
package poll
