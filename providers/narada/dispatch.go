package narada

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/jobpoll/poll/internal/httpapi"
)

// Dispatch starts a task with POST /remote-dispatch and returns its
// requestId (the API answers 202 Accepted).
//
// Dispatch is NEVER retried automatically: the API takes no idempotency
// key, so a retry after a lost answer would start the same browser task
// twice. When Dispatch fails with a transient error (a 5xx, a timeout, a
// reset connection) the task may or may not have started; decide for
// yourself whether running it twice is acceptable before retrying.
//
// The request is checked first, with no request sent when it is invalid:
// Prompt is required, BrowserWindowID is required in client mode (the
// default), ResponseFormat must be a JSON object, CallbackURL must be
// absolute https (http only for loopback hosts, for tests), and Extra must
// not repeat a typed field.
func (c *Client) Dispatch(ctx context.Context, req DispatchRequest) (*DispatchResponse, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	var out DispatchResponse
	if err := c.api.Do(ctx, &httpapi.Request{
		Method: http.MethodPost,
		Path:   []string{"remote-dispatch"},
		JSON:   req,
	}, &out); err != nil {
		return nil, err
	}
	if out.RequestID == "" {
		return nil, errors.New("narada: POST /remote-dispatch answered without a requestId")
	}
	return &out, nil
}

func (r *DispatchRequest) validate() error {
	if strings.TrimSpace(r.Prompt) == "" {
		return errors.New("narada: DispatchRequest.Prompt is required")
	}
	if (r.ExecutionMode == "" || r.ExecutionMode == ExecutionModeClient) && strings.TrimSpace(r.BrowserWindowID) == "" {
		mode := r.ExecutionMode
		if mode == "" {
			mode = ExecutionModeClient + " (the default)"
		}
		return fmt.Errorf("narada: DispatchRequest.BrowserWindowID is required in execution mode %s; use ExecutionModeCloud or ExecutionModeCloudBrowser to run without your own window", mode)
	}
	if len(r.ResponseFormat) > 0 {
		if !json.Valid(r.ResponseFormat) {
			return errors.New("narada: DispatchRequest.ResponseFormat is not valid JSON")
		}
		if trimmed := bytes.TrimSpace(r.ResponseFormat); len(trimmed) == 0 || trimmed[0] != '{' {
			return errors.New("narada: DispatchRequest.ResponseFormat must be a JSON Schema object")
		}
	}
	if r.CallbackURL != "" {
		if err := checkCallbackURL(r.CallbackURL); err != nil {
			return err
		}
	}
	for k := range r.Extra {
		if typedField(k) {
			return fmt.Errorf("narada: DispatchRequest.Extra[%q] names a typed field; set the field instead", k)
		}
	}
	return nil
}

// checkCallbackURL accepts an absolute https URL, or http to a loopback
// host (the fake server's webhook receivers in tests).
func checkCallbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("narada: DispatchRequest.CallbackURL %q does not parse: %w", raw, err)
	}
	if u.Host == "" {
		return fmt.Errorf("narada: DispatchRequest.CallbackURL %q is not an absolute URL", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if httpapi.IsLoopback(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("narada: DispatchRequest.CallbackURL %q must use https (plain http only to a loopback host, for tests)", raw)
}
