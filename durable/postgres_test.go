package durable

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// envPostgresURL names a PostgreSQL server the Postgres tests may create
// databases on (scripts/postgres.sh start prints one). Unset: they skip.
const envPostgresURL = "JOBPOLL_PG_URL"

// freshPostgres creates a database of its own for the test, dropped at the
// end, and returns its URL.
func freshPostgres(t *testing.T) string {
	t.Helper()
	base := os.Getenv(envPostgresURL)
	if base == "" {
		t.Skip(envPostgresURL + " is not set (scripts/postgres.sh start prints one)")
	}
	ctx := testCtx(t, 30*time.Second)
	conn, err := pgx.Connect(ctx, base)
	require.NoError(t, err)
	name := "jobpoll_test_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

func TestPostgresWaitAndIdempotentSubmit(t *testing.T) {
	dsn := freshPostgres(t)
	jobs := newFakeJobs()
	jobs.add("a", answers("queued", "running", "done")...)
	jobs.add("b", answers("running", "failed")...)
	c := startClient(t, dsn, testConfig(t, jobs.kind(Options{})))
	ctx := testCtx(t, 30*time.Second)

	a, err := c.Submit(ctx, fakeTarget("a"), fast())
	require.NoError(t, err)
	again, err := c.Submit(ctx, fakeTarget("a"), Options{})
	require.NoError(t, err)
	require.Equal(t, a, again)
	r, err := c.Await(ctx, a)
	require.NoError(t, err)
	require.Equal(t, 3, r.Attempts)

	b, err := c.Submit(ctx, fakeTarget("b"), fast())
	require.NoError(t, err)
	_, err = c.Await(ctx, b)
	require.ErrorContains(t, err, "it broke")
}

// Three worker processes share 300 waits: every wait completes, once; each
// worker does part of the work; and killing one of them mid-run loses
// nothing (River rescues the attempts it was making).
func TestPostgresWorkersShareWaits(t *testing.T) {
	dsn := freshPostgres(t)
	const waits, workers = 300, 3
	fake := ingestlytest.NewServer()
	t.Cleanup(fake.Close)
	counter := newFinishCounter(t, fake.URL)
	c := openClient(t, dsn, testConfig(t, IngestlyKinds(fake.Client())...))
	ctx := testCtx(t, 3*time.Minute)

	ids := make([]WaitID, waits)
	runs := make([]string, waits)
	for i := range waits {
		trig := fake.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
			{Status: "queued", Polls: 1}, {Status: "running", Polls: 2 + i%5}, {Status: "completed"},
		}})
		id, err := c.Submit(ctx, IngestlyRun(trig.DocumentID, trig.RunID), Options{Strategy: new(ConstantSpec(200 * time.Millisecond))})
		require.NoError(t, err)
		ids[i], runs[i] = id, trig.RunID
	}
	procs := make([]*workerProc, workers)
	for i := range procs {
		procs[i] = startWorker(t, dsn, counter.URL, fmt.Sprintf("worker-%d", i+1), envWorkers+"=10")
	}

	// Once a third of the waits have finished, slow the fake down so that
	// attempts are in flight, and kill one worker in the middle of them.
	require.Eventually(t, func() bool { n, _ := counter.finishedRuns(); return n >= waits/3 }, 2*time.Minute, 10*time.Millisecond)
	// 30 slow answers fill the 3 x 10 worker slots.
	before := fake.Requests(ingestlytest.RouteRun)
	fake.InjectFault(ingestlytest.RouteRun, 30, ingestlytest.Fault{Delay: 1500 * time.Millisecond})
	require.Eventually(t, func() bool { return fake.Requests(ingestlytest.RouteRun) >= before+30 }, 30*time.Second, time.Millisecond)
	procs[1].kill()
	killedAt, _ := counter.finishedRuns()
	t.Logf("worker-2 killed after %d of %d waits finished", killedAt, waits)

	results := make([]*Result, waits)
	var wg sync.WaitGroup
	errs := make([]error, waits)
	for i := range waits {
		wg.Go(func() { results[i], errs[i] = c.Await(ctx, ids[i]) })
	}
	wg.Wait()

	finishedBy := map[string]int{}
	workedBy := map[string]int{}
	repeated, rescued := 0, 0
	for i := range waits {
		require.NoError(t, errs[i], "wait %s", ids[i])
		require.Equal(t, EndSucceeded, results[i].End)
		row, err := c.engine.JobGet(ctx, int64(ids[i]))
		require.NoError(t, err)
		require.Equal(t, "completed", string(row.State))
		if len(row.Errors) > 0 {
			rescued++ // River found it running in the killed worker
		}
		finishedBy[row.AttemptedBy[len(row.AttemptedBy)-1]]++
		seen := map[string]bool{}
		for _, w := range row.AttemptedBy {
			if !seen[w] {
				seen[w] = true
				workedBy[w]++
			}
		}
		finished, polls := counter.counts(runs[i])
		require.GreaterOrEqual(t, finished, 1)
		if finished > 1 || polls != results[i].Attempts {
			repeated++ // an attempt of the killed worker, made again
			continue
		}
		require.Equal(t, 4+i%5, results[i].Attempts, "wait %s: the attempts counted are the script's", ids[i])
	}
	t.Logf("waits finished by worker: %v; waits each worker made attempts of: %v; waits rescued from the killed worker: %d; waits with a repeated attempt: %d", finishedBy, workedBy, rescued, repeated)
	require.Positive(t, rescued, "the kill hit attempts in flight")
	// Only attempts in flight in the killed worker are made again: at
	// most its 10 running jobs.
	require.LessOrEqual(t, repeated, 10)
	for i := range workers {
		require.Greater(t, workedBy[fmt.Sprintf("worker-%d", i+1)], waits/10, "every worker took part")
	}
	require.Greater(t, finishedBy["worker-1"]+finishedBy["worker-3"], 0)
	for _, p := range []*workerProc{procs[0], procs[2]} {
		p.stop(t)
	}
}
