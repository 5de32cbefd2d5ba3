package ingestly

import (
	"errors"
	"fmt"
	"time"
)

// ErrRunNotCreated matches a [*RunNotCreatedError]: the run WaitForRun was
// given (or waited for) does not exist, and the document's status says why.
var ErrRunNotCreated = errors.New("ingestly: the run was not created")

// RunNotCreatedError ends [Client.WaitForRun] when the run still answers
// 404 after the grace period, or when a held document ended without a run.
// Its text names the document's status (such as failed, cancelled or
// held); errors.Is(err, ErrRunNotCreated) matches it and errors.As still
// reaches the run's 404 *poll.APIError.
type RunNotCreatedError struct {
	DocumentID string
	// RunID is the run that was not found; empty when WaitForRun was
	// following a held document.
	RunID string
	// DocumentStatus is the document's status when the wait gave up.
	DocumentStatus string
	// Missing is how long there was no run to read, from the first miss
	// to the last; 0 when a document that ended without a run stopped the
	// wait at once.
	Missing time.Duration
	// Err is the last 404 of GET /runs/{runId}; nil for a held document.
	Err error
}

func (e *RunNotCreatedError) Error() string {
	switch {
	case e.RunID == "" && e.Missing > 0:
		return fmt.Sprintf("ingestly: document %q is no longer held but still lists no run %v later; its status is %q", e.DocumentID, e.Missing, e.DocumentStatus)
	case e.RunID == "":
		return fmt.Sprintf("ingestly: document %q has no run and its status is %q", e.DocumentID, e.DocumentStatus)
	}
	return fmt.Sprintf("ingestly: run %q still answers 404 Not Found %v after the first 404; its document %q has status %q", e.RunID, e.Missing, e.DocumentID, e.DocumentStatus)
}

// Is matches [ErrRunNotCreated].
func (e *RunNotCreatedError) Is(target error) bool { return target == ErrRunNotCreated }

// Unwrap returns the run's last 404, if any.
func (e *RunNotCreatedError) Unwrap() error { return e.Err }
