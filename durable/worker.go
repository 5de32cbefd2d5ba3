package durable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/jobpoll/poll"
)

// worker makes one attempt of a wait per River job run: one Poll, then a
// snooze until the next attempt, or the outcome.
type worker struct {
	river.WorkerDefaults[waitArgs]

	kinds   kinds
	limiter poll.Limiter
	slack   time.Duration
	logger  *slog.Logger
}

// Work runs one attempt. Its state is read from the job's metadata and
// written back with River's MetadataSet, merged into the row by the same
// write that snoozes, completes or cancels the job.
func (w *worker) Work(ctx context.Context, job *river.Job[waitArgs]) error {
	id, t, p := WaitID(job.ID), job.Args.Target, job.Args.Plan
	k, err := w.kinds.lookup(t)
	if err != nil {
		// Another worker, or this one after a deploy, may know the kind:
		// River retries the job, and discards it after its max attempts.
		return err
	}
	meta, err := readMetadata(job.Metadata)
	if err != nil {
		return river.JobCancel(err)
	}
	st := meta.State
	if st == nil {
		st = &waitState{}
	}
	strategy, err := w.kinds.strategies.resume(p.Strategy, st.Steps, st.Waited)
	if err != nil {
		return err
	}
	a := &attempt{plan: p, state: st, start: job.CreatedAt, strategy: strategy, retryable: k.retryable(), slack: w.slack}

	value, r, stopping := w.fetch(ctx, k, t, a)
	if stopping != nil {
		// The client is stopping, the wait was cancelled, or the limiter
		// refused for a reason of its own: nothing is recorded, and River
		// makes the job available again, retries it, or cancels it.
		return stopping
	}
	var d decision
	if r.refused != nil {
		d = a.refused(r.refused, time.Now())
	} else {
		d = a.after(r, time.Now())
	}
	if r.err == nil && !bytes.Equal(value, meta.Value) {
		meta.Value = value
		if err := river.MetadataSet(ctx, metaValue, value); err != nil {
			return err
		}
	}
	if err := river.MetadataSet(ctx, metaState, st); err != nil {
		return err
	}
	w.log(ctx, id, t, st, r, d)
	if d.end == nil {
		return river.JobSnooze(d.next)
	}
	d.end.Value = meta.Value
	if err := river.RecordOutput(ctx, d.end); err != nil {
		return err
	}
	// The outcome holds the last observation now: keep one copy.
	if err := river.MetadataSet(ctx, metaValue, nil); err != nil {
		return err
	}
	if d.end.End == EndSucceeded {
		return nil
	}
	// Not retried by River, whatever its attempts left.
	return river.JobCancel(endError(id, t, d.end))
}

// fetch makes the attempt's one Poll. stopping is set when the job's
// context ended for a reason of River's (the client stopping, the wait
// cancelled), in which case the attempt does not count.
func (w *worker) fetch(ctx context.Context, k Kind, t Target, a *attempt) (value json.RawMessage, r fetchResult, stopping error) {
	fetchCtx := ctx
	bound := a.begin(time.Now())
	if !bound.IsZero() {
		var cancel context.CancelFunc
		fetchCtx, cancel = context.WithDeadline(ctx, bound)
		defer cancel()
	}
	if w.limiter != nil {
		// Consulted here rather than through Poll: a refusal is not an
		// attempt, as in the core.
		if err := w.limiter.Wait(fetchCtx); err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, r, err
			case !bound.IsZero() && (fetchCtx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "exceed context deadline")):
				return nil, fetchResult{refused: err}, nil
			}
			return nil, r, fmt.Errorf("durable: the limiter refused attempt %d: %w", a.state.Attempts+1, err)
		}
	}
	var opts []poll.Option
	if a.plan.AttemptTimeout > 0 {
		opts = append(opts, poll.WithAttemptTimeout(a.plan.AttemptTimeout))
	}
	began := time.Now()
	value, status, err := k.poll(fetchCtx, t, opts)
	if err == nil {
		return value, fetchResult{status: status}, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(ctxErr, context.DeadlineExceeded) {
		return nil, r, err
	}
	r = fetchResult{status: status, err: err}
	switch {
	case ctx.Err() == nil && fetchCtx.Err() != nil:
		r.deadlineCut = true
	case a.plan.AttemptTimeout > 0 && errors.Is(err, context.DeadlineExceeded) && time.Since(began) >= a.plan.AttemptTimeout:
		r.attemptTimedOut = true
	}
	return nil, r, nil
}

func (w *worker) log(ctx context.Context, id WaitID, t Target, st *waitState, r fetchResult, d decision) {
	level, msg := slog.LevelDebug, "durable attempt"
	var endErr error
	if d.end != nil && d.end.End != EndSucceeded {
		endErr = endError(id, t, d.end)
	}
	switch {
	case endErr != nil:
		level, msg = slog.LevelWarn, "durable wait ended"
	case d.end != nil:
		level, msg = slog.LevelInfo, "durable wait ended"
	case r.err != nil:
		level, msg = slog.LevelWarn, "durable attempt failed"
	case d.changed:
		level, msg = slog.LevelInfo, "durable state changed"
	}
	if !w.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.Int64("wait", int64(id)),
		slog.String("target", t.String()),
		slog.Int("attempt", st.Attempts),
		slog.String("state", st.Status.State),
		slog.String("raw", st.Status.Raw),
	}
	if d.end == nil {
		attrs = append(attrs, slog.Duration("next", d.next))
	}
	switch {
	case endErr != nil:
		attrs = append(attrs, slog.String("error", endErr.Error()))
	case r.err != nil:
		attrs = append(attrs, slog.String("error", r.err.Error()))
	}
	w.logger.LogAttrs(ctx, level, msg, attrs...)
}
