package naradatest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jobpoll/poll/providers/narada"
)

// Step is one status in a task's scripted life. A step takes effect once
// the task has been polled AfterPolls times AND After has passed since it
// was created (a zero condition always holds), and only after the step
// before it. Until the first step takes effect the task is "pending" with a
// null response.
type Step struct {
	// Status is the word the API reports: narada.StatusPending,
	// StatusSuccess, StatusError, StatusInputRequired, or any other word
	// (to test unknown statuses).
	Status string
	// Text is response.text: the answer, the error, or the agent's
	// question. The response is null when Text and StructuredOutput are
	// both empty.
	Text string
	// StructuredOutput is response.structuredOutput.
	StructuredOutput json.RawMessage
	// AfterPolls: the step is visible from poll AfterPolls+1 of this task.
	AfterPolls int
	// After: the step is visible this long after the task was created. A
	// step that finishes the task with After set delivers its webhook on
	// time, polled or not.
	After time.Duration
}

// DefaultSteps is the life of a dispatched task unless SetDispatchSteps
// says otherwise: pending for two polls, then success.
func DefaultSteps() []Step {
	return []Step{{Status: narada.StatusSuccess, Text: "Task completed.", AfterPolls: 2}}
}

// Task scripts a task for AddTask.
type Task struct {
	// RequestID names the task; empty means a generated "req_..." id.
	RequestID string
	// BrowserWindowID is reported as browserWindowId (null when empty).
	BrowserWindowID string
	// Steps is the task's life; see Step.
	Steps []Step
	// Usage is reported as usage (null when empty).
	Usage json.RawMessage
	// CallbackURL, CallbackHeaders and CallbackSecret are as given at
	// dispatch: when the task finishes (success or error) its payload is
	// POSTed to CallbackURL, which for this fake must be on a loopback host.
	CallbackURL     string
	CallbackHeaders map[string]string
	CallbackSecret  string
}

// task is a task's state. Guarded by Server.mu.
type task struct {
	spec    Task
	created time.Time
	current int       // index of the step in effect, -1 before the first
	since   time.Time // when the current step took effect
	polls   int
	hooked  bool // the webhook delivery has started
	timers  []*time.Timer
}

// AddTask scripts a task and returns its request id. It panics if the id
// is taken or the callback URL is not a loopback http(s) URL: both are
// mistakes in the test itself.
func (s *Server) AddTask(t Task) string {
	if t.CallbackURL != "" {
		if err := checkCallback(t.CallbackURL); err != nil {
			panic("naradatest: AddTask: " + err.Error())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.RequestID == "" {
		t.RequestID = newRequestID()
	}
	if _, taken := s.tasks[t.RequestID]; taken {
		panic(fmt.Sprintf("naradatest: AddTask: the request id %q is taken", t.RequestID))
	}
	s.addLocked(t)
	return t.RequestID
}

// SetDispatchSteps sets the life of the tasks dispatched from now on.
func (s *Server) SetDispatchSteps(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatchSteps = append([]Step(nil), steps...)
}

func (s *Server) addLocked(spec Task) *task {
	spec.Steps = append([]Step(nil), spec.Steps...)
	now := time.Now()
	t := &task{spec: spec, created: now, current: -1, since: now}
	s.tasks[spec.RequestID] = t
	for _, st := range spec.Steps {
		if st.After > 0 && !s.closed {
			id := spec.RequestID
			t.timers = append(t.timers, time.AfterFunc(st.After, func() { s.tick(id) }))
		}
	}
	s.advanceLocked(t, now)
	return t
}

// tick lets time-driven steps take effect without a poll, so their
// webhooks go out on time.
func (s *Server) tick(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tasks[id]; ok && !s.closed {
		s.advanceLocked(t, time.Now())
	}
}

// advanceLocked moves the task through every step whose conditions hold,
// and starts the webhook once it has finished.
func (s *Server) advanceLocked(t *task, now time.Time) {
	for next := t.current + 1; next < len(t.spec.Steps); next++ {
		st := t.spec.Steps[next]
		if t.polls < st.AfterPolls || now.Sub(t.created) < st.After {
			break
		}
		t.current, t.since = next, now
	}
	if t.finished() && !t.hooked && t.spec.CallbackURL != "" {
		t.hooked = true
		s.deliverLocked(t)
	}
}

func (t *task) step() Step {
	if t.current < 0 {
		return Step{Status: narada.StatusPending}
	}
	return t.spec.Steps[t.current]
}

// finished reports whether the task completed: success or error, the
// statuses with completedAt set. input-required is not over.
func (t *task) finished() bool {
	st := t.step().Status
	return st == narada.StatusSuccess || st == narada.StatusError
}

// wireTask is the JSON of GET /remote-dispatch/responses/{requestId}.
type wireTask struct {
	Status          string          `json:"status"`
	BrowserWindowID *string         `json:"browserWindowId"`
	Response        *wireResult     `json:"response"`
	CreatedAt       string          `json:"createdAt"`
	CompletedAt     *string         `json:"completedAt"`
	Usage           json.RawMessage `json:"usage"`
}

type wireResult struct {
	Text             string          `json:"text"`
	StructuredOutput json.RawMessage `json:"structuredOutput,omitempty"`
}

func (t *task) wire() wireTask {
	st := t.step()
	w := wireTask{Status: st.Status, CreatedAt: timestamp(t.created), Usage: t.spec.Usage}
	if t.spec.BrowserWindowID != "" {
		id := t.spec.BrowserWindowID
		w.BrowserWindowID = &id
	}
	if st.Text != "" || len(st.StructuredOutput) > 0 {
		w.Response = &wireResult{Text: st.Text, StructuredOutput: st.StructuredOutput}
	}
	if t.finished() {
		at := timestamp(t.since)
		w.CompletedAt = &at
	}
	return w
}
