package durable

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSubmitIsIdempotentPerTarget(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("a", answers("running", "running", "done")...)
	jobs.add("b", answers("done")...)
	dsn := tempDB(t)
	c := startClient(t, dsn, testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 30*time.Second)

	first, err := c.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	again, err := c.Submit(ctx, fakeTarget("a"), Options{Timeout: time.Hour})
	require.NoError(t, err)
	require.Equal(t, first, again, "same target, same wait, whatever the options")

	// Another process on the same file gets the same wait too.
	other := openClient(t, dsn, testConfig(t, jobs.kind(Options{})))
	fromOther, err := other.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	require.Equal(t, first, fromOther)

	b, err := c.Submit(ctx, fakeTarget("b"), fast())
	require.NoError(t, err)
	require.NotEqual(t, first, b)

	r, err := other.Await(ctx, first)
	require.NoError(t, err)
	require.Equal(t, 3, r.Attempts)

	// An ended wait still answers for its target: no second wait, no
	// more polls.
	after, err := c.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	require.Equal(t, first, after)
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, 3, jobs.pollsOf("a"), "the job was polled by one wait only")
}

func TestSubscribeDeliversEachOutcomeOnce(t *testing.T) {
	jobs := newFakeJobs()
	c := startClient(t, tempDB(t), testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 60*time.Second)
	outcomes, cancel := c.Subscribe()
	defer cancel()

	const n = 20
	want := map[WaitID]bool{}
	for i := range n {
		id := fmtID("s", i)
		if i%4 == 0 {
			jobs.add(id, answers("running", "failed")...)
		} else {
			jobs.add(id, answers("running", "done")...)
		}
		wid, err := c.Submit(ctx, fakeTarget(id), fast())
		require.NoError(t, err)
		want[wid] = i%4 == 0
	}
	seen := map[WaitID]int{}
	for len(seen) < n {
		select {
		case r := <-outcomes:
			seen[r.ID]++
			require.True(t, r.Done)
			failed, ok := want[r.ID]
			require.True(t, ok)
			if failed {
				require.Equal(t, EndJob, r.End)
				require.Error(t, r.Err())
			} else {
				require.NoError(t, r.Err())
			}
		case <-ctx.Done():
			t.Fatalf("only %d of %d outcomes arrived", len(seen), n)
		}
	}
	select {
	case r := <-outcomes:
		t.Fatalf("an outcome arrived twice: wait %s", r.ID)
	case <-time.After(300 * time.Millisecond):
	}
	for id, times := range seen {
		require.Equal(t, 1, times, "wait %s", id)
	}
}

func TestCancelEndsAWaitWithoutOutcome(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("slow", answers("running")...)
	c := startClient(t, tempDB(t), testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 30*time.Second)
	outcomes, cancel := c.Subscribe()
	defer cancel()

	id, err := c.Submit(ctx, fakeTarget("slow"), Options{Strategy: new(ConstantSpec(time.Hour))})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return jobs.pollsOf("slow") == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		r, err := c.Get(ctx, id)
		return err == nil && r.JobState == "scheduled"
	}, 10*time.Second, 10*time.Millisecond)

	require.NoError(t, c.Cancel(ctx, id))
	r, err := c.Await(ctx, id)
	require.ErrorIs(t, err, ErrWaitCanceled)
	require.Contains(t, err.Error(), "after 1 attempt; last status running")
	require.True(t, r.Done)
	got := <-outcomes
	require.Equal(t, id, got.ID)
	require.ErrorIs(t, got.Err(), ErrWaitCanceled)
	require.ErrorIs(t, c.Cancel(ctx, 999), ErrNotFound)
}

func TestDeleteLetsATargetBeSubmittedAfresh(t *testing.T) {
	jobs := newFakeJobs()
	jobs.add("d", answers("running", "failed")...)
	c := startClient(t, tempDB(t), testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 30*time.Second)

	first, err := c.Submit(ctx, fakeTarget("d"), fast())
	require.NoError(t, err)
	_, err = c.Await(ctx, first)
	require.Error(t, err)
	same, err := c.Submit(ctx, fakeTarget("d"), fast())
	require.NoError(t, err)
	require.Equal(t, first, same, "an ended wait still answers for its target")

	require.NoError(t, c.Delete(ctx, first))
	_, err = c.Get(ctx, first)
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, c.Delete(ctx, first), ErrNotFound)
	jobs.add("d", answers("done")...)
	fresh, err := c.Submit(ctx, fakeTarget("d"), fast())
	require.NoError(t, err)
	require.NotEqual(t, first, fresh)
	_, err = c.Await(ctx, fresh)
	require.NoError(t, err)
}
