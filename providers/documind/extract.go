package documind

import (
	"context"
	"net/http"

	"github.com/jobpoll/poll/internal/httpapi"
)

// Extract runs an extraction on an uploaded document: POST
// /extract/{document_id}. The call is synchronous: the results are in the
// answer. When the answer says NeedsReview, a person has to check the
// extraction in the Documind dashboard; wait for that with
// [Client.WaitForReview].
//
// documentID must be a UUID; anything else is refused with an error
// matching [ErrInvalidInput] before a request is sent.
func (c *Client) Extract(ctx context.Context, documentID string, req ExtractRequest) (*ExtractResult, error) {
	if err := checkUUID("document id", documentID); err != nil {
		return nil, err
	}
	var out ExtractResult
	err := c.api.Do(ctx, &httpapi.Request{
		Method: http.MethodPost,
		Path:   []string{"extract", documentID},
		JSON:   req,
	}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
