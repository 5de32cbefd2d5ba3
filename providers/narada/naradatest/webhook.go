package naradatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const (
	// webhookAttempts is how often a callback is tried before the fake
	// gives up (the docs promise retries without saying how many).
	webhookAttempts = 3
	// webhookRetryDelay separates the tries.
	webhookRetryDelay = 50 * time.Millisecond
	// webhookTimeout bounds one try.
	webhookTimeout = 5 * time.Second
)

// Delivery is one try to deliver a task's webhook.
type Delivery struct {
	// URL is the callbackUrl.
	URL string
	// StatusCode is the receiver's answer, 0 when the request failed.
	StatusCode int
	// Err says why the request failed, "" when it got an answer.
	Err string
}

// Deliveries returns the tries to deliver the task's webhook so far.
func (s *Server) Deliveries(requestID string) []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.deliveries[requestID]...)
}

// webhookBody is the callback payload: the task as the status endpoint
// shows it, plus requestId and the echoed callbackSecret (null when none
// was given). The docs' excerpt lists requestId and the secret and cuts off
// the rest; mirroring the status answer is an inference.
type webhookBody struct {
	RequestID string `json:"requestId"`
	wireTask
	CallbackSecret *string `json:"callbackSecret"`
}

// deliverLocked starts delivering t's webhook on its own goroutine.
func (s *Server) deliverLocked(t *task) {
	if s.closed {
		return
	}
	body := webhookBody{RequestID: t.spec.RequestID, wireTask: t.wire()}
	if t.spec.CallbackSecret != "" {
		secret := t.spec.CallbackSecret
		body.CallbackSecret = &secret
	}
	payload, err := json.Marshal(body)
	if err != nil {
		panic("naradatest: encoding a webhook: " + err.Error()) // plain data: cannot fail
	}
	headers := make(map[string]string, len(t.spec.CallbackHeaders))
	for k, v := range t.spec.CallbackHeaders {
		headers[k] = v
	}
	s.hookWG.Add(1)
	go func() {
		defer s.hookWG.Done()
		s.deliver(t.spec.RequestID, t.spec.CallbackURL, headers, payload)
	}()
}

// deliver POSTs the payload until a 2xx answer, webhookAttempts tries, or
// Close.
func (s *Server) deliver(id, target string, headers map[string]string, payload []byte) {
	for try := range webhookAttempts {
		if try > 0 {
			select {
			case <-time.After(webhookRetryDelay):
			case <-s.hookCtx.Done():
				return
			}
		}
		d := s.post(target, headers, payload)
		s.mu.Lock()
		s.deliveries[id] = append(s.deliveries[id], d)
		s.mu.Unlock()
		if d.StatusCode >= 200 && d.StatusCode <= 299 {
			return
		}
	}
}

func (s *Server) post(target string, headers map[string]string, payload []byte) Delivery {
	d := Delivery{URL: target}
	req, err := http.NewRequestWithContext(s.hookCtx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		d.Err = err.Error()
		return d
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hooks.Do(req)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	_ = resp.Body.Close()
	d.StatusCode = resp.StatusCode
	return d
}

// checkCallback accepts an absolute http or https URL on a loopback host.
// The real API wants a public HTTPS URL; this fake only ever calls the
// machine it runs on, so a test can never send a request elsewhere.
func checkCallback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("callbackUrl %q must be an absolute http(s) URL", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("callbackUrl %q: naradatest delivers webhooks only to loopback hosts (the real API requires a public HTTPS URL)", raw)
	}
	return nil
}
