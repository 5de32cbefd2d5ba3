package ingestly

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/httpapi"
)

// Errors of [Client.RunOutput]. The error it returns matches one of them
// with errors.Is and still reaches the answer's *poll.APIError (status
// code, problem detail) with errors.As.
var (
	// ErrOutputNotReady is the API's 409 Conflict: the run has not
	// completed, or it completed without capturing an output. Wait for
	// the run first; retrying a completed run's 409 will not help.
	ErrOutputNotReady = errors.New("ingestly: the run has not completed or captured no output")
	// ErrOutputTooLarge is the API's 413 Content Too Large: the output is
	// over the 10 MB that can be returned inline. Download it from the
	// run in the Ingestly dashboard instead.
	ErrOutputTooLarge = errors.New("ingestly: the run output is over the 10 MB that can be returned inline")
)

// RunOutput reads what a completed run's Download Output node captured:
// GET /runs/{runId}/output, with ?nodeId= when nodeID is not empty (to
// pick one of several Download Output nodes; without it the most recently
// started one answers). The path follows the docs' "get run output" page;
// the docs do not print it.
//
// A 409 answer returns an error matching [ErrOutputNotReady], a 413 one
// matching [ErrOutputTooLarge]; a nodeId that is not a node of the run's
// graph gives a 404 *poll.APIError.
func (c *Client) RunOutput(ctx context.Context, runID, nodeID string) (*RunOutput, error) {
	if err := requireID("RunOutput", "run id", runID); err != nil {
		return nil, err
	}
	req := &httpapi.Request{Method: http.MethodGet, Path: []string{"runs", runID, "output"}}
	if nodeID != "" {
		req.Query = url.Values{"nodeId": {nodeID}}
	}
	var out RunOutput
	if err := c.api.Do(ctx, req, &out); err != nil {
		return nil, outputError(err)
	}
	return &out, nil
}

// outputError puts the sentinel of a 409 or 413 in front of the API error.
func outputError(err error) error {
	var apiErr *poll.APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	switch apiErr.StatusCode {
	case http.StatusConflict:
		return fmt.Errorf("%w: %w", ErrOutputNotReady, err)
	case http.StatusRequestEntityTooLarge:
		return fmt.Errorf("%w: %w", ErrOutputTooLarge, err)
	}
	return err
}

// Decode unmarshals a JSON output into v. It refuses a binary (base64)
// output; a text output decodes only into a string.
func (o *RunOutput) Decode(v any) error {
	if o.IsBase64 {
		return fmt.Errorf("ingestly: output %q is binary (%s, base64): use Bytes", o.Filename, o.ContentType)
	}
	if err := json.Unmarshal(o.Output, v); err != nil {
		return fmt.Errorf("ingestly: decoding output %q (%s): %w", o.Filename, o.ContentType, err)
	}
	return nil
}

// Text returns a text output (CSV, XML, YAML, plain text) as it was
// captured, and a JSON output as its JSON text. It refuses a binary
// (base64) output.
func (o *RunOutput) Text() (string, error) {
	if o.IsBase64 {
		return "", fmt.Errorf("ingestly: output %q is binary (%s, base64): use Bytes", o.Filename, o.ContentType)
	}
	b, err := o.Bytes()
	return string(b), err
}

// Bytes returns the output's content, ready to save under Filename: a
// binary output decoded from base64, a JSON output's JSON text, or a text
// output's characters.
func (o *RunOutput) Bytes() ([]byte, error) {
	raw := bytes.TrimSpace(o.Output)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("ingestly: output %q has no content", o.Filename)
	}
	if o.IsBase64 {
		var encoded string
		if err := json.Unmarshal(raw, &encoded); err != nil {
			return nil, fmt.Errorf("ingestly: output %q is marked base64 but is not a JSON string: %w", o.Filename, err)
		}
		b, err := base64.StdEncoding.DecodeString(encoded)
		if err != nil {
			return nil, fmt.Errorf("ingestly: decoding the base64 of output %q: %w", o.Filename, err)
		}
		return b, nil
	}
	// A JSON document is its JSON text, even when it is a lone string; any
	// other format arrives as a string holding the file's characters.
	if raw[0] != '"' || isJSONType(o.ContentType) {
		return raw, nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("ingestly: decoding the text of output %q: %w", o.Filename, err)
	}
	return []byte(text), nil
}

// isJSONType reports whether a media type is JSON: application/json or a
// +json suffix such as application/ld+json.
func isJSONType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}
