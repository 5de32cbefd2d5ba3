package poll

import (
	"context"
	"log/slog"
	"time"
)

// report tells the notify hook and the logger about one attempt.
func (w *wait[T]) report(o outcome) {
	if w.cfg.notify == nil && w.cfg.logger == nil {
		return
	}
	a := Attempt{N: w.attempts, Elapsed: time.Since(w.start), Status: o.status, Changed: o.changed, Err: o.err, Next: o.next}
	if w.cfg.notify != nil {
		w.cfg.notify(a)
	}
	if w.cfg.logger != nil {
		logAttempt(w.ctx, w.cfg.logger, a, o.done)
	}
}

func logAttempt(ctx context.Context, logger *slog.Logger, a Attempt, done bool) {
	level, msg := slog.LevelDebug, "poll attempt"
	switch {
	case a.Err != nil && done:
		level, msg = slog.LevelWarn, "poll wait ended"
	case a.Err != nil:
		level, msg = slog.LevelWarn, "poll attempt failed"
	case a.Changed:
		level, msg = slog.LevelInfo, "poll state changed"
	}
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.Int("attempt", a.N),
		slog.Duration("elapsed", a.Elapsed),
		slog.String("state", a.Status.State.String()),
		slog.String("raw", a.Status.Raw),
	}
	if a.Status.Progress > 0 {
		attrs = append(attrs, slog.Float64("progress", a.Status.Progress))
	}
	if a.Next > 0 {
		attrs = append(attrs, slog.Duration("next", a.Next))
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error()))
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}
