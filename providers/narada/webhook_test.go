package narada_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/narada"
)

func TestParseWebhook(t *testing.T) {
	const full = `{"requestId":"req_1","status":"success","browserWindowId":"w","response":{"text":"done","structuredOutput":{"n":1}},"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":"2024-12-19T00:00:45.000000+00:00","usage":null,"callbackSecret":"s3cret"}`
	tests := []struct {
		name    string
		body    string
		secret  string
		wantErr error
		wantMsg string
	}{
		{"valid", full, "s3cret", nil, ""},
		{"wrong secret", strings.Replace(full, `"s3cret"`, `"s3creT"`, 1), "s3cret", narada.ErrWebhookSecret, ""},
		{"longer secret", strings.Replace(full, `"s3cret"`, `"s3cret-and-more"`, 1), "s3cret", narada.ErrWebhookSecret, ""},
		{"a prefix of the secret", strings.Replace(full, `"s3cret"`, `"s3c"`, 1), "s3cret", narada.ErrWebhookSecret, ""},
		{"null secret", strings.Replace(full, `"s3cret"`, `null`, 1), "s3cret", narada.ErrWebhookSecret, "no callbackSecret"},
		{"no secret field", `{"requestId":"req_1","status":"success"}`, "s3cret", narada.ErrWebhookSecret, "no callbackSecret"},
		{"empty secret echoed", strings.Replace(full, `"s3cret"`, `""`, 1), "s3cret", narada.ErrWebhookSecret, ""},
		{"not JSON", `<html>hi</html>`, "s3cret", narada.ErrWebhookMalformed, "not a JSON object"},
		{"a JSON array", `[]`, "s3cret", narada.ErrWebhookMalformed, ""},
		{"no requestId", `{"status":"success","callbackSecret":"s3cret"}`, "s3cret", narada.ErrWebhookMalformed, "no requestId"},
		{"bad timestamp", `{"requestId":"r","status":"success","createdAt":"soon","callbackSecret":"s3cret"}`, "s3cret", narada.ErrWebhookMalformed, `"soon"`},
		{"empty body", ``, "s3cret", narada.ErrWebhookMalformed, ""},
		{"too large", `{"requestId":"req_1","pad":"` + strings.Repeat("x", narada.DefaultWebhookMaxBytes) + `"}`, "s3cret", narada.ErrWebhookTooLarge, fmt.Sprint(narada.DefaultWebhookMaxBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(tt.body))
			p, err := narada.ParseWebhook(r, tt.secret)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, p)
				assert.NotContains(t, err.Error(), "s3cret", "the secret never appears in an error")
				if tt.wantMsg != "" {
					assert.Contains(t, err.Error(), tt.wantMsg)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "req_1", p.RequestID)
			assert.Equal(t, narada.StatusSuccess, p.Status)
			assert.Equal(t, "w", p.BrowserWindowID)
			assert.Equal(t, "done", p.Response.Text)
			assert.JSONEq(t, `{"n":1}`, string(p.Response.StructuredOutput))
			assert.NotNil(t, p.CompletedAt)
			assert.Nil(t, p.Usage)
		})
	}
	t.Run("an empty expected secret is refused", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(`{"requestId":"r","callbackSecret":""}`))
		_, err := narada.ParseWebhook(r, "")
		require.ErrorContains(t, err, "the webhook secret is empty")
		_, err = narada.NewWebhooks("")
		require.ErrorContains(t, err, "the webhook secret is empty")
	})
}

func TestWebhooksHandlerAnswers(t *testing.T) {
	var got []*narada.WebhookPayload
	var mu sync.Mutex
	fail := false
	h, err := narada.NewWebhooks("s3cret", narada.WithWebhookMaxBytes(1024), narada.OnWebhook(func(ctx context.Context, p *narada.WebhookPayload) error {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return errors.New("database down: dsn=postgres://user:pw@db")
		}
		got = append(got, p)
		return nil
	}))
	require.NoError(t, err)

	serve := func(method, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, "/hooks/narada", strings.NewReader(body)))
		return rec
	}
	valid := `{"requestId":"req_1","status":"error","response":{"text":"boom"},"callbackSecret":"s3cret"}`

	rec := serve(http.MethodPost, valid)
	assert.Equal(t, http.StatusNoContent, rec.Code)
	require.Len(t, got, 1)
	assert.Equal(t, "req_1", got[0].RequestID)
	assert.Equal(t, "boom", got[0].Response.Text)

	rec = serve(http.MethodPost, strings.Replace(valid, "s3cret", "guess", 1))
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.NotContains(t, rec.Body.String(), "s3cret")

	assert.Equal(t, http.StatusBadRequest, serve(http.MethodPost, `{"callbackSecret":"s3cret"}`).Code)
	assert.Equal(t, http.StatusBadRequest, serve(http.MethodPost, `not json`).Code)
	assert.Equal(t, http.StatusRequestEntityTooLarge, serve(http.MethodPost, `{"pad":"`+strings.Repeat("x", 2000)+`"}`).Code)

	rec = serve(http.MethodGet, "")
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, http.MethodPost, rec.Header().Get("Allow"))

	assert.Len(t, got, 1, "only verified payloads reach the handler func")

	fail = true
	rec = serve(http.MethodPost, valid)
	assert.Equal(t, http.StatusInternalServerError, rec.Code, "a failing handler asks Narada to deliver again")
	assert.NotContains(t, rec.Body.String(), "dsn", "the caller's error stays private")

	_, err = narada.NewWebhooks("s3cret", narada.WithWebhookMaxBytes(0))
	require.ErrorContains(t, err, "must be positive")
}

func TestWebhooksWake(t *testing.T) {
	newHooks := func(t *testing.T) *narada.Webhooks {
		h, err := narada.NewWebhooks("s3cret")
		require.NoError(t, err)
		return h
	}
	deliver := func(t *testing.T, h *narada.Webhooks, id string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, hook(id, "s3cret"))
		require.Equal(t, http.StatusNoContent, rec.Code)
	}
	ready := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}

	t.Run("wakes every waiter of that request only", func(t *testing.T) {
		h := newHooks(t)
		a1, stopA1 := h.Wake("req_a")
		a2, stopA2 := h.Wake("req_a")
		b, stopB := h.Wake("req_b")
		defer stopA1()
		defer stopA2()
		defer stopB()
		deliver(t, h, "req_a")
		assert.True(t, ready(a1))
		assert.True(t, ready(a2))
		assert.False(t, ready(b))
	})
	t.Run("repeated webhooks coalesce and never block", func(t *testing.T) {
		h := newHooks(t)
		ch, stop := h.Wake("req_a")
		defer stop()
		for range 5 {
			deliver(t, h, "req_a")
		}
		assert.True(t, ready(ch))
		assert.False(t, ready(ch), "one pending signal, not five")
		deliver(t, h, "req_a")
		assert.True(t, ready(ch), "the channel can wake again")
	})
	t.Run("a webhook before the waiter subscribes is not lost", func(t *testing.T) {
		h := newHooks(t)
		deliver(t, h, "req_early")
		_, early := h.Subscriptions()
		assert.Equal(t, 1, early)
		ch, stop := h.Wake("req_early")
		defer stop()
		assert.True(t, ready(ch))
		other, stopOther := h.Wake("req_other")
		defer stopOther()
		assert.False(t, ready(other))
		_, early = h.Subscriptions()
		assert.Zero(t, early, "the remembered callback is handed over once")
	})
	t.Run("stop frees the subscription, twice is fine", func(t *testing.T) {
		h := newHooks(t)
		_, stop1 := h.Wake("req_a")
		_, stop2 := h.Wake("req_a")
		waiting, _ := h.Subscriptions()
		assert.Equal(t, 1, waiting)
		stop1()
		stop1()
		waiting, _ = h.Subscriptions()
		assert.Equal(t, 1, waiting, "the other waiter of req_a is still there")
		stop2()
		waiting, _ = h.Subscriptions()
		assert.Zero(t, waiting)
	})
	t.Run("early callbacks are bounded, the oldest forgotten first", func(t *testing.T) {
		h := newHooks(t)
		for i := range narada.MaxEarlyArrivals + 10 {
			deliver(t, h, fmt.Sprintf("req_%d", i))
		}
		_, early := h.Subscriptions()
		assert.Equal(t, narada.MaxEarlyArrivals, early)
		oldest, stop := h.Wake("req_0")
		defer stop()
		assert.False(t, ready(oldest), "forgotten: the poll still finds the result")
		newest, stop2 := h.Wake(fmt.Sprintf("req_%d", narada.MaxEarlyArrivals+9))
		defer stop2()
		assert.True(t, ready(newest))
	})
	t.Run("safe for concurrent use", func(t *testing.T) {
		h := newHooks(t)
		var wg sync.WaitGroup
		for i := range 50 {
			id := fmt.Sprintf("req_%d", i%5)
			wg.Go(func() {
				ch, stop := h.Wake(id)
				defer stop()
				select {
				case <-ch:
				default:
				}
			})
			wg.Go(func() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, hook(id, "s3cret"))
			})
		}
		wg.Wait()
		waiting, early := h.Subscriptions()
		assert.Zero(t, waiting)
		assert.LessOrEqual(t, early, 5)
	})
}

func TestWebhooksOverRealHTTP(t *testing.T) {
	h, err := narada.NewWebhooks("s3cret")
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	ch, stop := h.Wake("req_1")
	defer stop()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"requestId":"req_1","status":"success","callbackSecret":"s3cret"}`))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	<-ch

	big := strings.NewReader(`{"requestId":"req_1","pad":"` + strings.Repeat("x", narada.DefaultWebhookMaxBytes+10) + `"}`)
	resp, err = srv.Client().Post(srv.URL, "application/json", big)
	if err == nil { // the server may close the connection before the client has sent it all
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	}
}
