package narada

import (
	"context"
	"fmt"
	"time"

	"github.com/jobpoll/poll"
)

// Defaults of the task waits. Options passed to a helper come after them,
// so the caller's win.
const (
	// DefaultTaskTimeout bounds [Client.WaitForTask] and [Client.Run].
	// Browser tasks take about 45 s at the median and 3 min at the 95th
	// percentile; 15 minutes is five times that p95, so a slow task is not
	// cut off, while a task that never leaves pending (a browser window
	// closed mid-task) does not hold the caller for long. Waits through
	// input-required, where a person must act, usually want a longer one.
	DefaultTaskTimeout = 15 * time.Minute
	// TaskFirstPoll is how long the task waits sleep before their first
	// poll: the task was just dispatched, and fewer than 4% of tasks end
	// within 10 s (for durations spread as above), so an immediate poll
	// would almost always say "pending".
	// A webhook (WithWebhooks) cuts this sleep short like any other.
	TaskFirstPoll = 10 * time.Second
)

// TaskBackoff is the default strategy of the task waits: the first poll
// after [TaskFirstPoll], then poll.ProportionalFrom(TaskFirstPoll, 0.1,
// 10s, 1min), i.e. every 10% of the time waited so far, at least 10 s
// (the upper end of the 5-10 s Narada recommends) and at most a minute.
//
// Why: tasks take about 45 s at the median and 3 min at p95. Polling in
// proportion to the time waited sees a finished task at most max(10 s,
// 10% of its duration) late while the requests grow with the logarithm of
// the duration. Simulated on that workload (internal/sim, 4,000 tasks) it
// makes 6.7 requests per task where the docs' fixed 5 s loop makes 14.1
// (0.47 times), sees tasks 5.2 s late on average (p95 9.8 s), and every
// task within the bound. The minute cap keeps a long wait through
// input-required responsive once a person has answered. The delays are
// jittered, so tasks dispatched together do not poll in lockstep.
func TaskBackoff() poll.Strategy {
	return poll.ProportionalFrom(TaskFirstPoll, 0.1, 10*time.Second, time.Minute)
}

// taskDefaults are the provider's options; the caller's come after them and
// win.
func taskDefaults() []poll.Option {
	return []poll.Option{
		poll.WithInitialDelay(TaskFirstPoll),
		poll.WithBackoff(TaskBackoff()),
		poll.WithTimeout(DefaultTaskTimeout),
	}
}

// taskStatusFunc is the mapping this client uses: input-required is final
// unless WithWaitThroughInputRequired was given.
func (c *Client) taskStatusFunc() func(*TaskResponse) poll.Status {
	if c.waitThroughInput {
		return TaskStatusWaitThroughInputRequired
	}
	return TaskStatus
}

// TaskPoller returns a poller for the task, with [TaskFirstPoll],
// [TaskBackoff] and [DefaultTaskTimeout] as defaults that opts override
// (poll.WithInitialDelay(0) polls at once). Unlike WaitForTask
// it does not subscribe to the client's [Webhooks]: pass
// poll.WithWake(ch) with a channel from [Webhooks.Wake] yourself.
func (c *Client) TaskPoller(requestID string, opts ...poll.Option) *poll.Poller[*TaskResponse] {
	fetch := func(ctx context.Context) (*TaskResponse, error) { return c.Task(ctx, requestID) }
	return poll.New(fetch, c.taskStatusFunc(), append(taskDefaults(), opts...)...)
}

// WaitForTask polls the task until it reaches a final state: success (nil
// error), error (poll.ErrFailed), input-required (poll.ErrInputRequired,
// unless WithWaitThroughInputRequired), the timeout ([DefaultTaskTimeout]
// unless opts say otherwise; poll.ErrTimeout) or a permanent error (such as
// a 401 or 404). It returns the last response observed with every error, or
// nil if none was. Defaults: [TaskFirstPoll], [TaskBackoff],
// [DefaultTaskTimeout]; opts win.
//
// With [WithWebhooks], a webhook for this task wakes the wait at once.
func (c *Client) WaitForTask(ctx context.Context, requestID string, opts ...poll.Option) (*TaskResponse, error) {
	if err := checkRequestID(requestID); err != nil {
		return nil, err
	}
	if c.webhooks != nil {
		wake, stop := c.webhooks.Wake(requestID)
		defer stop()
		// Before the caller's options, so the caller's own WithWake wins.
		opts = append([]poll.Option{poll.WithWake(wake)}, opts...)
	}
	return c.TaskPoller(requestID, opts...).Wait(ctx)
}

// Run dispatches the task and waits for it: [Client.Dispatch] then
// [Client.WaitForTask] with opts.
//
// The dispatch is NEVER retried (the API has no idempotency key: a retry
// could run the task twice); a dispatch error returns (nil, err). Once the
// task is dispatched, Run always returns a non-nil *TaskResponse whose
// RequestID names the task, even when the wait fails, so the caller can
// look at it again later with Task or WaitForTask; the error then names the
// request id and wraps the wait's error (errors.Is works as for
// WaitForTask).
func (c *Client) Run(ctx context.Context, req DispatchRequest, opts ...poll.Option) (*TaskResponse, error) {
	d, err := c.Dispatch(ctx, req)
	if err != nil {
		return nil, err
	}
	t, err := c.WaitForTask(ctx, d.RequestID, opts...)
	if t == nil {
		t = &TaskResponse{RequestID: d.RequestID}
	}
	if err != nil {
		return t, fmt.Errorf("narada: task %s: %w", d.RequestID, err)
	}
	return t, nil
}
