package narada

import (
	"strings"

	"github.com/jobpoll/poll"
)

// TaskStatus maps a task onto the common model:
//
//	pending        → poll.Running
//	success        → poll.Succeeded
//	error          → poll.Failed, Reason = response.text
//	input-required → poll.InputRequired, Reason = response.text
//	anything else  → poll.Unknown (not final), Raw = the word
//
// input-required is final here because the agent cannot go on until
// someone answers, and the docs' own loop stops on it: waiting longer would
// only burn requests, so the caller hears at once (poll.ErrInputRequired,
// with the response). A nil task maps to poll.Unknown.
func TaskStatus(t *TaskResponse) poll.Status {
	return taskStatus(t, poll.InputRequired)
}

// TaskStatusWaitThroughInputRequired is [TaskStatus] with input-required
// mapped to poll.Waiting, which is not final: the wait goes on while a
// person, alerted from the poll.WithNotify hook (Reason holds the agent's
// question), answers in the Narada UI. [WithWaitThroughInputRequired]
// makes a client use it.
func TaskStatusWaitThroughInputRequired(t *TaskResponse) poll.Status {
	return taskStatus(t, poll.Waiting)
}

func taskStatus(t *TaskResponse, inputRequired poll.State) poll.Status {
	if t == nil {
		return poll.Status{State: poll.Unknown}
	}
	st := poll.Status{Raw: t.Status}
	// Matched without regard to case or surrounding space: a cosmetic
	// change on the API side must not stall a wait in Unknown.
	switch strings.ToLower(strings.TrimSpace(t.Status)) {
	case StatusPending:
		st.State = poll.Running
	case StatusSuccess:
		st.State = poll.Succeeded
	case StatusError:
		st.State = poll.Failed
		st.Reason = t.text()
	case StatusInputRequired:
		st.State = inputRequired
		st.Reason = t.text()
	default:
		st.State = poll.Unknown
	}
	return st
}

func (t *TaskResponse) text() string {
	if t.Response == nil {
		return ""
	}
	return strings.TrimSpace(t.Response.Text)
}
