package narada

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultWebhookMaxBytes bounds a webhook body. The body must be read
// before the secret inside it can be checked, so the bound is what an
// unauthenticated sender can make the receiver read; 4 MiB leaves room for
// a large structuredOutput.
const DefaultWebhookMaxBytes = 4 << 20

// Errors of [ParseWebhook], for errors.Is. [Webhooks] answers them with
// 401, 413 and 400.
var (
	// ErrWebhookSecret: the payload's callbackSecret is missing or wrong,
	// so the call cannot be told apart from a forgery.
	ErrWebhookSecret = errors.New("narada: webhook rejected: callbackSecret missing or wrong")
	// ErrWebhookTooLarge: the body is over the size limit.
	ErrWebhookTooLarge = errors.New("narada: webhook rejected: body too large")
	// ErrWebhookMalformed: the body is not a task payload.
	ErrWebhookMalformed = errors.New("narada: webhook rejected: malformed payload")
)

// WebhookPayload is what Narada POSTs to the callbackUrl when a task
// finishes: the task as GET /remote-dispatch/responses/{requestId} shows
// it, with RequestID set by Narada. The echoed callbackSecret is checked
// and left out, so logging a payload cannot leak it.
type WebhookPayload struct {
	TaskResponse
}

// ParseWebhook reads and verifies one webhook request. Narada signs
// nothing: it echoes the callbackSecret given at dispatch inside the JSON
// body, so that echo is compared with secret, in constant time (neither the
// content nor the length of secret leaks through timing). The body is read
// up to [DefaultWebhookMaxBytes]; wrap r.Body in http.MaxBytesReader for a
// smaller bound.
//
// Errors match [ErrWebhookSecret] (missing or wrong secret),
// [ErrWebhookTooLarge] or [ErrWebhookMalformed] (not JSON, no requestId).
// An empty secret is refused: it would accept anyone's POST.
func ParseWebhook(r *http.Request, secret string) (*WebhookPayload, error) {
	if secret == "" {
		return nil, errEmptyWebhookSecret
	}
	return parseWebhook(r, sha256.Sum256([]byte(secret)), DefaultWebhookMaxBytes)
}

var errEmptyWebhookSecret = errors.New("narada: the webhook secret is empty: every POST would be accepted; dispatch with a CallbackSecret and verify with it")

func parseWebhook(r *http.Request, secretHash [sha256.Size]byte, maxBytes int64) (*WebhookPayload, error) {
	if r.Body == nil {
		return nil, fmt.Errorf("%w: the request has no body", ErrWebhookMalformed)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBytes+1))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		// The caller's own http.MaxBytesReader, or the handler's.
		return nil, fmt.Errorf("%w: over the %d-byte limit", ErrWebhookTooLarge, tooLarge.Limit)
	case int64(len(body)) > maxBytes:
		return nil, fmt.Errorf("%w: over the %d-byte limit", ErrWebhookTooLarge, maxBytes)
	case err != nil:
		return nil, fmt.Errorf("%w: reading the body: %v", ErrWebhookMalformed, err)
	}
	// The secret first: an unauthenticated sender learns nothing about
	// what else a payload needs.
	var echo struct {
		CallbackSecret *string `json:"callbackSecret"`
	}
	if err := json.Unmarshal(body, &echo); err != nil {
		return nil, fmt.Errorf("%w: the body is not a JSON object (%d bytes)", ErrWebhookMalformed, len(body))
	}
	if echo.CallbackSecret == nil {
		return nil, fmt.Errorf("%w: the payload has no callbackSecret (dispatched without one?)", ErrWebhookSecret)
	}
	got := sha256.Sum256([]byte(*echo.CallbackSecret))
	if subtle.ConstantTimeCompare(got[:], secretHash[:]) != 1 {
		return nil, ErrWebhookSecret
	}
	var p WebhookPayload
	if err := json.Unmarshal(body, &p.TaskResponse); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrWebhookMalformed, err)
	}
	if strings.TrimSpace(p.RequestID) == "" {
		return nil, fmt.Errorf("%w: the payload has no requestId", ErrWebhookMalformed)
	}
	return &p, nil
}
