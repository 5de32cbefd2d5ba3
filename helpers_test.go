package poll_test

import (
	"context"
	"time"

	"github.com/jobpoll/poll"
)

// observation is what the scripted job returns: which attempt produced it
// and the status it shows.
type observation struct {
	n  int
	st poll.Status
}

func statusOf(o observation) poll.Status { return o.st }

var (
	pending   = poll.Status{State: poll.Running, Raw: "pending"}
	succeeded = poll.Status{State: poll.Succeeded, Raw: "completed"}
)

// script is a fake job: step says what attempt n (from 1) sees, and every
// attempt's time since the script started is recorded. Tests create it
// inside a synctest bubble, so the times are virtual and exact.
type script struct {
	start time.Time
	at    []time.Duration
	step  func(ctx context.Context, n int) (poll.Status, error)
}

func newScript(step func(ctx context.Context, n int) (poll.Status, error)) *script {
	return &script{start: time.Now(), step: step}
}

func (s *script) fetch(ctx context.Context) (observation, error) {
	s.at = append(s.at, time.Since(s.start))
	n := len(s.at)
	st, err := s.step(ctx, n)
	if err != nil {
		return observation{n: n}, err
	}
	return observation{n: n, st: st}, nil
}

func (s *script) poller(opts ...poll.Option) *poll.Poller[observation] {
	return poll.New(s.fetch, statusOf, opts...)
}

// finishesAt shows pending until attempt n, which shows final.
func finishesAt(n int, final poll.Status) func(context.Context, int) (poll.Status, error) {
	return func(_ context.Context, i int) (poll.Status, error) {
		if i >= n {
			return final, nil
		}
		return pending, nil
	}
}

func never(context.Context, int) (poll.Status, error) { return pending, nil }

func seconds(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}
