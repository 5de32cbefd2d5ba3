package poll_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

// recordHandler keeps every record, at every level.
type recordHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

func TestWaitLogsOneLinePerAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := []struct {
			st  poll.Status
			err error
		}{
			{poll.Status{State: poll.Queued, Raw: "queued"}, nil},              // first observation: Info
			{poll.Status{State: poll.Queued, Raw: "queued"}, nil},              // unchanged: Debug
			{poll.Status{}, &poll.APIError{StatusCode: 502}},                   // error: Warn
			{poll.Status{State: poll.Running, Raw: "running"}, nil},            // changed: Info
			{poll.Status{State: poll.Failed, Raw: "failed", Reason: "x"}, nil}, // the wait ends in error: Warn
		}
		s := newScript(func(_ context.Context, n int) (poll.Status, error) { return steps[n-1].st, steps[n-1].err })
		h := &recordHandler{}
		_, err := s.poller(poll.WithLogger(slog.New(h)), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
		require.ErrorIs(t, err, poll.ErrFailed)
		require.Len(t, h.records, len(steps), "exactly one line per attempt")
		want := []slog.Level{slog.LevelInfo, slog.LevelDebug, slog.LevelWarn, slog.LevelInfo, slog.LevelWarn}
		for i, r := range h.records {
			assert.Equal(t, want[i], r.Level, "attempt %d", i+1)
			attrs := map[string]slog.Value{}
			r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
			assert.Equal(t, int64(i+1), attrs["attempt"].Int64())
		}
	})
}

func TestWaitWithoutLoggerOrNotify(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(finishesAt(3, succeeded))
		_, err := s.poller(poll.WithLogger(nil), poll.WithNotify(nil), poll.WithBackoff(poll.Constant(time.Second))).Wait(t.Context())
		require.NoError(t, err)
	})
}
