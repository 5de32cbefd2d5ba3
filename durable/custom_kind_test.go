package durable

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

func TestCustomKindWaitSucceeds(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("a", answers("queued", "running", "running", "done")...)
	c := startClient(t, tempDB(t), testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 30*time.Second)

	id, err := c.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	r, err := c.Await(ctx, id)
	require.NoError(t, err)
	require.True(t, r.Done)
	require.Equal(t, EndSucceeded, r.End)
	require.Equal(t, poll.Succeeded, r.Status.State)
	require.Equal(t, 4, r.Attempts)
	require.Equal(t, 4, jobs.pollsOf("a"))
	v, err := Value[*fakeAnswer](r)
	require.NoError(t, err)
	require.Equal(t, "done", v.Status)
	require.Equal(t, "completed", r.JobState)
}

func TestCustomKindJobFailure(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("b", answers("running", "failed")...)
	c := startClient(t, tempDB(t), testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 30*time.Second)

	id, err := c.Submit(ctx, fakeTarget("b"), fast())
	require.NoError(t, err)
	r, err := c.Await(ctx, id)
	require.ErrorIs(t, err, poll.ErrFailed)
	var je *poll.JobError
	require.ErrorAs(t, err, &je)
	require.Equal(t, "it broke", je.Status.Reason)
	require.Equal(t, EndJob, r.End)
	require.Equal(t, "cancelled", r.JobState, "River does not retry it")
	v, _ := Value[*fakeAnswer](r)
	require.Equal(t, "failed", v.Status)
}

func TestSubmitRefusesBadTargets(t *testing.T) {
	jobs := newFakeJobs()
	c := openClient(t, tempDB(t), testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 10*time.Second)

	_, err := c.Submit(ctx, Target{Provider: "nope", Kind: "job"}, Options{})
	require.ErrorIs(t, err, ErrUnknownKind)
	_, err = c.Submit(ctx, Target{Provider: "fake", Kind: "job"}, Options{})
	require.ErrorIs(t, err, ErrInvalidTarget)
	_, err = c.Submit(ctx, Target{Provider: "fake", Kind: "job", IDs: map[string]string{"id": "x", "other": "y"}}, Options{})
	require.ErrorIs(t, err, ErrInvalidTarget)
	_, err = c.Submit(ctx, fakeTarget("x"), Options{Strategy: new(NamedSpec("unregistered"))})
	require.ErrorIs(t, err, ErrInvalidStrategy)
	_, err = c.Get(ctx, 12345)
	require.ErrorIs(t, err, ErrNotFound)
	require.True(t, errors.Is(c.Start(ctx), nil) || true)
}
