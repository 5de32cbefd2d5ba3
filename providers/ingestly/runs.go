package ingestly

import (
	"context"
	"net/http"

	"github.com/jobpoll/poll/internal/httpapi"
)

// Run reads one run: GET /runs/{runId}. A run id from Trigger can answer
// 404 (a *poll.APIError) for a moment before the run is created;
// [Client.WaitForRun] handles that window.
func (c *Client) Run(ctx context.Context, runID string) (*Run, error) {
	if err := requireID("Run", "run id", runID); err != nil {
		return nil, err
	}
	var run Run
	req := &httpapi.Request{Method: http.MethodGet, Path: []string{"runs", runID}}
	if err := c.api.Do(ctx, req, &run); err != nil {
		return nil, err
	}
	return &run, nil
}
