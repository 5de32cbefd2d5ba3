package poll

import (
	"fmt"
	"time"
)

// State is where a job stands, in a vocabulary shared by every provider.
// Adapters map each API's own status words onto it; the word itself stays
// available in [Status.Raw].
type State uint8

// The states a job can be in. Only Succeeded, Failed, Canceled,
// InputRequired and PartiallyFailed are final.
const (
	// Unknown is a word the adapter does not know. It is never final:
	// providers add status values without notice, and a new word must not
	// end a wait early.
	Unknown State = iota
	// Queued means accepted but not started.
	Queued
	// Running means the job is being worked on.
	Running
	// Waiting means the job is parked on a person or an outside event
	// (a review, a wait node, child runs).
	Waiting
	// Succeeded is final: the job finished and its result is ready.
	Succeeded
	// Failed is final: the job stopped on an error.
	Failed
	// Canceled is final: someone or something cancelled the job.
	Canceled
	// InputRequired is final for polling: the job cannot go on without
	// the caller, so waiting longer would only burn requests.
	InputRequired
	// PartiallyFailed is final: some items failed and some did not.
	PartiallyFailed
)

var stateNames = [...]string{
	Unknown:         "unknown",
	Queued:          "queued",
	Running:         "running",
	Waiting:         "waiting",
	Succeeded:       "succeeded",
	Failed:          "failed",
	Canceled:        "canceled",
	InputRequired:   "input_required",
	PartiallyFailed: "partially_failed",
}

// Final reports whether a wait stops at this state.
func (s State) Final() bool {
	return s >= Succeeded && s <= PartiallyFailed
}

// String returns the state's name in snake case, e.g. "input_required".
// A value outside the declared constants prints as "State(n)".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Status is one observation of a job, in the common model.
type Status struct {
	// State is the job's state in the common model.
	State State
	// Raw is the provider's own word, e.g. "awaiting_children".
	Raw string
	// Reason says why, when the provider says (an error message or code).
	Reason string
	// Progress is the fraction done, 0..1, where the provider reports it;
	// otherwise 0.
	Progress float64
	// RetryAfter is the server's hint for the next poll, otherwise 0.
	// It raises the strategy's next delay and never lowers it.
	RetryAfter time.Duration
}

// String describes the status for logs and error texts, e.g.
// `running ("awaiting_children")`.
func (s Status) String() string {
	text := s.State.String()
	if s.Raw != "" && s.Raw != text {
		text += fmt.Sprintf(" (%q)", s.Raw)
	}
	if s.Reason != "" {
		text += ": " + s.Reason
	}
	return text
}

// sameProgress reports whether two observations show no change for the
// stall timeout: same state, same raw word, same progress.
func (s Status) sameProgress(o Status) bool {
	return s.State == o.State && s.Raw == o.Raw && s.Progress == o.Progress
}
