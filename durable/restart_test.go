package durable

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// restartRig is a SQLite file shared by worker processes, an Ingestly fake
// behind a finish counter, and a client in the test process that submits
// and awaits but works nothing.
type restartRig struct {
	dsn     string
	fake    *ingestlytest.Server
	counter *finishCounter
	client  *Client
}

func newRestartRig(t *testing.T) *restartRig {
	t.Helper()
	r := &restartRig{dsn: tempDB(t), fake: ingestlytest.NewServer()}
	t.Cleanup(r.fake.Close)
	r.counter = newFinishCounter(t, r.fake.URL)
	r.client = openClient(t, r.dsn, testConfig(t, IngestlyKinds(r.fake.Client())...))
	return r
}

func (r *restartRig) worker(t *testing.T, id string, env ...string) *workerProc {
	return startWorker(t, r.dsn, r.counter.URL, id, env...)
}

// waitSnoozed waits until the wait has made at least n attempts and is
// snoozed until its next one, at least min away: a worker killed then is
// killed between attempts.
func (r *restartRig) waitSnoozed(t *testing.T, id WaitID, n int, min time.Duration) *Result {
	t.Helper()
	var got *Result
	require.Eventually(t, func() bool {
		res, err := r.client.Get(context.Background(), id)
		if err != nil || res.Done || res.Attempts < n {
			return false
		}
		got = res
		return (res.JobState == "available" || res.JobState == "scheduled") && time.Until(res.Next) > min
	}, 30*time.Second, 5*time.Millisecond)
	return got
}

func (r *restartRig) attemptedBy(t *testing.T, id WaitID) []string {
	row, err := r.client.engine.JobGet(context.Background(), int64(id))
	require.NoError(t, err)
	return row.AttemptedBy
}

// A worker killed with SIGKILL in the middle of a wait loses nothing: a new
// worker goes on from the state the first one left in the database, the
// attempts count on, and the fake sees the run reported finished once.
func TestRestartAfterSIGKILL(t *testing.T) {
	rig := newRestartRig(t)
	trig := rig.fake.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "queued", Polls: 1}, {Status: "running", Polls: 4}, {Status: "completed"},
	}})
	ctx := testCtx(t, 2*time.Minute)
	id, err := rig.client.Submit(ctx, IngestlyRun(trig.DocumentID, trig.RunID), Options{Strategy: new(ConstantSpec(time.Second))})
	require.NoError(t, err)

	first := rig.worker(t, "worker-1")
	before := rig.waitSnoozed(t, id, 3, 300*time.Millisecond)
	first.kill()
	_, polls := rig.counter.counts(trig.RunID)
	require.Equal(t, before.Attempts, polls, "killed between attempts")
	require.Equal(t, poll.Running, before.Status.State)

	// Nobody works the wait meanwhile.
	time.Sleep(1500 * time.Millisecond)
	still, err := rig.client.Get(ctx, id)
	require.NoError(t, err)
	require.False(t, still.Done)
	require.Equal(t, before.Attempts, still.Attempts)

	rig.worker(t, "worker-2")
	res, err := rig.client.Await(ctx, id)
	require.NoError(t, err)
	require.Equal(t, EndSucceeded, res.End)
	require.Equal(t, 6, res.Attempts, "1 queued + 4 running + 1 completed: the count went on across the restart")
	finished, polls := rig.counter.counts(trig.RunID)
	require.Equal(t, 1, finished, "the fake reported the run finished exactly once")
	require.Equal(t, 6, polls, "no attempt was repeated")
	by := rig.attemptedBy(t, id)
	require.Contains(t, by, "worker-1")
	require.Equal(t, "worker-2", by[len(by)-1], "the new worker finished it")
}

// The deadline counts from Submit, not from the worker's start: a restart
// does not give the wait a new timeout.
func TestDeadlineCarriesAcrossRestart(t *testing.T) {
	t.Run("restart before the deadline", func(t *testing.T) {
		rig := newRestartRig(t)
		trig := rig.fake.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "running"}}})
		ctx := testCtx(t, 2*time.Minute)
		const timeout = 6 * time.Second
		id, err := rig.client.Submit(ctx, IngestlyRun(trig.DocumentID, trig.RunID), Options{Timeout: timeout, Strategy: new(ConstantSpec(700 * time.Millisecond))})
		require.NoError(t, err)
		first := rig.worker(t, "worker-1")
		rig.waitSnoozed(t, id, 2, 100*time.Millisecond)
		first.kill()
		rig.worker(t, "worker-2")

		res, err := rig.client.Await(ctx, id)
		require.ErrorIs(t, err, poll.ErrTimeout)
		require.Equal(t, EndTimeout, res.End)
		require.Contains(t, err.Error(), "timed out after 6s and ")
		// Ended at the deadline set at Submit (with the last attempt
		// moved ahead of it), long before a timeout restarted by the
		// second worker would have ended it.
		require.InDelta(t, timeout.Seconds(), res.Elapsed().Seconds(), 1.5)
		finished, _ := rig.counter.counts(trig.RunID)
		require.Zero(t, finished)
	})

	t.Run("restart after the deadline", func(t *testing.T) {
		rig := newRestartRig(t)
		trig := rig.fake.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "running"}}})
		ctx := testCtx(t, 2*time.Minute)
		const timeout = 3 * time.Second
		id, err := rig.client.Submit(ctx, IngestlyRun(trig.DocumentID, trig.RunID), Options{Timeout: timeout, Strategy: new(ConstantSpec(500 * time.Millisecond))})
		require.NoError(t, err)
		first := rig.worker(t, "worker-1")
		before := rig.waitSnoozed(t, id, 2, 100*time.Millisecond)
		first.kill()
		time.Sleep(time.Until(before.Started.Add(timeout + time.Second)))

		rig.worker(t, "worker-2")
		res, err := rig.client.Await(ctx, id)
		require.ErrorIs(t, err, poll.ErrTimeout)
		// One last attempt when a worker came back, then the end.
		require.Equal(t, before.Attempts+1, res.Attempts)
		require.Contains(t, err.Error(), "timed out after 3s and ")
		by := rig.attemptedBy(t, id)
		require.Equal(t, "worker-2", by[len(by)-1])
	})
}

// A worker killed in the middle of an attempt leaves its job running; River
// rescues it after RescueAfter (once a live worker leads) and the attempt is
// made again: delivery is at least once. The wait still completes once.
func TestRestartAfterSIGKILLMidAttempt(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for River's leader election and rescuer (about 20 s)")
	}
	rig := newRestartRig(t)
	trig := rig.fake.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "running", Polls: 3}, {Status: "completed"},
	}})
	ctx := testCtx(t, 2*time.Minute)
	// Two seconds between attempts leave a wide window, even on a busy
	// machine, to see the wait snoozed after its second attempt and make
	// the third one hang before it starts.
	id, err := rig.client.Submit(ctx, IngestlyRun(trig.DocumentID, trig.RunID), Options{Strategy: new(ConstantSpec(2 * time.Second))})
	require.NoError(t, err)

	first := rig.worker(t, "worker-1")
	rig.waitSnoozed(t, id, 2, 500*time.Millisecond)
	// The next poll hangs at the server: kill the worker while it waits.
	rig.fake.InjectFault(ingestlytest.RouteRun, 1, ingestlytest.Fault{Delay: time.Minute})
	require.Eventually(t, func() bool { return rig.fake.Requests(ingestlytest.RouteRun) == 3 }, 10*time.Second, time.Millisecond)
	first.kill()
	mid, err := rig.client.Get(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "running", mid.JobState)
	require.Equal(t, 2, mid.Attempts)

	rig.worker(t, "worker-2")
	res, err := rig.client.Await(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 4, res.Attempts, "the attempt cut short was made again and did not count")
	finished, _ := rig.counter.counts(trig.RunID)
	require.Equal(t, 1, finished)
	require.True(t, slices.Contains(rig.attemptedBy(t, id), "worker-2"))
}
