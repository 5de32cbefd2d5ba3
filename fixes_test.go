package poll_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/jobpoll/poll"
)

// Edge cases found in review, each pinned.

func TestWakeDuringTheShortenedLastSleepIsNotTheLastAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wake := make(chan struct{})
		time.AfterFunc(time.Minute, func() { wake <- struct{}{} })
		s := newScript(never)
		_, err := s.poller(poll.WithTimeout(10*time.Minute), poll.WithBackoff(poll.Constant(20*time.Minute)), poll.WithWake(wake)).Wait(t.Context())
		require.ErrorIs(t, err, poll.ErrTimeout)
		assert.Equal(t, seconds(0, 60, 599), s.at, "the woken attempt, then the last one just before the deadline")
	})
}

func TestWakeInAGroupDuringTheShortenedLastSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wake := make(chan struct{})
		time.AfterFunc(time.Minute, func() { wake <- struct{}{} })
		s := newScript(never)
		_, err := poll.WaitAll(t.Context(), []*poll.Poller[observation]{
			s.poller(poll.WithTimeout(10*time.Minute), poll.WithBackoff(poll.Constant(20*time.Minute)), poll.WithWake(wake)),
		})
		require.ErrorIs(t, err, poll.ErrTimeout)
		assert.Equal(t, seconds(0, 60, 599), s.at)
	})
}

func TestGroupWakeDuringAFetchIsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wake := make(chan struct{}, 1)
		s := newScript(func(_ context.Context, n int) (poll.Status, error) {
			if n == 1 {
				time.AfterFunc(500*time.Millisecond, func() { wake <- struct{}{} })
				time.Sleep(time.Second) // a slow fetch, woken in the middle
				return pending, nil
			}
			return succeeded, nil
		})
		_, err := poll.WaitAll(t.Context(), []*poll.Poller[observation]{
			s.poller(poll.WithBackoff(poll.Constant(10*time.Minute)), poll.WithWake(wake)),
		})
		require.NoError(t, err)
		assert.Equal(t, seconds(0, 1), s.at, "the wake that came during the fetch brings the next attempt forward")
	})
}

func TestGroupDelaysCountFromTheEndOfTheAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fast := newScript(finishesAt(1, succeeded))
		slow := newScript(never)
		start := time.Now()
		var ended time.Duration
		for r := range poll.Each(t.Context(), []*poll.Poller[observation]{
			fast.poller(),
			slow.poller(poll.WithTimeout(3*time.Second), poll.WithBackoff(poll.Constant(10*time.Second))),
		}) {
			if r.Index == 0 {
				time.Sleep(2500 * time.Millisecond) // a slow loop body
				continue
			}
			require.ErrorIs(t, r.Err, poll.ErrTimeout)
			ended = time.Since(start)
		}
		assert.Equal(t, seconds(0, 2), slow.at, "the last attempt ran 1 s before its deadline although the loop body was busy")
		assert.Equal(t, 2500*time.Millisecond, ended, "and its outcome came as soon as the body returned")
	})
}

func TestGroupHugeMaxInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(finishesAt(2, succeeded))
		_, err := poll.WaitAll(t.Context(), []*poll.Poller[observation]{s.poller(poll.WithBackoff(poll.Constant(time.Second)))}, poll.WithMaxInFlight(math.MaxInt))
		require.NoError(t, err)
	})
}

func TestStopOnFirstErrorCountsStartErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(never)
		start := time.Now()
		_, err := poll.WaitAll(t.Context(), []*poll.Poller[observation]{nil, s.poller(poll.WithTimeout(time.Hour))}, poll.WithStopOnFirstError())
		require.Error(t, err)
		assert.Zero(t, time.Since(start), "the nil poller stopped the other wait at once")
		assert.LessOrEqual(t, len(s.at), 1)
	})
}

func TestStoppedWaitsDoNotMatchTheFailedWaitsError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failing := newScript(finishesAt(2, poll.Status{State: poll.Failed, Raw: "error"}))
		other := newScript(never)
		results := map[int]error{}
		for r := range poll.Each(t.Context(), []*poll.Poller[observation]{
			failing.poller(poll.WithBackoff(poll.Constant(time.Second))), other.poller(poll.WithBackoff(poll.Constant(time.Second))),
		}, poll.WithStopOnFirstError()) {
			results[r.Index] = r.Err
		}
		require.ErrorIs(t, results[0], poll.ErrFailed)
		require.ErrorIs(t, results[1], context.Canceled)
		assert.NotErrorIs(t, results[1], poll.ErrFailed, "a stopped wait did not fail itself")
		var jobErr *poll.JobError
		assert.False(t, errors.As(results[1], &jobErr))
		assert.Contains(t, results[1].Error(), "wait 0 failed")
	})
}

func TestLimiterRefusalsAreNotAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(never)
		notified := 0
		_, err := s.poller(poll.WithLimiter(rate.NewLimiter(1, 0)), poll.WithNotify(func(poll.Attempt) { notified++ })).Wait(t.Context())
		require.Error(t, err)
		assert.NotErrorIs(t, err, poll.ErrTimeout, "a limiter with no burst is not a timeout")
		assert.Contains(t, err.Error(), "the limiter refused attempt 1")
		assert.Zero(t, notified, "no attempt ran, none is reported")
		assert.Empty(t, s.at)
	})
	synctest.Test(t, func(t *testing.T) {
		s := newScript(never)
		l := rate.NewLimiter(rate.Every(time.Hour), 1)
		_, err := s.poller(poll.WithLimiter(l), poll.WithTimeout(time.Minute), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
		require.ErrorIs(t, err, poll.ErrTimeout, "a limiter whose wait would cross the deadline")
		assert.Equal(t, seconds(0), s.at)
	})
	synctest.Test(t, func(t *testing.T) {
		s := newScript(never)
		l := rate.NewLimiter(rate.Every(time.Hour), 1)
		_, err := poll.WaitAll(t.Context(), []*poll.Poller[observation]{s.poller(poll.WithTimeout(time.Minute), poll.WithBackoff(poll.Constant(time.Second)))}, poll.WithSharedLimiter(l))
		require.ErrorIs(t, err, poll.ErrTimeout, "the group's limiter is classified the same way")
	})
}

func TestTheLastAttemptKeepsItsLead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(func(_ context.Context, n int) (poll.Status, error) {
			time.Sleep(300 * time.Millisecond) // the API takes a moment
			if n == 2 {
				return succeeded, nil
			}
			return pending, nil
		})
		_, err := s.poller(poll.WithTimeout(10*time.Second), poll.WithBackoff(poll.Constant(9600*time.Millisecond))).Wait(t.Context())
		require.NoError(t, err, "a delay landing in the last second is moved to leave the fetch its second")
		assert.Equal(t, seconds(0, 9), s.at)
	})
}
