package documind

import (
	"context"
	"fmt"
	"net/http"

	"github.com/jobpoll/poll/internal/httpapi"
)

// StartBatch submits a batch extraction: POST /batch/extract, answered 202
// with the batch id and one pending item per document. Follow it with
// [Client.WaitForBatch].
//
// The request needs at least one document id, each a UUID; otherwise it is
// refused with an error matching [ErrInvalidInput], naming the bad id,
// before a request is sent.
func (c *Client) StartBatch(ctx context.Context, req BatchRequest) (*Batch, error) {
	if len(req.DocumentIDs) == 0 {
		return nil, invalid("a batch needs at least one document id, got none")
	}
	for i, id := range req.DocumentIDs {
		if err := checkUUID(fmt.Sprintf("document_ids[%d] (of %d)", i, len(req.DocumentIDs)), id); err != nil {
			return nil, err
		}
	}
	var out Batch
	err := c.api.Do(ctx, &httpapi.Request{
		Method: http.MethodPost,
		Path:   []string{"batch", "extract"},
		JSON:   req,
	}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Batch observes a batch once: GET /batch/{batch_id}. batchID must be a
// UUID.
func (c *Client) Batch(ctx context.Context, batchID string) (*Batch, error) {
	if err := checkUUID("batch id", batchID); err != nil {
		return nil, err
	}
	var out Batch
	err := c.api.Do(ctx, &httpapi.Request{
		Method: http.MethodGet,
		Path:   []string{"batch", batchID},
	}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
