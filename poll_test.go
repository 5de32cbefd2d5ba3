package poll_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

func TestWaitSchedule(t *testing.T) {
	tests := []struct {
		name     string
		opts     []poll.Option
		step     func(context.Context, int) (poll.Status, error)
		wantAt   []time.Duration
		wantErr  error
		wantLast int
	}{
		{
			name:     "first attempt at once, then the strategy's delays",
			opts:     []poll.Option{poll.WithBackoff(poll.Constant(2 * time.Second))},
			step:     finishesAt(3, succeeded),
			wantAt:   seconds(0, 2, 4),
			wantLast: 3,
		},
		{
			name:     "initial delay postpones the first attempt",
			opts:     []poll.Option{poll.WithInitialDelay(5 * time.Second), poll.WithBackoff(poll.Constant(time.Second))},
			step:     finishesAt(2, succeeded),
			wantAt:   seconds(5, 6),
			wantLast: 2,
		},
		{
			name: "the delay crossing the deadline is shortened to one last attempt just before it",
			opts: []poll.Option{poll.WithTimeout(10 * time.Second), poll.WithBackoff(poll.Constant(3 * time.Second))},
			step: never,
			// 9+3 would cross 10: the last attempt runs at 10 - min(1s, 1s/2).
			wantAt:   seconds(0, 3, 6, 9, 9.5),
			wantErr:  poll.ErrTimeout,
			wantLast: 5,
		},
		{
			name:     "the last attempt leaves one second when there is room",
			opts:     []poll.Option{poll.WithTimeout(10 * time.Second), poll.WithBackoff(poll.Constant(4 * time.Second))},
			step:     never,
			wantAt:   seconds(0, 4, 8, 9),
			wantErr:  poll.ErrTimeout,
			wantLast: 4,
		},
		{
			name:     "the last attempt leaves the attempt timeout when set",
			opts:     []poll.Option{poll.WithTimeout(30 * time.Second), poll.WithAttemptTimeout(5 * time.Second), poll.WithBackoff(poll.Constant(20 * time.Second))},
			step:     never,
			wantAt:   seconds(0, 20, 25),
			wantErr:  poll.ErrTimeout,
			wantLast: 3,
		},
		{
			name:     "the job finishing on the last attempt is a success",
			opts:     []poll.Option{poll.WithTimeout(10 * time.Second), poll.WithBackoff(poll.Constant(4 * time.Second))},
			step:     finishesAt(4, succeeded),
			wantAt:   seconds(0, 4, 8, 9),
			wantLast: 4,
		},
		{
			name:     "an initial delay past the deadline still leaves one attempt",
			opts:     []poll.Option{poll.WithTimeout(10 * time.Second), poll.WithInitialDelay(time.Hour)},
			step:     never,
			wantAt:   seconds(9),
			wantErr:  poll.ErrTimeout,
			wantLast: 1,
		},
		{
			name:     "Status.RetryAfter raises the next delay",
			opts:     []poll.Option{poll.WithBackoff(poll.Constant(time.Second))},
			step:     hinted(poll.Status{State: poll.Running, Raw: "pending", RetryAfter: 30 * time.Second}),
			wantAt:   seconds(0, 30, 60),
			wantLast: 3,
		},
		{
			name:     "Status.RetryAfter never lowers the next delay",
			opts:     []poll.Option{poll.WithBackoff(poll.Constant(10 * time.Second))},
			step:     hinted(poll.Status{State: poll.Running, Raw: "pending", RetryAfter: time.Second}),
			wantAt:   seconds(0, 10, 20),
			wantLast: 3,
		},
		{
			name:     "RetryAfter on an error raises the next delay and is retried",
			opts:     []poll.Option{poll.WithBackoff(poll.Constant(time.Second))},
			step:     failFirst(2, poll.RetryAfter(45*time.Second, errors.New("busy"))),
			wantAt:   seconds(0, 45, 90),
			wantLast: 3,
		},
		{
			name:     "APIError.RetryAfter raises the next delay",
			opts:     []poll.Option{poll.WithBackoff(poll.Constant(time.Second))},
			step:     failFirst(1, &poll.APIError{StatusCode: http.StatusTooManyRequests, RetryAfter: 20 * time.Second}),
			wantAt:   seconds(0, 20),
			wantLast: 2,
		},
		{
			name:     "a server hint is still cut to fit the deadline",
			opts:     []poll.Option{poll.WithTimeout(time.Minute), poll.WithBackoff(poll.Constant(time.Second))},
			step:     failFirst(5, &poll.APIError{StatusCode: http.StatusServiceUnavailable, RetryAfter: time.Hour}),
			wantAt:   seconds(0, 59),
			wantErr:  poll.ErrTimeout,
			wantLast: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newScript(tt.step)
				got, err := s.poller(tt.opts...).Wait(t.Context())
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tt.wantAt, s.at, "attempt times")
				assert.Equal(t, tt.wantLast, got.n, "Wait returns the last value observed")
			})
		})
	}
}

// hinted always shows st and succeeds on the third attempt.
func hinted(st poll.Status) func(context.Context, int) (poll.Status, error) {
	return func(_ context.Context, n int) (poll.Status, error) {
		if n >= 3 {
			return succeeded, nil
		}
		return st, nil
	}
}

// failFirst fails the first n attempts with err, then succeeds.
func failFirst(n int, err error) func(context.Context, int) (poll.Status, error) {
	return func(_ context.Context, i int) (poll.Status, error) {
		if i <= n {
			return poll.Status{}, err
		}
		return succeeded, nil
	}
}

func TestWaitNeverSleepsPastTheDeadline(t *testing.T) {
	strategies := map[string]poll.Strategy{
		"constant 7s":           poll.Constant(7 * time.Second),
		"exponential 1s..1m":    poll.Exponential(time.Second, time.Minute),
		"constant longer":       poll.Constant(time.Hour),
		"default":               poll.Default(),
		"constant 0 (busy)":     poll.Constant(0),
		"exponential 100ms..2s": poll.Exponential(100*time.Millisecond, 2*time.Second),
	}
	for name, strategy := range strategies {
		for _, timeout := range []time.Duration{time.Second, 10 * time.Second, 3 * time.Minute} {
			t.Run(fmt.Sprintf("%s/%v", name, timeout), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					calls := 0
					fetch := func(ctx context.Context) (int, error) {
						calls++
						if calls > 10_000 {
							return calls, errors.New("stop: too many calls")
						}
						return calls, nil
					}
					start := time.Now()
					var last poll.Attempt
					_, err := poll.New(fetch, func(int) poll.Status { return pending },
						poll.WithTimeout(timeout), poll.WithBackoff(strategy),
						poll.WithNotify(func(a poll.Attempt) { last = a })).Wait(t.Context())
					elapsed := time.Since(start)
					if name == "constant 0 (busy)" {
						require.Error(t, err)
						return
					}
					require.ErrorIs(t, err, poll.ErrTimeout)
					assert.Less(t, elapsed, timeout, "Wait returned after its deadline")
					assert.Less(t, last.Elapsed, timeout, "the last attempt ran after the deadline")
					assert.GreaterOrEqual(t, last.Elapsed, timeout/2, "the last attempt ran well before the deadline")
				})
			})
		}
	}
}

func TestWaitFinalStates(t *testing.T) {
	sentinels := []error{poll.ErrFailed, poll.ErrCanceled, poll.ErrInputRequired, poll.ErrPartiallyFailed}
	tests := []struct {
		state poll.State
		want  error // nil for success
	}{
		{poll.Succeeded, nil},
		{poll.Failed, poll.ErrFailed},
		{poll.Canceled, poll.ErrCanceled},
		{poll.InputRequired, poll.ErrInputRequired},
		{poll.PartiallyFailed, poll.ErrPartiallyFailed},
	}
	for _, tt := range tests {
		t.Run(tt.state.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				final := poll.Status{State: tt.state, Raw: "raw-" + tt.state.String(), Reason: "because"}
				s := newScript(finishesAt(2, final))
				got, err := s.poller(poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
				assert.Equal(t, 2, got.n, "the final observation is returned")
				assert.Equal(t, final, got.st)
				if tt.want == nil {
					require.NoError(t, err)
					return
				}
				var jobErr *poll.JobError
				require.ErrorAs(t, err, &jobErr)
				assert.Equal(t, final, jobErr.Status)
				for _, s := range sentinels {
					assert.Equal(t, s == tt.want, errors.Is(err, s), "errors.Is(err, %v)", s)
				}
				assert.NotErrorIs(t, err, poll.ErrTimeout)
				assert.Contains(t, err.Error(), tt.state.String())
				assert.Contains(t, err.Error(), final.Raw)
				assert.Contains(t, err.Error(), "because")
			})
		})
	}
}

func TestWaitUnknownStateIsNotFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(func(_ context.Context, n int) (poll.Status, error) {
			if n < 3 {
				return poll.Status{State: poll.Unknown, Raw: "brand_new_word"}, nil
			}
			return succeeded, nil
		})
		got, err := s.poller(poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
		require.NoError(t, err)
		assert.Equal(t, 3, got.n)
	})
}

func TestWaitContext(t *testing.T) {
	t.Run("ctx deadline is a timeout and DeadlineExceeded", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			s := newScript(never)
			got, err := s.poller(poll.WithBackoff(poll.Constant(2 * time.Second))).Wait(ctx)
			require.ErrorIs(t, err, poll.ErrTimeout)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, seconds(0, 2, 4, 4.5), s.at)
			assert.Equal(t, 4, got.n)
			assert.Contains(t, err.Error(), "context's deadline")
		})
	})
	t.Run("own timeout is not DeadlineExceeded", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(never)
			_, err := s.poller(poll.WithTimeout(5*time.Second), poll.WithBackoff(poll.Constant(2*time.Second))).Wait(t.Context())
			require.ErrorIs(t, err, poll.ErrTimeout)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, `poll: timed out after 5s and 4 attempts; last status running ("pending")`, err.Error())
		})
	})
	t.Run("cancel during a sleep ends the wait at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(90*time.Second, cancel)
			start := time.Now()
			s := newScript(never)
			got, err := s.poller(poll.WithBackoff(poll.Constant(time.Minute))).Wait(ctx)
			require.ErrorIs(t, err, context.Canceled)
			assert.NotErrorIs(t, err, poll.ErrTimeout)
			assert.Equal(t, 90*time.Second, time.Since(start), "returned at the cancel, not at the next timer")
			assert.Equal(t, 2, got.n)
			assert.Equal(t, `poll: canceled after 1m30s and 2 attempts; last status running ("pending"): context canceled`, err.Error())
		})
	})
	t.Run("the context is checked after every sleep", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// A context canceled while the wait sleeps, whose Done channel
			// never fires: only the timer wakes the wait, as when the timer
			// wins a race with the cancellation. The check after the sleep
			// must still see it and make no further attempt.
			ctx := &silentlyCanceled{Context: t.Context()}
			s := newScript(func(context.Context, int) (poll.Status, error) {
				ctx.canceled.Store(true)
				return pending, nil
			})
			start := time.Now()
			_, err := s.poller(poll.WithBackoff(poll.Constant(time.Minute)), poll.WithTimeout(0)).Wait(ctx)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, seconds(0), s.at, "no attempt after the cancel")
			assert.Equal(t, time.Minute, time.Since(start), "noticed when the timer fired")
		})
	})
	t.Run("cancel with a cause keeps the cause", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			shutdown := errors.New("shutting down")
			ctx, cancel := context.WithCancelCause(t.Context())
			cancel(shutdown)
			_, err := newScript(never).poller().Wait(ctx)
			require.ErrorIs(t, err, context.Canceled)
			require.ErrorIs(t, err, shutdown)
		})
	})
	t.Run("an already canceled ctx makes no attempt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			s := newScript(never)
			_, err := s.poller().Wait(ctx)
			require.ErrorIs(t, err, context.Canceled)
			assert.Empty(t, s.at)
		})
	})
	t.Run("cancel during a fetch", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			s := newScript(func(ctx context.Context, n int) (poll.Status, error) {
				if n == 2 {
					cancel()
					<-ctx.Done()
					return poll.Status{}, ctx.Err()
				}
				return pending, nil
			})
			got, err := s.poller(poll.WithBackoff(poll.Constant(time.Second))).Wait(ctx)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, 1, got.n, "the last good observation survives")
		})
	})
	t.Run("no timeout and no ctx deadline waits as long as it takes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(finishesAt(30, succeeded))
			_, err := s.poller(poll.WithTimeout(0), poll.WithBackoff(poll.Constant(time.Hour))).Wait(t.Context())
			require.NoError(t, err)
			assert.Equal(t, 29*time.Hour, s.at[29])
		})
	})
}

func TestWaitErrors(t *testing.T) {
	notFound := &poll.APIError{StatusCode: http.StatusNotFound, Method: "GET", URL: "https://api.example/jobs/1", Message: "no such job"}
	unavailable := &poll.APIError{StatusCode: http.StatusServiceUnavailable}
	t.Run("transient errors are retried", func(t *testing.T) {
		for _, code := range []int{408, 425, 429, 500, 502, 503, 504} {
			synctest.Test(t, func(t *testing.T) {
				s := newScript(failFirst(3, &poll.APIError{StatusCode: code}))
				got, err := s.poller(poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
				require.NoError(t, err, "status %d", code)
				assert.Equal(t, 4, got.n)
			})
		}
	})
	t.Run("a permanent error ends the wait at once and stays reachable", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(func(_ context.Context, n int) (poll.Status, error) {
				if n == 3 {
					return poll.Status{}, notFound
				}
				return pending, nil
			})
			got, err := s.poller(poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
			var api *poll.APIError
			require.ErrorAs(t, err, &api)
			assert.Same(t, notFound, api)
			assert.Len(t, s.at, 3)
			assert.Equal(t, 2, got.n, "the last value observed is returned")
			assert.Equal(t, "poll: attempt 3 failed after 2s with a permanent error: GET https://api.example/jobs/1: 404 Not Found: no such job", err.Error())
			for _, s := range []error{poll.ErrTimeout, poll.ErrExhausted, poll.ErrStalled, poll.ErrFailed} {
				assert.NotErrorIs(t, err, s)
			}
		})
	})
	t.Run("WithRetryable decides", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(failFirst(2, notFound))
			_, err := s.poller(poll.WithRetryable(func(err error) bool { return true })).Wait(t.Context())
			require.NoError(t, err)
			assert.Len(t, s.at, 3)
		})
	})
	t.Run("timeout after transient errors wraps the last one", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(failFirst(1000, unavailable))
			_, err := s.poller(poll.WithTimeout(10*time.Second), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
			require.ErrorIs(t, err, poll.ErrTimeout)
			var api *poll.APIError
			require.ErrorAs(t, err, &api)
			assert.Equal(t, 503, api.StatusCode)
			assert.Equal(t, "poll: timed out after 10s and 11 attempts; last status none observed; last error: 503 Service Unavailable", err.Error())
		})
	})
}

func TestWaitExhausted(t *testing.T) {
	unavailable := &poll.APIError{StatusCode: http.StatusBadGateway}
	tests := []struct {
		name      string
		opts      []poll.Option
		step      func(context.Context, int) (poll.Status, error)
		attempts  int
		wantLast  error
		wantText  string
		wantValue int
	}{
		{
			name:      "max attempts",
			opts:      []poll.Option{poll.WithMaxAttempts(3)},
			step:      never,
			attempts:  3,
			wantText:  `poll: gave up after 3 attempts in 2s: max attempts 3; last status running ("pending")`,
			wantValue: 3,
		},
		{
			name:      "max attempts with a last error",
			opts:      []poll.Option{poll.WithMaxAttempts(2)},
			step:      failFirst(5, unavailable),
			attempts:  2,
			wantLast:  unavailable,
			wantText:  "poll: gave up after 2 attempts in 1s: max attempts 2; last status none observed; last error: 502 Bad Gateway",
			wantValue: 0,
		},
		{
			name: "max consecutive errors",
			opts: []poll.Option{poll.WithMaxErrors(3)},
			step: func(_ context.Context, n int) (poll.Status, error) {
				if n == 1 || n == 3 {
					return pending, nil // an observation resets the count
				}
				return poll.Status{}, unavailable
			},
			attempts:  6,
			wantLast:  unavailable,
			wantText:  `poll: gave up after 6 attempts in 5s: 3 consecutive errors (max errors 3); last status running ("pending"); last error: 502 Bad Gateway`,
			wantValue: 3,
		},
		{
			name: "the strategy stopped",
			opts: []poll.Option{poll.WithBackoff(func() backoff.BackOff {
				return backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 2)
			})},
			step:      never,
			attempts:  3,
			wantText:  `poll: gave up after 3 attempts in 2s: the backoff strategy stopped; last status running ("pending")`,
			wantValue: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newScript(tt.step)
				opts := append([]poll.Option{poll.WithBackoff(poll.Constant(time.Second))}, tt.opts...)
				got, err := s.poller(opts...).Wait(t.Context())
				require.ErrorIs(t, err, poll.ErrExhausted)
				if tt.wantLast != nil {
					require.ErrorIs(t, err, tt.wantLast)
				}
				assert.Len(t, s.at, tt.attempts)
				assert.Equal(t, tt.wantText, err.Error())
				assert.Equal(t, tt.wantValue, got.n)
			})
		})
	}
}

func TestWaitStall(t *testing.T) {
	t.Run("unchanged status ends with ErrStalled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(never)
			got, err := s.poller(poll.WithStallTimeout(5*time.Second), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
			require.ErrorIs(t, err, poll.ErrStalled)
			assert.Equal(t, seconds(0, 1, 2, 3, 4, 5), s.at)
			assert.Equal(t, 6, got.n)
			assert.Equal(t, `poll: stalled: status running ("pending") unchanged for 5s (stall timeout 5s), 6 attempts in 5s`, err.Error())
		})
	})
	t.Run("progress, state or raw changes reset the stall clock", func(t *testing.T) {
		for name, change := range map[string]func(n int) poll.Status{
			"progress": func(n int) poll.Status {
				return poll.Status{State: poll.Running, Raw: "pending", Progress: float64(n) / 100}
			},
			"raw": func(n int) poll.Status { return poll.Status{State: poll.Running, Raw: fmt.Sprint("step", n)} },
			"state": func(n int) poll.Status {
				return poll.Status{State: []poll.State{poll.Queued, poll.Running}[n%2], Raw: "x"}
			},
		} {
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s := newScript(func(_ context.Context, n int) (poll.Status, error) {
						if n == 20 {
							return succeeded, nil
						}
						return change(n), nil
					})
					_, err := s.poller(poll.WithStallTimeout(3*time.Second), poll.WithBackoff(poll.Constant(2*time.Second))).Wait(t.Context())
					require.NoError(t, err)
				})
			})
		}
	})
	t.Run("Reason alone is not progress", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(func(_ context.Context, n int) (poll.Status, error) {
				return poll.Status{State: poll.Running, Raw: "pending", Reason: fmt.Sprint(n)}, nil
			})
			_, err := s.poller(poll.WithStallTimeout(3*time.Second), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
			require.ErrorIs(t, err, poll.ErrStalled)
		})
	})
}

func TestWaitWake(t *testing.T) {
	t.Run("a receive cuts the sleep short", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			wake := make(chan struct{})
			time.AfterFunc(7*time.Second, func() { wake <- struct{}{} })
			s := newScript(finishesAt(2, succeeded))
			_, err := s.poller(poll.WithWake(wake), poll.WithBackoff(poll.Constant(time.Minute))).Wait(t.Context())
			require.NoError(t, err)
			assert.Equal(t, seconds(0, 7), s.at)
		})
	})
	t.Run("a closed channel wakes once and never busy-loops", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			wake := make(chan struct{})
			close(wake)
			s := newScript(finishesAt(4, succeeded))
			_, err := s.poller(poll.WithWake(wake), poll.WithBackoff(poll.Constant(time.Minute))).Wait(t.Context())
			require.NoError(t, err)
			assert.Equal(t, seconds(0, 0, 60, 120), s.at)
		})
	})
}

// countingLimiter counts calls and delays each by a fixed time.
type countingLimiter struct {
	calls int
	delay time.Duration
	err   error
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.calls++
	if l.err != nil {
		return l.err
	}
	select {
	case <-time.After(l.delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestWaitLimiter(t *testing.T) {
	t.Run("consulted once before every attempt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := &countingLimiter{delay: 500 * time.Millisecond}
			s := newScript(finishesAt(4, succeeded))
			_, err := s.poller(poll.WithLimiter(l), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
			require.NoError(t, err)
			assert.Equal(t, 4, l.calls)
			assert.Equal(t, seconds(0.5, 2, 3.5, 5), s.at, "the limiter's wait comes before each fetch")
		})
	})
	t.Run("a refusal ends the wait with the limiter's error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			refused := errors.New("quota gone")
			s := newScript(never)
			_, err := s.poller(poll.WithLimiter(&countingLimiter{err: refused}), poll.WithTimeout(0)).Wait(t.Context())
			require.ErrorIs(t, err, refused)
			assert.Empty(t, s.at)
		})
	})
	t.Run("a limiter that blocks past the deadline times out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := newScript(never)
			_, err := s.poller(poll.WithLimiter(&countingLimiter{delay: time.Hour}), poll.WithTimeout(time.Minute)).Wait(t.Context())
			require.ErrorIs(t, err, poll.ErrTimeout)
			assert.Empty(t, s.at)
		})
	})
}

func TestWaitAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(func(ctx context.Context, n int) (poll.Status, error) {
			if n <= 2 {
				<-ctx.Done() // a hung request
				return poll.Status{}, ctx.Err()
			}
			return succeeded, nil
		})
		var errs []error
		_, err := s.poller(
			poll.WithAttemptTimeout(5*time.Second),
			poll.WithBackoff(poll.Constant(time.Second)),
			poll.WithNotify(func(a poll.Attempt) { errs = append(errs, a.Err) }),
		).Wait(t.Context())
		require.NoError(t, err)
		assert.Equal(t, seconds(0, 6, 12), s.at)
		require.Len(t, errs, 3)
		require.ErrorIs(t, errs[0], context.DeadlineExceeded)
		assert.Equal(t, "poll: attempt 1 timed out after 5s: context deadline exceeded", errs[0].Error())
		assert.NoError(t, errs[2])
	})
}

func TestWaitNotify(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := &poll.APIError{StatusCode: 500}
		steps := []struct {
			st  poll.Status
			err error
		}{
			{poll.Status{State: poll.Queued, Raw: "queued"}, nil},
			{poll.Status{State: poll.Queued, Raw: "queued"}, nil},
			{poll.Status{}, boom},
			{poll.Status{State: poll.Running, Raw: "running", Progress: 0.5}, nil},
			{poll.Status{State: poll.Running, Raw: "running", Progress: 0.9}, nil},
			{poll.Status{State: poll.Failed, Raw: "failed", Reason: "disk full"}, nil},
		}
		s := newScript(func(_ context.Context, n int) (poll.Status, error) {
			return steps[n-1].st, steps[n-1].err
		})
		var got []poll.Attempt
		_, err := s.poller(poll.WithBackoff(poll.Constant(2*time.Second)),
			poll.WithNotify(func(a poll.Attempt) { got = append(got, a) })).Wait(t.Context())
		require.ErrorIs(t, err, poll.ErrFailed)
		queued := poll.Status{State: poll.Queued, Raw: "queued"}
		want := []poll.Attempt{
			{N: 1, Elapsed: 0, Status: queued, Changed: true, Next: 2 * time.Second},
			{N: 2, Elapsed: 2 * time.Second, Status: queued, Changed: false, Next: 2 * time.Second},
			{N: 3, Elapsed: 4 * time.Second, Status: queued, Changed: false, Err: boom, Next: 2 * time.Second},
			{N: 4, Elapsed: 6 * time.Second, Status: steps[3].st, Changed: true, Next: 2 * time.Second},
			{N: 5, Elapsed: 8 * time.Second, Status: steps[4].st, Changed: false, Next: 2 * time.Second},
			{N: 6, Elapsed: 10 * time.Second, Status: steps[5].st, Changed: true, Err: err, Next: 0},
		}
		assert.Equal(t, want, got)
	})
}

func TestWaitAgainStartsAfresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(func(_ context.Context, n int) (poll.Status, error) {
			if n%3 == 0 {
				return succeeded, nil
			}
			return pending, nil
		})
		p := s.poller(poll.WithBackoff(poll.Constant(time.Second)), poll.WithMaxAttempts(3))
		first, err := p.Wait(t.Context())
		require.NoError(t, err)
		second, err := p.Wait(t.Context())
		require.NoError(t, err, "the attempt count starts again")
		assert.Equal(t, 3, first.n)
		assert.Equal(t, 6, second.n)
	})
}

func TestPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(finishesAt(2, succeeded))
		l := &countingLimiter{}
		p := s.poller(poll.WithLimiter(l))
		v, st, err := p.Poll(t.Context())
		require.NoError(t, err)
		assert.Equal(t, pending, st)
		assert.Equal(t, 1, v.n)
		v, st, err = p.Poll(t.Context())
		require.NoError(t, err)
		assert.Equal(t, succeeded, st)
		assert.Equal(t, 2, v.n)
		assert.Equal(t, 2, l.calls)
		assert.Equal(t, seconds(0, 0), s.at, "Poll never sleeps")

		failing := newScript(failFirst(1, &poll.APIError{StatusCode: 503}))
		_, st, err = failing.poller().Poll(t.Context())
		require.Error(t, err, "Poll does not retry")
		assert.Equal(t, poll.Status{}, st)
	})
}

func TestInvalidArgumentsAreErrorsNotPanics(t *testing.T) {
	status := func(int) poll.Status { return succeeded }
	fetch := func(context.Context) (int, error) { return 1, nil }
	tests := []struct {
		name string
		p    *poll.Poller[int]
		want string
	}{
		{"nil fetch", poll.New(nil, status), "nil fetch"},
		{"nil status", poll.New(fetch, nil), "nil status"},
		{"negative timeout", poll.New(fetch, status, poll.WithTimeout(-time.Second)), "WithTimeout(-1s)"},
		{"negative initial delay", poll.New(fetch, status, poll.WithInitialDelay(-1)), "WithInitialDelay(-1ns)"},
		{"negative attempt timeout", poll.New(fetch, status, poll.WithAttemptTimeout(-1)), "WithAttemptTimeout"},
		{"negative stall timeout", poll.New(fetch, status, poll.WithStallTimeout(-1)), "WithStallTimeout"},
		{"negative max attempts", poll.New(fetch, status, poll.WithMaxAttempts(-2)), "WithMaxAttempts(-2)"},
		{"negative max errors", poll.New(fetch, status, poll.WithMaxErrors(-3)), "WithMaxErrors(-3)"},
		{"nil BackOff", poll.New(fetch, status, poll.WithBackoff(func() backoff.BackOff { return nil })), "nil backoff.BackOff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.p.Wait(t.Context())
			require.ErrorContains(t, err, tt.want)
			if tt.name != "nil BackOff" {
				_, _, err = tt.p.Poll(t.Context())
				require.ErrorContains(t, err, tt.want)
			}
		})
	}
	t.Run("nil options are ignored", func(t *testing.T) {
		_, err := poll.New(fetch, status, nil, poll.WithBackoff(nil), poll.WithRetryable(nil)).Wait(t.Context())
		require.NoError(t, err)
	})
}

// silentlyCanceled reports Canceled once canceled is set, without closing
// its Done channel.
type silentlyCanceled struct {
	context.Context
	canceled atomic.Bool
}

func (c *silentlyCanceled) Err() error {
	if c.canceled.Load() {
		return context.Canceled
	}
	return c.Context.Err()
}
