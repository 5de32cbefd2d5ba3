package durable

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jobpoll/poll"
)

// WaitID names a durable wait: the id of its River job. It is the same in
// every process that shares the database.
type WaitID int64

// String returns the id in decimal.
func (id WaitID) String() string { return strconv.FormatInt(int64(id), 10) }

// EndReason says how a wait ended.
type EndReason string

// How a wait can end.
const (
	// EndSucceeded: the job reached poll.Succeeded.
	EndSucceeded EndReason = "succeeded"
	// EndJob: the job reached another final state (Failed, Canceled,
	// InputRequired, PartiallyFailed): a *poll.JobError.
	EndJob EndReason = "job"
	// EndTimeout: the wait's deadline passed (poll.ErrTimeout).
	EndTimeout EndReason = "timeout"
	// EndStalled: the status did not change for the stall timeout
	// (poll.ErrStalled).
	EndStalled EndReason = "stalled"
	// EndExhausted: max attempts, max errors, or the strategy stopped
	// (poll.ErrExhausted).
	EndExhausted EndReason = "exhausted"
	// EndFetchError: a fetch failed with a permanent error ([ErrFetch]).
	EndFetchError EndReason = "fetch_error"
)

// outcomeRecord is the outcome as stored with river.RecordOutput.
type outcomeRecord struct {
	End      EndReason       `json:"end"`
	Status   statusJSON      `json:"status"`
	Observed bool            `json:"observed,omitempty"`
	Attempts int             `json:"attempts"`
	Started  time.Time       `json:"started"`
	Ended    time.Time       `json:"ended"`
	Message  string          `json:"message,omitempty"` // the error text, with numbers
	Error    *errorJSON      `json:"error,omitempty"`   // the permanent or last transient fetch error
	Value    json.RawMessage `json:"value,omitempty"`   // the last observation
}

// Result is a wait as seen from any process: while it runs, its progress;
// once Done, its outcome.
type Result struct {
	// ID names the wait.
	ID WaitID
	// Target is what it waits for.
	Target Target
	// Done reports that the wait ended.
	Done bool
	// End says how it ended, once Done ("" when it was cancelled or
	// discarded from outside, with no outcome).
	End EndReason
	// Status is the last status observed: the final one when the wait
	// ended on it.
	Status poll.Status
	// Observed is false while no observation was made (Status is then
	// the zero Status).
	Observed bool
	// Value is the last observation as JSON (e.g. an *ingestly.Run), null
	// while none was made. Decode it with [Value].
	Value json.RawMessage
	// Attempts is the number of attempts so far.
	Attempts int
	// Started is when the wait was submitted; Ended when it ended (zero
	// while it runs).
	Started, Ended time.Time
	// Next is when the next attempt is due, while the wait runs.
	Next time.Time
	// JobState is the River job's state, e.g. "scheduled" or "completed".
	JobState string

	err error
}

// Err is how the wait ended, as poll's Wait would say it: nil when the job
// succeeded, or while the wait runs. Otherwise an *[EndError], which
// errors.Is matches against the core's sentinels: a *poll.JobError (and
// so poll.ErrFailed, poll.ErrCanceled, ...) for a final job state,
// poll.ErrTimeout, poll.ErrStalled, poll.ErrExhausted, or [ErrFetch] for a
// permanent fetch error, with the *poll.APIError, when there was one,
// reachable through errors.As. A wait stopped from outside, with no
// outcome, gives [ErrWaitCanceled] or [ErrDiscarded].
func (r *Result) Err() error { return r.err }

// Elapsed is how long the wait has lasted, or lasted.
func (r *Result) Elapsed() time.Duration {
	if r.Done {
		return r.Ended.Sub(r.Started)
	}
	return time.Since(r.Started)
}

// Value decodes the last observation into T, e.g.
// durable.Value[*ingestly.Run](r). A result with no observation gives T's
// zero value and no error.
func Value[T any](r *Result) (T, error) {
	var v T
	if r == nil || len(r.Value) == 0 || string(r.Value) == "null" {
		return v, nil
	}
	if err := json.Unmarshal(r.Value, &v); err != nil {
		return v, fmt.Errorf("durable: decoding the value of wait %s as %T: %w", r.ID, v, err)
	}
	return v, nil
}

// EndError is how a wait ended when it neither succeeded nor ended on a
// final job state: a timeout, a stall, exhaustion or a permanent fetch
// error, possibly decided in another process. It matches the core's
// sentinel by errors.Is and rebuilds the *poll.APIError, when the fetch
// error was one, for errors.As.
type EndError struct {
	// ID names the wait.
	ID WaitID
	// Target is what it waited for.
	Target Target
	// End says how it ended.
	End EndReason
	// Message is the worker's account, with numbers: attempts, elapsed
	// time, last status, last error.
	Message string
	// Attempts is the number of attempts made.
	Attempts int
	// Status is the last status observed.
	Status poll.Status
	// API is the permanent or last transient fetch error, when it was an
	// API error.
	API *poll.APIError

	// wrapped: the core's sentinel or *poll.JobError, or ErrFetch.
	wrapped error
}

// Error reads like `durable: wait 7 (ingestly run documentId=d runId=r):
// timed out after 1h0m0s and 14 attempts; last status running`.
func (e *EndError) Error() string {
	return fmt.Sprintf("durable: wait %s (%s): %s", e.ID, e.Target, e.Message)
}

// Unwrap gives the sentinel (or *poll.JobError) and the API error.
func (e *EndError) Unwrap() []error {
	errs := []error{e.wrapped}
	if e.API != nil {
		errs = append(errs, e.API)
	}
	return errs
}

// endError rebuilds the error of a stored outcome.
func endError(id WaitID, t Target, rec *outcomeRecord) error {
	st := rec.Status.status()
	e := &EndError{ID: id, Target: t, End: rec.End, Message: rec.Message, Attempts: rec.Attempts, Status: st, API: rec.Error.apiError()}
	switch rec.End {
	case EndSucceeded:
		return nil
	case EndJob:
		e.wrapped = &poll.JobError{Status: st}
	case EndTimeout:
		e.wrapped = poll.ErrTimeout
	case EndStalled:
		e.wrapped = poll.ErrStalled
	case EndExhausted:
		e.wrapped = poll.ErrExhausted
	default:
		e.wrapped = ErrFetch
	}
	if e.Message == "" {
		e.Message = e.wrapped.Error()
	}
	return e
}
