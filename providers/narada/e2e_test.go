package narada_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// quick polls at once and then every millisecond: real loopback HTTP, so
// keep the delays tiny.
func quick(opts ...poll.Option) []poll.Option {
	return append([]poll.Option{poll.WithInitialDelay(0), poll.WithBackoff(poll.Constant(time.Millisecond))}, opts...)
}

func TestEndToEndWaitForTask(t *testing.T) {
	tests := []struct {
		name      string
		steps     []naradatest.Step
		opts      []narada.Option
		wantErr   error
		wantRaw   string
		wantPolls int
	}{
		{"success after polls", []naradatest.Step{{Status: narada.StatusSuccess, Text: "ok", AfterPolls: 3}}, nil, nil, "success", 4},
		{"error", []naradatest.Step{{Status: narada.StatusError, Text: "network timeout", AfterPolls: 1}}, nil, poll.ErrFailed, "error", 2},
		{"input-required stops the wait", []naradatest.Step{{Status: narada.StatusInputRequired, Text: "Log in?", AfterPolls: 1}, {Status: narada.StatusSuccess, AfterPolls: 3}}, nil, poll.ErrInputRequired, "input-required", 2},
		{"input-required waited through", []naradatest.Step{{Status: narada.StatusInputRequired, Text: "Log in?", AfterPolls: 1}, {Status: narada.StatusSuccess, AfterPolls: 3}}, []narada.Option{narada.WithWaitThroughInputRequired()}, nil, "success", 4},
		{"unknown words keep polling", []naradatest.Step{{Status: "queued_on_gpu", AfterPolls: 1}, {Status: "paused", AfterPolls: 2}, {Status: narada.StatusSuccess, AfterPolls: 4}}, nil, nil, "success", 5},
		{"success by time", []naradatest.Step{{Status: narada.StatusSuccess, After: 20 * time.Millisecond}}, nil, nil, "success", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := naradatest.NewServer()
			defer srv.Close()
			id := srv.AddTask(naradatest.Task{Steps: tt.steps})
			var raws []string
			got, err := srv.Client(tt.opts...).WaitForTask(t.Context(), id, quick(
				poll.WithNotify(func(a poll.Attempt) {
					if a.Changed {
						raws = append(raws, a.Status.Raw)
					}
				}))...)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.NotNil(t, got)
			assert.Equal(t, id, got.RequestID)
			assert.Equal(t, tt.wantRaw, got.Status)
			assert.Equal(t, tt.wantRaw, raws[len(raws)-1])
			if tt.wantPolls > 0 {
				assert.Equal(t, tt.wantPolls, srv.Polls(id))
			}
		})
	}
}

func TestEndToEndFaults(t *testing.T) {
	t.Run("5xx, a reset and a cut body, then recovery", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "ok"}}})
		srv.InjectFault(naradatest.RouteTask, 2, naradatest.Fault{Status: http.StatusInternalServerError})
		srv.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{CloseConnection: true})
		srv.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{Truncate: true})
		srv.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{Status: http.StatusBadGateway, Body: "<html>bad gateway</html>", ContentType: "text/html"})
		var errs int
		got, err := srv.Client().WaitForTask(t.Context(), id, quick(poll.WithNotify(func(a poll.Attempt) {
			if a.Err != nil {
				errs++
			}
		}))...)
		require.NoError(t, err)
		assert.Equal(t, "ok", got.Response.Text)
		// net/http itself may replay a GET whose reused connection was
		// reset before any answer, so the reset is not always seen.
		assert.GreaterOrEqual(t, errs, 4)
		assert.Equal(t, 6, srv.Requests(naradatest.RouteTask))
	})
	t.Run("429 with Retry-After raises the delay", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		srv.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "1"})
		var next []time.Duration
		start := time.Now()
		_, err := srv.Client().WaitForTask(t.Context(), id, quick(poll.WithNotify(func(a poll.Attempt) { next = append(next, a.Next) }))...)
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{time.Second, 0}, next)
		assert.GreaterOrEqual(t, time.Since(start), time.Second)
	})
	t.Run("a slow answer is cut by the attempt timeout and retried", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		srv.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{Delay: time.Second})
		start := time.Now()
		_, err := srv.Client().WaitForTask(t.Context(), id, quick(poll.WithAttemptTimeout(50*time.Millisecond))...)
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 900*time.Millisecond)
	})
	t.Run("a wrong key is permanent and never shown", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		c, err := narada.New("nk-wrong-key-42", narada.WithBaseURL(srv.URL), narada.WithHTTPClient(srv.Server.Server.Client()))
		require.NoError(t, err)
		attempts := 0
		got, err := c.WaitForTask(t.Context(), id, quick(poll.WithNotify(func(poll.Attempt) { attempts++ }))...)
		assert.Nil(t, got)
		assert.Equal(t, 1, attempts, "a 401 is not retried")
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
		assert.NotContains(t, err.Error(), "nk-wrong-key-42")
		assert.NotContains(t, err.Error(), naradatest.APIKey)
		assert.Zero(t, srv.Polls(id))
	})
	t.Run("a 404 window is permanent unless the caller says otherwise", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		srv.InjectFault(naradatest.RouteTask, 2, naradatest.Fault{Status: http.StatusNotFound})
		_, err := srv.Client().WaitForTask(t.Context(), id, quick()...)
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)

		retry404 := poll.WithRetryable(func(err error) bool {
			var e *poll.APIError
			return poll.Transient(err) || (errors.As(err, &e) && e.StatusCode == http.StatusNotFound)
		})
		got, err := srv.Client().WaitForTask(t.Context(), id, quick(retry404)...)
		require.NoError(t, err)
		assert.Equal(t, narada.StatusSuccess, got.Status)
	})
}

func TestEndToEndRunWithWebhookWake(t *testing.T) {
	srv := naradatest.NewServer()
	defer srv.Close()
	var payloads []string
	hooks, err := narada.NewWebhooks("s3cret", narada.OnWebhook(func(_ context.Context, p *narada.WebhookPayload) error {
		payloads = append(payloads, p.RequestID+" "+p.Status)
		return nil
	}))
	require.NoError(t, err)
	receiver := httptest.NewServer(hooks)
	defer receiver.Close()

	srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusSuccess, Text: "done", After: 100 * time.Millisecond})
	start := time.Now()
	got, err := srv.Client(narada.WithWebhooks(hooks)).Run(t.Context(), narada.DispatchRequest{
		Prompt: "/Operator find jobs", BrowserWindowID: "w",
		CallbackURL: receiver.URL + "/hooks/narada", CallbackSecret: "s3cret",
	}, poll.WithInitialDelay(0), poll.WithBackoff(poll.Constant(time.Minute))) // polling alone would take a minute
	require.NoError(t, err)
	assert.Equal(t, "done", got.Response.Text)
	assert.Less(t, time.Since(start), 5*time.Second, "the webhook woke the wait")
	assert.Equal(t, 2, srv.Polls(got.RequestID), "one poll at once, one after the wake")

	// With the defaults, the webhook cuts the 10 s first sleep short.
	start = time.Now()
	got, err = srv.Client(narada.WithWebhooks(hooks)).Run(t.Context(), narada.DispatchRequest{
		Prompt: "/Operator find jobs", BrowserWindowID: "w",
		CallbackURL: receiver.URL + "/hooks/narada", CallbackSecret: "s3cret",
	})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 1, srv.Polls(got.RequestID), "the one poll runs when the webhook arrives")
	assert.Len(t, payloads, 2)
	assert.Equal(t, got.RequestID+" success", payloads[1])
	waiting, _ := hooks.Subscriptions()
	assert.Zero(t, waiting)
}
