package ingestly

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/httpapi"
)

// Trigger submits a document to a workflow: a multipart
// POST /workflows/{workflowId}/trigger with the file and the reference, and
// an Idempotency-Key header. Ingestly answers once the document is stored;
// follow the run with [Client.WaitForRun].
//
// Because of the key, a transient failure (network error, 408, 425, 429,
// 5xx: [poll.Transient]) is retried with the same key and the same bytes,
// so the document is never stored twice: at most [DefaultTriggerAttempts]
// sends in all, 0.5 s then about 1 s apart, longer when the server sends
// Retry-After (see [WithTriggerRetry]). The retry is a short poll.Poller,
// bounded only by its attempts and ctx. A failed trigger's error names the
// key: trigger again with it in [TriggerRequest.IdempotencyKey] to get the
// first answer if the document was stored after all.
//
// When the answer's Status is "held", RunID is empty: wait for the run with
// WaitForRun(ctx, resp.DocumentID, "").
func (c *Client) Trigger(ctx context.Context, workflowID string, r TriggerRequest) (*TriggerResponse, error) {
	if err := requireID("Trigger", "workflow id", workflowID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.Filename) == "" {
		return nil, fmt.Errorf("ingestly: Trigger: the filename must not be empty or blank (got %q)", r.Filename)
	}
	if len(r.File) == 0 {
		return nil, fmt.Errorf("ingestly: Trigger: the file %q is empty", r.Filename)
	}
	key := r.IdempotencyKey
	if key == "" {
		id, err := uuid.NewRandom()
		if err != nil {
			return nil, fmt.Errorf("ingestly: Trigger: generating the idempotency key: %w", err)
		}
		key = id.String()
	} else if err := checkIdempotencyKey(key); err != nil {
		return nil, err
	}
	body, contentType, err := triggerBody(r)
	if err != nil {
		return nil, err
	}

	req := &httpapi.Request{
		Method:      http.MethodPost,
		Path:        []string{"workflows", workflowID, "trigger"},
		Body:        body,
		ContentType: contentType,
		Header:      http.Header{"Idempotency-Key": {key}},
	}
	send := func(ctx context.Context) (*TriggerResponse, error) {
		var resp TriggerResponse
		if err := c.api.Do(ctx, req, &resp); err != nil {
			return nil, err
		}
		return &resp, nil
	}
	answered := func(resp *TriggerResponse) poll.Status {
		return poll.Status{State: poll.Succeeded, Raw: resp.Status}
	}
	retry := poll.New(send, answered,
		poll.WithBackoff(c.triggerBackoff),
		poll.WithMaxAttempts(c.triggerAttempts),
		poll.WithTimeout(0),
	)
	resp, err := retry.Wait(ctx)
	if err != nil {
		return nil, fmt.Errorf("ingestly: Trigger: workflow %q, idempotency key %s: %w", workflowID, key, err)
	}
	resp.IdempotencyKey = key
	return resp, nil
}

// checkIdempotencyKey refuses a key that cannot travel in a header.
func checkIdempotencyKey(key string) error {
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return fmt.Errorf("ingestly: Trigger: the idempotency key %q has a byte (0x%02x at %d) that is not printable ASCII", key, key[i], i)
		}
	}
	return nil
}

// triggerBody encodes the multipart form once, so that every attempt sends
// the same bytes.
func triggerBody(r TriggerRequest) (body []byte, contentType string, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fileType := r.ContentType
	if fileType == "" {
		fileType = mime.TypeByExtension(strings.ToLower(filepath.Ext(r.Filename)))
	}
	if fileType == "" {
		fileType = "application/octet-stream"
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", multipart.FileContentDisposition("file", r.Filename))
	h.Set("Content-Type", fileType)
	part, err := w.CreatePart(h)
	if err == nil {
		_, err = part.Write(r.File)
	}
	if err == nil && r.Reference != "" {
		err = w.WriteField("reference", r.Reference)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("ingestly: Trigger: encoding the form: %w", err)
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}
