package narada

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// maxEarlyArrivals bounds how many webhooks for tasks that nobody waits on
// yet are remembered, so a flood of callbacks cannot grow memory without
// bound; the oldest are forgotten first. Forgetting one costs nothing but
// speed: the poll still finds the result.
const maxEarlyArrivals = 1024

// WebhookOption configures [Webhooks].
type WebhookOption func(*Webhooks)

// OnWebhook hands every verified payload to fn, before the answer is sent.
// An error from fn is answered with 500, so Narada delivers the callback
// again; fn should therefore tolerate a payload it has already seen.
// Default: none, the handler only wakes waiters.
func OnWebhook(fn func(ctx context.Context, p *WebhookPayload) error) WebhookOption {
	return func(h *Webhooks) { h.handle = fn }
}

// WithWebhookMaxBytes bounds a webhook body. Default:
// [DefaultWebhookMaxBytes].
func WithWebhookMaxBytes(n int64) WebhookOption {
	return func(h *Webhooks) { h.maxBytes = n }
}

// Webhooks is an http.Handler for Narada's task callbacks: mount it at the
// path of your CallbackURL. It verifies each POST with [ParseWebhook]'s
// rules, answers 204 when verified (401 for a wrong or missing secret, 400
// for a malformed body, 413 for an oversized one, 405 for another method,
// 500 when the OnWebhook func fails), hands the payload to the OnWebhook
// func and then wakes the waits subscribed with [Webhooks.Wake].
//
// Waking is all it needs to do for a wait: the poll that follows reads the
// authoritative status, so a webhook that is lost, late or repeated costs
// at most the polling delay, never a wrong result. Webhooks is safe for
// concurrent use.
type Webhooks struct {
	secret   [sha256.Size]byte
	maxBytes int64
	handle   func(context.Context, *WebhookPayload) error

	mu sync.Mutex
	// waiters: the channels subscribed per request id. An id is removed
	// with its last subscriber, so the map holds only live waits.
	waiters map[string][]chan struct{}
	// early: ids whose webhook came while nobody waited, so a wait that
	// subscribes just after is still woken; bounded by maxEarlyArrivals.
	early map[string]*list.Element
	order *list.List // of request ids, oldest first
}

// NewWebhooks returns a handler that accepts callbacks carrying secret, the
// CallbackSecret you dispatch tasks with. An empty secret is an error: it
// would accept anyone's POST.
func NewWebhooks(secret string, opts ...WebhookOption) (*Webhooks, error) {
	if secret == "" {
		return nil, errEmptyWebhookSecret
	}
	h := &Webhooks{
		secret:   sha256.Sum256([]byte(secret)),
		maxBytes: DefaultWebhookMaxBytes,
		waiters:  map[string][]chan struct{}{},
		early:    map[string]*list.Element{},
		order:    list.New(),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(h)
		}
	}
	if h.maxBytes <= 0 {
		return nil, fmt.Errorf("narada: the webhook size limit %d must be positive", h.maxBytes)
	}
	return h, nil
}

// ServeHTTP verifies one callback, hands it on and wakes its waiters.
func (h *Webhooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "narada webhook: only POST is accepted", http.StatusMethodNotAllowed)
		return
	}
	// MaxBytesReader also tells the server to close the connection rather
	// than drain an oversized body.
	r.Body = http.MaxBytesReader(w, r.Body, h.maxBytes)
	p, err := parseWebhook(r, h.secret, h.maxBytes)
	switch {
	case errors.Is(err, ErrWebhookSecret):
		http.Error(w, "narada webhook: callbackSecret missing or wrong", http.StatusUnauthorized)
		return
	case errors.Is(err, ErrWebhookTooLarge):
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var handleErr error
	if h.handle != nil {
		handleErr = h.handle(r.Context(), p)
	}
	// After the handler, so a waiter that wakes finds what it stored; and
	// even when it failed, since the poll that follows reads the status
	// from the API anyway.
	h.arrived(p.RequestID)
	if handleErr != nil {
		// The caller's error stays here: its text is not Narada's business.
		http.Error(w, "narada webhook: the receiver could not handle the callback", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Wake subscribes to the callback of one task. A callback for requestID
// sends on ch without blocking (ch has room for one signal, so several
// callbacks before the next receive count as one), ready for
// poll.WithWake(ch). A callback that came while nobody waited for its
// task is remembered (the latest 1024), so a Wake called just after it
// returns a ch that is ready at once.
//
// stop ends the subscription and frees it; call it when the wait is over
// (defer stop()). It may be called more than once. ch is never closed.
func (h *Webhooks) Wake(requestID string) (ch <-chan struct{}, stop func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	if e, ok := h.early[requestID]; ok {
		h.order.Remove(e)
		delete(h.early, requestID)
		c <- struct{}{}
	}
	h.waiters[requestID] = append(h.waiters[requestID], c)
	h.mu.Unlock()
	var once sync.Once
	return c, func() { once.Do(func() { h.unsubscribe(requestID, c) }) }
}

func (h *Webhooks) unsubscribe(requestID string, c chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := h.waiters[requestID]
	for i, s := range subs {
		if s == c {
			subs = append(subs[:i], subs[i+1:]...)
			break
		}
	}
	if len(subs) == 0 {
		delete(h.waiters, requestID)
		return
	}
	h.waiters[requestID] = subs
}

// arrived wakes the waiters of requestID, or remembers the callback for a
// waiter that has yet to subscribe.
func (h *Webhooks) arrived(requestID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := h.waiters[requestID]
	if len(subs) == 0 {
		h.remember(requestID)
		return
	}
	for _, c := range subs {
		select {
		case c <- struct{}{}:
		default: // a signal is pending already
		}
	}
}

func (h *Webhooks) remember(requestID string) {
	if e, ok := h.early[requestID]; ok {
		h.order.MoveToBack(e)
		return
	}
	h.early[requestID] = h.order.PushBack(requestID)
	for h.order.Len() > maxEarlyArrivals {
		oldest := h.order.Front()
		h.order.Remove(oldest)
		delete(h.early, oldest.Value.(string))
	}
}
