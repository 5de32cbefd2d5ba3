package durable

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

// countingLimiter lets every attempt through and counts them, or refuses
// with err.
type countingLimiter struct {
	calls atomic.Int32
	err   error
}

func (l *countingLimiter) Wait(context.Context) error {
	l.calls.Add(1)
	return l.err
}

func TestLimiterIsConsultedBeforeEveryAttempt(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("a", answers("running", "running", "done")...)
	lim := &countingLimiter{}
	cfg := testConfig(t, jobs.kind(Options{}))
	cfg.Limiter = lim
	c := startClient(t, tempDB(t), cfg)
	ctx := testCtx(t, 30*time.Second)
	id, err := c.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	r, err := c.Await(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 3, r.Attempts)
	require.EqualValues(t, 3, lim.calls.Load())
}

func TestLimiterRefusingPastTheDeadlineEndsTheWait(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("a", answers("running")...)
	cfg := testConfig(t, jobs.kind(Options{}))
	cfg.Limiter = &countingLimiter{err: errors.New("rate: Wait(n=1) would exceed context deadline")}
	c := startClient(t, tempDB(t), cfg)
	ctx := testCtx(t, 30*time.Second)
	id, err := c.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	r, err := c.Await(ctx, id)
	require.ErrorIs(t, err, poll.ErrTimeout)
	require.Zero(t, r.Attempts, "a refusal is not an attempt")
	require.Zero(t, jobs.pollsOf("a"))
}
