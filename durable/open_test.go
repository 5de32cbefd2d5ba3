package durable

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

// Processes that start together on a new file all get a migrated database.
func TestOpenTogetherOnANewFile(t *testing.T) {
	dsn := tempDB(t)
	jobs := newFakeJobs()
	const n = 4
	clients := make([]*Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			clients[i], errs[i] = Open(ctx, dsn, testConfig(t, jobs.kind(Options{})))
		})
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		t.Cleanup(func() { require.NoError(t, clients[i].Close()) })
	}
	id, err := clients[0].Submit(testCtx(t, 10*time.Second), fakeTarget("x"), Options{})
	require.NoError(t, err)
	r, err := clients[n-1].Get(testCtx(t, 10*time.Second), id)
	require.NoError(t, err)
	require.Equal(t, fakeTarget("x").String(), r.Target.String())
}

func TestOpenRefusesBadConfig(t *testing.T) {
	ctx := testCtx(t, 10*time.Second)
	for _, cfg := range []Config{
		{Queue: "Not A Queue"},
		{JobTimeout: time.Minute, RescueAfter: time.Minute},
		{PollInterval: -time.Second},
		{Workers: -1},
		{Kinds: []Kind{{Provider: "x", Name: "y"}}},
		{Strategies: map[string]poll.Strategy{"constant": poll.Constant(time.Second)}},
	} {
		cfg.Logger = testLogger(t)
		_, err := Open(ctx, tempDB(t), cfg)
		require.ErrorIs(t, err, ErrInvalidConfig, "%+v", cfg)
	}
	_, err := Open(ctx, "", Config{Logger: testLogger(t)})
	require.ErrorIs(t, err, ErrInvalidConfig)
	jobs := newFakeJobs()
	_, err = Open(ctx, tempDB(t), Config{Kinds: []Kind{jobs.kind(Options{}), jobs.kind(Options{})}, Logger: testLogger(t)})
	require.ErrorIs(t, err, ErrInvalidConfig)
	c := openClient(t, tempDB(t), Config{Logger: testLogger(t)})
	require.ErrorIs(t, c.Start(ctx), ErrInvalidConfig, "Start needs kinds")
}

func TestAClosedClientSaysSo(t *testing.T) {
	jobs := newFakeJobs()
	ctx := testCtx(t, 10*time.Second)
	c, err := Open(ctx, tempDB(t), testConfig(t, jobs.kind(Options{})))
	require.NoError(t, err)
	id, err := c.Submit(ctx, fakeTarget("x"), Options{})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close twice is fine")
	_, err = c.Submit(ctx, fakeTarget("y"), Options{})
	require.ErrorIs(t, err, ErrClosed)
	_, err = c.Await(ctx, id)
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, c.Start(ctx), ErrClosed)
	require.ErrorIs(t, c.Cancel(ctx, id), ErrClosed)
}
