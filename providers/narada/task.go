package narada

import (
	"context"
	"net/http"

	"github.com/jobpoll/poll/internal/httpapi"
)

// Task reads a task's status once with
// GET /remote-dispatch/responses/{requestId}. The request id travels as one
// escaped path segment whatever it holds. The result's RequestID is set to
// requestID. Task is safe to retry: it only reads.
func (c *Client) Task(ctx context.Context, requestID string) (*TaskResponse, error) {
	if err := checkRequestID(requestID); err != nil {
		return nil, err
	}
	var out TaskResponse
	if err := c.api.Do(ctx, &httpapi.Request{
		Method: http.MethodGet,
		Path:   []string{"remote-dispatch", "responses", requestID},
	}, &out); err != nil {
		return nil, err
	}
	if out.RequestID == "" {
		out.RequestID = requestID
	}
	return &out, nil
}
