package ingestly

import (
	"strings"

	"github.com/jobpoll/poll"
)

// Run status words, as Ingestly sends them in Run.Status.
const (
	// RunQueued: the run is waiting to start.
	RunQueued = "queued"
	// RunRunning: nodes are executing.
	RunRunning = "running"
	// RunAwaitingChildren: the run waits for the child runs a split or
	// loop started.
	RunAwaitingChildren = "awaiting_children"
	// RunReview: the run waits for a person to finish a review task.
	RunReview = "review"
	// RunWaiting: the run is parked on a Wait node.
	RunWaiting = "waiting"
	// RunCompleted is final: every step finished.
	RunCompleted = "completed"
	// RunFailed is final: error.code and error.message say why.
	RunFailed = "failed"
	// RunCancelled is final: error.code says by whom or why.
	RunCancelled = "cancelled"
)

// Words of this package's own, never sent by Ingestly: WaitForRun puts
// them in Run.Status while there is no run to read, so that a notify hook
// or logger shows why the wait goes on.
const (
	// RunNotCreated: GET /runs/{id} answered 404 within the grace period
	// after the trigger, before Ingestly created the run. Maps to Queued.
	RunNotCreated = "not_created"
	// RunHeld: the document is held (the trigger gave no run id) and
	// waits until someone runs it. Maps to Waiting.
	RunHeld = "held"
)

// Document status words, as Ingestly sends them in Document.Status. The
// docs name failed, cancelled and held; the others are the document states
// of Ingestly's dashboard, in the same lower-case spelling. New words can
// appear without notice.
const (
	// DocumentPending is the dashboard's Pending.
	DocumentPending = "pending"
	// DocumentUploaded is the dashboard's Uploaded.
	DocumentUploaded = "uploaded"
	// DocumentProcessing: a run is working on it.
	DocumentProcessing = "processing"
	// DocumentReview: its run waits for a person.
	DocumentReview = "review"
	// DocumentCompleted: its run completed.
	DocumentCompleted = "completed"
	// DocumentFailed: its run failed, or it never got one.
	DocumentFailed = "failed"
	// DocumentCancelled: its run, or the document, was cancelled.
	DocumentCancelled = "cancelled"
	// DocumentHeld: the document waits until someone runs it; it has no
	// run yet. The trigger answers this status with a null runId.
	DocumentHeld = "held"
)

// RunStatus maps a run onto the common status model:
//
//	queued                      Queued
//	running, awaiting_children  Running
//	review, waiting             Waiting (a person or a Wait node: can take hours)
//	completed                   Succeeded
//	failed                      Failed, Reason "error.code: error.message"
//	cancelled                   Canceled, Reason error.code
//	not_created (this package)  Queued
//	held (this package)         Waiting
//	anything else               Unknown, not final: Ingestly adds words without notice
//
// Words are matched without regard to case or surrounding space; Raw keeps
// the word as sent. A nil run maps to the zero Status (Unknown).
func RunStatus(r *Run) poll.Status {
	if r == nil {
		return poll.Status{}
	}
	st := poll.Status{Raw: r.Status}
	switch strings.ToLower(strings.TrimSpace(r.Status)) {
	case RunQueued, RunNotCreated:
		st.State = poll.Queued
	case RunRunning, RunAwaitingChildren:
		st.State = poll.Running
	case RunReview, RunWaiting, RunHeld:
		st.State = poll.Waiting
	case RunCompleted:
		st.State = poll.Succeeded
	case RunFailed:
		st.State = poll.Failed
		st.Reason = failureReason(r.Error)
	case RunCancelled:
		st.State = poll.Canceled
		st.Reason = cancelReason(r.Error)
	default:
		st.State = poll.Unknown
	}
	return st
}

// failureReason is "code: message", or whichever of the two is present.
func failureReason(e *RunError) string {
	if e == nil {
		return ""
	}
	switch {
	case e.Code != "" && e.Message != "":
		return e.Code + ": " + e.Message
	case e.Code != "":
		return e.Code
	}
	return e.Message
}

// cancelReason is the code, which the docs say names who or what
// cancelled the run; the message only stands in when there is no code.
func cancelReason(e *RunError) string {
	if e == nil {
		return ""
	}
	if e.Code != "" {
		return e.Code
	}
	return e.Message
}
