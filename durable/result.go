package durable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/riverqueue/river/rivertype"
)

// Get returns the wait as it stands: its progress, or its outcome once
// Done (then r.Err() says how it ended). The error is only Get's own:
// [ErrNotFound] for an unknown id, or a database error.
func (c *Client) Get(ctx context.Context, id WaitID) (*Result, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	row, err := c.engine.JobGet(ctx, int64(id))
	if err != nil {
		if errors.Is(err, rivertype.ErrNotFound) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return nil, fmt.Errorf("durable: reading wait %s: %w", id, err)
	}
	return c.resultFromRow(row)
}

// result is resultFromRow for the hub, which only passes on ended waits.
func (c *Client) result(row *rivertype.JobRow) (*Result, bool) {
	r, err := c.resultFromRow(row)
	if err != nil || !r.Done {
		return nil, false
	}
	return r, true
}

// resultFromRow reads a wait from its River job row.
func (c *Client) resultFromRow(row *rivertype.JobRow) (*Result, error) {
	id := WaitID(row.ID)
	if row.Kind != riverKind {
		return nil, fmt.Errorf("%w: job %s is a River %q job, not a wait", ErrNotFound, id, row.Kind)
	}
	var args waitArgs
	if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
		return nil, fmt.Errorf("durable: reading wait %s: %w", id, err)
	}
	meta, err := readMetadata(row.Metadata)
	if err != nil {
		return nil, err
	}
	r := &Result{ID: id, Target: args.Target, Started: row.CreatedAt, JobState: string(row.State), Value: meta.Value}
	if st := meta.State; st != nil {
		r.Status, r.Observed, r.Attempts = st.Status.status(), st.Observed, st.Attempts
	}
	switch row.State {
	case rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded:
		r.Done = true
		if row.FinalizedAt != nil {
			r.Ended = *row.FinalizedAt
		}
	case rivertype.JobStateRunning:
		return r, nil
	default:
		r.Next = row.ScheduledAt
		return r, nil
	}
	if len(meta.Output) > 0 {
		var rec outcomeRecord
		if err := json.Unmarshal(meta.Output, &rec); err != nil {
			return nil, fmt.Errorf("durable: reading the outcome of wait %s: %w", id, err)
		}
		r.End, r.Status, r.Observed, r.Attempts = rec.End, rec.Status.status(), rec.Observed, rec.Attempts
		r.Ended = rec.Ended
		if len(rec.Value) > 0 {
			r.Value = rec.Value
		}
		r.err = endError(id, args.Target, &rec)
		return r, nil
	}
	// Ended from outside: no worker recorded an outcome.
	switch row.State {
	case rivertype.JobStateCancelled:
		r.err = fmt.Errorf("durable: wait %s (%s): %w after %s; last status %s", id, args.Target, ErrWaitCanceled, plural(r.Attempts, "attempt"), lastStatus(r))
	case rivertype.JobStateDiscarded:
		why := "no error recorded"
		if n := len(row.Errors); n > 0 {
			why = row.Errors[n-1].Error
		}
		r.err = fmt.Errorf("durable: wait %s (%s): %w after %d job runs (%s); last status %s", id, args.Target, ErrDiscarded, row.Attempt, why, lastStatus(r))
	}
	return r, nil
}

func lastStatus(r *Result) string {
	if !r.Observed {
		return "none observed"
	}
	return r.Status.String()
}
