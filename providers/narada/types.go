package narada

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ExecutionMode says where the agent runs the task.
type ExecutionMode string

// The documented execution modes. An empty mode means the API's default,
// ExecutionModeClient.
const (
	// ExecutionModeClient runs the task in your own browser window (the
	// Narada extension); DispatchRequest.BrowserWindowID is required.
	ExecutionModeClient ExecutionMode = "client"
	// ExecutionModeCloud runs the task on Narada's infrastructure.
	ExecutionModeCloud ExecutionMode = "cloud"
	// ExecutionModeCloudBrowser runs the task in a browser hosted by Narada.
	ExecutionModeCloudBrowser ExecutionMode = "cloud_browser"
)

// The task status words of GET /remote-dispatch/responses/{requestId}.
const (
	// StatusPending: the task is still running.
	StatusPending = "pending"
	// StatusSuccess: the task finished; Response holds the result.
	StatusSuccess = "success"
	// StatusError: the task failed; Response.Text says why.
	StatusError = "error"
	// StatusInputRequired: the agent stopped to ask the user something
	// (Response.Text); completedAt stays null, the task is not over.
	StatusInputRequired = "input-required"
)

// DispatchRequest is the body of POST /remote-dispatch. Zero values are
// left out, so the API's defaults apply.
type DispatchRequest struct {
	// Prompt is required. Start it with "/Operator" for the web agent;
	// without a prefix the Generalist agent runs it.
	Prompt string `json:"prompt"`
	// BrowserWindowID is required when ExecutionMode is client or empty.
	BrowserWindowID string `json:"browserWindowId,omitempty"`
	// ExecutionMode defaults to ExecutionModeClient on the API side.
	ExecutionMode ExecutionMode `json:"executionMode,omitempty"`
	// ClearChat is a pointer because the API's default is true: nil keeps
	// the default, Bool(false) continues the existing chat.
	ClearChat *bool `json:"clearChat,omitempty"`
	// PreviousRequestID continues from an earlier task.
	PreviousRequestID string `json:"previousRequestId,omitempty"`
	// GenerateGIF asks for a GIF recording of the run (default false).
	GenerateGIF bool `json:"generateGif,omitempty"`
	// ResponseFormat is a JSON Schema object; the result then carries
	// TaskResult.StructuredOutput.
	ResponseFormat json.RawMessage `json:"responseFormat,omitempty"`
	// CallbackURL receives the finished task by POST. The API requires a
	// public HTTPS URL; plain http is accepted here for loopback hosts only,
	// for tests against naradatest.
	CallbackURL string `json:"callbackUrl,omitempty"`
	// CallbackHeaders are sent with the callback, e.g. your own
	// Authorization header.
	CallbackHeaders map[string]string `json:"callbackHeaders,omitempty"`
	// CallbackSecret is echoed inside the webhook payload; the API signs
	// nothing, so this is how a receiver tells a real callback from a forged
	// one (see ParseWebhook).
	CallbackSecret string `json:"callbackSecret,omitempty"`
	// Variables are substituted for ${name} in the prompt.
	Variables map[string]string `json:"variables,omitempty"`
	// Extra holds body fields this type does not name: the docs list
	// attachments, a timezone, MCP servers and custom-agent inputs without
	// their exact JSON names. Each value is sent as given under its key; a
	// key that a typed field already sends is an error.
	Extra map[string]any `json:"-"`
}

// Bool returns a pointer to v, for DispatchRequest.ClearChat.
func Bool(v bool) *bool { return &v }

// typedField reports whether name is the JSON name of a typed
// DispatchRequest field.
func typedField(name string) bool {
	switch name {
	case "prompt", "browserWindowId", "executionMode", "clearChat", "previousRequestId",
		"generateGif", "responseFormat", "callbackUrl", "callbackHeaders", "callbackSecret", "variables":
		return true
	}
	return false
}

// dispatchWire is DispatchRequest without its JSON methods.
type dispatchWire DispatchRequest

// MarshalJSON sends the typed fields and then the Extra ones.
func (r DispatchRequest) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(dispatchWire(r))
	if err != nil || len(r.Extra) == 0 {
		return data, err
	}
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if typedField(k) {
			return nil, fmt.Errorf("narada: DispatchRequest.Extra[%q] names a typed field; set the field instead", k)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("narada: encoding DispatchRequest.Extra[%q]: %w", k, err)
		}
		fields[k] = raw
	}
	return json.Marshal(fields)
}

// UnmarshalJSON reads the typed fields and keeps every other key in Extra
// as a json.RawMessage, so a receiver (such as naradatest) loses nothing.
func (r *DispatchRequest) UnmarshalJSON(data []byte) error {
	var w dispatchWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	for k, v := range fields {
		if typedField(k) {
			continue
		}
		if w.Extra == nil {
			w.Extra = map[string]any{}
		}
		w.Extra[k] = v
	}
	*r = DispatchRequest(w)
	return nil
}

// DispatchResponse is the 202 answer of POST /remote-dispatch.
type DispatchResponse struct {
	// RequestID names the task, e.g. "req_abc123def456".
	RequestID string `json:"requestId"`
}

// TaskResponse is one observation of a task, from
// GET /remote-dispatch/responses/{requestId} or a webhook.
type TaskResponse struct {
	// RequestID is the task's id. The status endpoint does not send it; the
	// client fills it in from the id it asked for, so a result always says
	// which task it belongs to. Webhook payloads carry it themselves.
	RequestID string `json:"requestId,omitempty"`
	// Status is one of StatusPending, StatusSuccess, StatusError,
	// StatusInputRequired, or a word added since.
	Status string `json:"status"`
	// BrowserWindowID is the window the task ran in, if any.
	BrowserWindowID string `json:"browserWindowId,omitempty"`
	// Response is nil while the task is pending.
	Response *TaskResult `json:"response"`
	// CreatedAt is when the task was dispatched.
	CreatedAt time.Time `json:"createdAt"`
	// CompletedAt is set for success and error, nil otherwise (including
	// input-required, which is not over).
	CompletedAt *time.Time `json:"completedAt"`
	// Usage is the API's usage record, kept as sent (its shape is not
	// documented); nil when absent or null.
	Usage json.RawMessage `json:"usage,omitempty"`
}

// TaskResult is a task's answer.
type TaskResult struct {
	// Text is the agent's answer, the error message, or its question for
	// input-required.
	Text string `json:"text"`
	// StructuredOutput follows DispatchRequest.ResponseFormat, when given.
	StructuredOutput json.RawMessage `json:"structuredOutput,omitempty"`
}

// taskWire is TaskResponse without its JSON methods.
type taskWire TaskResponse

// UnmarshalJSON reads the timestamps leniently: the docs show
// "2024-12-19T00:00:00.000000+00:00", and a timestamp without an offset
// (as Python writes a naive datetime) is read as UTC rather than failing a
// whole status poll.
func (t *TaskResponse) UnmarshalJSON(data []byte) error {
	var w struct {
		*taskWire
		CreatedAt   *lenientTime `json:"createdAt"`
		CompletedAt *lenientTime `json:"completedAt"`
	}
	var plain taskWire
	w.taskWire = &plain
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.CreatedAt != nil {
		plain.CreatedAt = time.Time(*w.CreatedAt)
	}
	if w.CompletedAt != nil && !time.Time(*w.CompletedAt).IsZero() {
		at := time.Time(*w.CompletedAt)
		plain.CompletedAt = &at
	}
	plain.Usage = nullAsNil(plain.Usage)
	if plain.Response != nil {
		plain.Response.StructuredOutput = nullAsNil(plain.Response.StructuredOutput)
	}
	*t = TaskResponse(plain)
	return nil
}

// lenientTime is an RFC 3339 time whose offset may be missing.
type lenientTime time.Time

func (l *lenientTime) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("narada: a timestamp is not a string: %s", data)
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if at, err := time.Parse(layout, s); err == nil {
			*l = lenientTime(at)
			return nil
		}
	}
	return fmt.Errorf("narada: the timestamp %q is not RFC 3339", s)
}

// nullAsNil turns an explicit JSON null into nil, so callers test one thing.
func nullAsNil(raw json.RawMessage) json.RawMessage {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}
