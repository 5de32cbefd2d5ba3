package durable

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jobpoll/poll"
)

// Keys of the job's metadata this module writes. River merges them into the
// row in the same write that snoozes, cancels or completes the job.
const (
	metaState = "jobpoll"       // waitState
	metaValue = "jobpoll_value" // the last observation's JSON
)

// waitState is a wait's progress, kept in the job's metadata so that any
// worker can continue it where the last one left off.
type waitState struct {
	// Attempts made so far.
	Attempts int `json:"attempts"`
	// ErrorsInRow counts consecutive transient fetch errors.
	ErrorsInRow int `json:"errorsInRow,omitempty"`
	// Observed: Status holds a real observation.
	Observed bool       `json:"observed,omitempty"`
	Status   statusJSON `json:"status"`
	// LastChange is when State, Raw or Progress last changed (or the
	// first observation), for the stall timeout.
	LastChange time.Time `json:"lastChange,omitzero"`
	// Steps and Waited are the strategy's progress: how many delays it
	// gave and their sum, before any server hint raised them.
	Steps  int           `json:"steps,omitempty"`
	Waited time.Duration `json:"waited,omitempty"`
	// LastChance: the next attempt is the last one, just before the
	// deadline.
	LastChance bool `json:"lastChance,omitempty"`
	// LastError is the last transient fetch error, cleared by an
	// observation.
	LastError *errorJSON `json:"lastError,omitempty"`
}

// metadata is what this module reads back from a job's metadata.
type metadata struct {
	State *waitState      `json:"jobpoll"`
	Value json.RawMessage `json:"jobpoll_value"`
	// Output is River's RecordOutput (rivertype.MetadataKeyOutput): the
	// outcome.
	Output json.RawMessage `json:"output"`
}

func readMetadata(raw []byte) (metadata, error) {
	var m metadata
	if len(raw) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("durable: reading the job's metadata: %w", err)
	}
	return m, nil
}

// statusJSON is a poll.Status as stored: the state by name, so the rows
// read well in River's UI and survive a renumbering.
type statusJSON struct {
	State      string        `json:"state"`
	Raw        string        `json:"raw,omitempty"`
	Reason     string        `json:"reason,omitempty"`
	Progress   float64       `json:"progress,omitempty"`
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

func toStatusJSON(s poll.Status) statusJSON {
	return statusJSON{State: s.State.String(), Raw: s.Raw, Reason: s.Reason, Progress: s.Progress, RetryAfter: s.RetryAfter}
}

func (s statusJSON) status() poll.Status {
	return poll.Status{State: parseState(s.State), Raw: s.Raw, Reason: s.Reason, Progress: s.Progress, RetryAfter: s.RetryAfter}
}

// parseState is the inverse of poll.State.String; an unknown name is
// poll.Unknown, which is never final.
func parseState(name string) poll.State {
	for i := range 256 {
		if s := poll.State(i); s.String() == name {
			return s
		}
	}
	return poll.Unknown
}

// sameProgress is the core's test for the stall timeout: same State, Raw
// and Progress.
func sameProgress(a, b poll.Status) bool {
	return a.State == b.State && a.Raw == b.Raw && a.Progress == b.Progress
}

// errorJSON keeps what survives of an error across processes: its text,
// and an API error's fields so errors.As can find a *poll.APIError again.
type errorJSON struct {
	Message string        `json:"message"`
	API     *apiErrorJSON `json:"api,omitempty"`
}

type apiErrorJSON struct {
	StatusCode int           `json:"statusCode"`
	Method     string        `json:"method,omitempty"`
	URL        string        `json:"url,omitempty"`
	Code       string        `json:"code,omitempty"`
	Message    string        `json:"message,omitempty"`
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

func toErrorJSON(err error) *errorJSON {
	if err == nil {
		return nil
	}
	e := &errorJSON{Message: err.Error()}
	var api *poll.APIError
	if errors.As(err, &api) {
		e.API = &apiErrorJSON{
			StatusCode: api.StatusCode, Method: api.Method, URL: api.URL,
			Code: api.Code, Message: api.Message, RetryAfter: api.RetryAfter,
		}
	}
	return e
}

// apiError rebuilds the *poll.APIError, or returns nil.
func (e *errorJSON) apiError() *poll.APIError {
	if e == nil || e.API == nil {
		return nil
	}
	a := e.API
	return &poll.APIError{StatusCode: a.StatusCode, Method: a.Method, URL: a.URL, Code: a.Code, Message: a.Message, RetryAfter: a.RetryAfter}
}
