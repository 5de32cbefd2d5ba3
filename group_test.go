package poll_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

// timedJob finishes with final once d has passed since it was created.
func timedJob(d time.Duration, final poll.Status, fetches *atomic.Int64) *poll.Poller[poll.Status] {
	start := time.Now()
	fetch := func(context.Context) (poll.Status, error) {
		if fetches != nil {
			fetches.Add(1)
		}
		if time.Since(start) >= d {
			return final, nil
		}
		return pending, nil
	}
	return poll.New(fetch, func(s poll.Status) poll.Status { return s },
		poll.WithBackoff(poll.Constant(time.Second)), poll.WithTimeout(time.Hour))
}

func TestEachYieldsInCompletionOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failed := poll.Status{State: poll.Failed, Raw: "error"}
		pollers := []*poll.Poller[poll.Status]{
			timedJob(30*time.Second, succeeded, nil),
			timedJob(10*time.Second, failed, nil),
			timedJob(20*time.Second, succeeded, nil),
			timedJob(0, succeeded, nil),
		}
		start := time.Now()
		var order []int
		var at []time.Duration
		for r := range poll.Each(t.Context(), pollers) {
			order = append(order, r.Index)
			at = append(at, time.Since(start))
			if r.Index == 1 {
				require.ErrorIs(t, r.Err, poll.ErrFailed, "one failure does not stop the others")
				assert.Equal(t, failed, r.Value)
			} else {
				require.NoError(t, r.Err)
				assert.Equal(t, succeeded, r.Value)
			}
		}
		assert.Equal(t, []int{3, 1, 2, 0}, order)
		assert.Equal(t, seconds(0, 10, 20, 30), at, "each wait keeps its own schedule")
	})
}

func TestEachBreakStopsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fetches atomic.Int64
		pollers := make([]*poll.Poller[poll.Status], 50)
		for i := range pollers {
			pollers[i] = timedJob(time.Duration(i+1)*time.Minute, succeeded, &fetches)
		}
		got := 0
		for r := range poll.Each(t.Context(), pollers) {
			require.NoError(t, r.Err)
			got++
			if got == 2 {
				break
			}
		}
		// Each has returned: its workers are gone (synctest would report
		// them as leaked at the end of the bubble) and nothing polls.
		before := fetches.Load()
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, before, fetches.Load(), "no fetch after the loop stopped")
	})
}

func TestEachInFlightBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var inFlight, peak atomic.Int64
		pollers := make([]*poll.Poller[int], 40)
		for i := range pollers {
			n := 0
			fetch := func(context.Context) (int, error) {
				now := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					old := peak.Load()
					if now <= old || peak.CompareAndSwap(old, now) {
						break
					}
				}
				time.Sleep(200 * time.Millisecond) // a slow API
				n++
				return n, nil
			}
			pollers[i] = poll.New(fetch, func(n int) poll.Status {
				if n >= 5 {
					return succeeded
				}
				return pending
			}, poll.WithBackoff(poll.Constant(0)))
		}
		values, err := poll.WaitAll(t.Context(), pollers, poll.WithMaxInFlight(3))
		require.NoError(t, err)
		assert.Equal(t, int64(3), peak.Load(), "never more than 3 fetches at once")
		for i, v := range values {
			assert.Equal(t, 5, v, "poller %d", i)
		}
	})
}

func TestEachSharedLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &countingLimiter{delay: 100 * time.Millisecond}
		var fetches atomic.Int64
		pollers := []*poll.Poller[poll.Status]{
			timedJob(3*time.Second, succeeded, &fetches),
			timedJob(5*time.Second, succeeded, &fetches),
		}
		_, err := poll.WaitAll(t.Context(), pollers, poll.WithSharedLimiter(l), poll.WithMaxInFlight(1))
		require.NoError(t, err)
		assert.Equal(t, int(fetches.Load()), l.calls, "the shared limiter is consulted before every attempt")
	})
}

func TestEachStopOnFirstError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pollers := []*poll.Poller[poll.Status]{
			timedJob(time.Hour/2, succeeded, nil),
			timedJob(5*time.Second, poll.Status{State: poll.Canceled, Raw: "cancelled"}, nil),
			timedJob(time.Hour/2, succeeded, nil),
		}
		start := time.Now()
		results := map[int]error{}
		for r := range poll.Each(t.Context(), pollers, poll.WithStopOnFirstError()) {
			results[r.Index] = r.Err
		}
		assert.Equal(t, 5*time.Second, time.Since(start), "the others stopped at once")
		require.ErrorIs(t, results[1], poll.ErrCanceled)
		for _, i := range []int{0, 2} {
			require.ErrorIs(t, results[i], context.Canceled)
			assert.ErrorContains(t, results[i], "wait 1 failed")
		}
	})
}

func TestWaitAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pollers := []*poll.Poller[poll.Status]{
			timedJob(2*time.Second, succeeded, nil),
			timedJob(time.Second, poll.Status{State: poll.Failed, Raw: "error", Reason: "bad pdf"}, nil),
			nil,
			timedJob(3*time.Second, succeeded, nil),
		}
		values, err := poll.WaitAll(t.Context(), pollers)
		require.Error(t, err)
		require.ErrorIs(t, err, poll.ErrFailed)
		assert.Equal(t, []poll.Status{succeeded, {State: poll.Failed, Raw: "error", Reason: "bad pdf"}, {}, succeeded}, values, "values in input order")
		assert.Contains(t, err.Error(), "poller 1: poll: job ended failed")
		assert.Contains(t, err.Error(), "poller 2: poll: poller 2 is nil")
		assert.NotContains(t, err.Error(), "poller 0")
	})
}

func TestEachContextCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		pollers := make([]*poll.Poller[poll.Status], 100)
		for i := range pollers {
			pollers[i] = timedJob(time.Hour/2, succeeded, nil)
		}
		n := 0
		for r := range poll.Each(ctx, pollers) {
			n++
			require.ErrorIs(t, r.Err, poll.ErrTimeout)
			require.ErrorIs(t, r.Err, context.DeadlineExceeded)
			assert.Equal(t, pending, r.Value, "the last observation comes with the error")
		}
		assert.Equal(t, 100, n, "every wait is reported")
	})
}

func TestEachWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wake := make(chan struct{})
		done := false
		var mu sync.Mutex
		fetch := func(context.Context) (poll.Status, error) {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return succeeded, nil
			}
			return pending, nil
		}
		p := poll.New(fetch, func(s poll.Status) poll.Status { return s },
			poll.WithBackoff(poll.Constant(time.Hour)), poll.WithWake(wake), poll.WithTimeout(0))
		time.AfterFunc(time.Minute, func() {
			mu.Lock()
			done = true
			mu.Unlock()
			wake <- struct{}{}
		})
		start := time.Now()
		_, err := poll.WaitAll(t.Context(), []*poll.Poller[poll.Status]{p})
		require.NoError(t, err)
		assert.Equal(t, time.Minute, time.Since(start), "the webhook woke the wait an hour early")
	})
}

func TestEachInvalid(t *testing.T) {
	pollers := []*poll.Poller[int]{poll.New[int](nil, nil), nil}
	_, err := poll.WaitAll(t.Context(), pollers, poll.WithMaxInFlight(0))
	require.ErrorContains(t, err, "WithMaxInFlight(0)")
	_, err = poll.WaitAll(t.Context(), pollers)
	require.ErrorContains(t, err, "poller 0: poll: New was given a nil fetch function")
	require.ErrorContains(t, err, "poller 1: poll: poller 1 is nil")
	values, err := poll.WaitAll[int](t.Context(), nil)
	require.NoError(t, err)
	assert.Empty(t, values)
}

// TestEachGoroutinesDoNotGrowWithWaits checks the scheduler's promise:
// sleeping waits hold no goroutine, only the worker pool runs.
func TestEachGoroutinesDoNotGrowWithWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const waits = 5000
		pollers := make([]*poll.Poller[poll.Status], waits)
		for i := range pollers {
			n := 0
			pollers[i] = poll.New(func(context.Context) (poll.Status, error) {
				n++
				if n == 10 {
					return succeeded, nil
				}
				return pending, nil
			}, func(s poll.Status) poll.Status { return s }, poll.WithBackoff(poll.Constant(time.Minute)))
		}
		probe := runtime.NumGoroutine()
		var during int
		pollers[0] = poll.New(func(context.Context) (poll.Status, error) {
			return succeeded, nil
		}, func(s poll.Status) poll.Status { return s }, poll.WithInitialDelay(5*time.Minute), poll.WithNotify(func(poll.Attempt) {
			during = runtime.NumGoroutine()
		}))
		_, err := poll.WaitAll(t.Context(), pollers, poll.WithMaxInFlight(8))
		require.NoError(t, err)
		require.NotZero(t, during, "the probe ran while the others slept")
		assert.LessOrEqual(t, during-probe, 9, "goroutines beyond the 8 workers and the scheduler while %d waits sleep", waits)
	})
}

func ExampleEach() {
	jobs := make([]*poll.Poller[*Job], 3)
	for i := range jobs {
		jobs[i] = poll.New(fakeJobAPI([]string{"done", "error", "done"}[i]), jobStatus,
			poll.WithBackoff(poll.Constant(time.Millisecond)))
	}
	done, failed := 0, 0
	for r := range poll.Each(context.Background(), jobs, poll.WithMaxInFlight(2)) {
		if r.Err != nil {
			failed++
			continue
		}
		done++
	}
	fmt.Printf("%d done, %d failed\n", done, failed)
	// Output: 2 done, 1 failed
}

func ExampleWaitAll() {
	jobs := []*poll.Poller[*Job]{
		poll.New(fakeJobAPI("done"), jobStatus, poll.WithBackoff(poll.Constant(time.Millisecond))),
		poll.New(fakeJobAPI("cancelled"), jobStatus, poll.WithBackoff(poll.Constant(time.Millisecond))),
	}
	values, err := poll.WaitAll(context.Background(), jobs)
	fmt.Println(values[0].State, values[1].State)
	fmt.Println(errors.Is(err, poll.ErrCanceled))
	// Output:
	// done cancelled
	// true
}
