package naradatest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// call sends a raw request to the fake and returns status and body.
func call(t *testing.T, srv *naradatest.Server, method, path, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Server.Server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

func TestDispatchEndpoint(t *testing.T) {
	srv := naradatest.NewServer()
	defer srv.Close()

	status, body := call(t, srv, http.MethodPost, "/remote-dispatch", naradatest.APIKey,
		`{"prompt":"/Operator find jobs","browserWindowId":"w1","clearChat":false,"timezone":"UTC"}`)
	assert.Equal(t, http.StatusAccepted, status)
	var got narada.DispatchResponse
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Regexp(t, `^req_[0-9a-f]{16}$`, got.RequestID)

	d := srv.Dispatched()
	require.Len(t, d, 1)
	assert.Equal(t, "/Operator find jobs", d[0].Prompt)
	require.NotNil(t, d[0].ClearChat)
	assert.False(t, *d[0].ClearChat)
	assert.JSONEq(t, `"UTC"`, string(d[0].Extra["timezone"].(json.RawMessage)))

	tests := []struct {
		name, key, body string
		wantStatus      int
		wantError       string
	}{
		{"wrong key", "nope", `{"prompt":"p","browserWindowId":"w"}`, http.StatusUnauthorized, "invalid or missing API key"},
		{"no key", "", `{"prompt":"p","browserWindowId":"w"}`, http.StatusUnauthorized, "invalid or missing API key"},
		{"not JSON", naradatest.APIKey, `prompt=p`, http.StatusBadRequest, "not a valid JSON request"},
		{"no prompt", naradatest.APIKey, `{"browserWindowId":"w"}`, http.StatusBadRequest, "prompt is required"},
		{"no window in the default mode", naradatest.APIKey, `{"prompt":"p"}`, http.StatusBadRequest, "browserWindowId is required"},
		{"unknown mode", naradatest.APIKey, `{"prompt":"p","executionMode":"moon"}`, http.StatusBadRequest, "executionMode must be"},
		{"a public callback", naradatest.APIKey, `{"prompt":"p","executionMode":"cloud","callbackUrl":"https://hooks.example/x"}`, http.StatusBadRequest, "only to loopback hosts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, srv, http.MethodPost, "/remote-dispatch", tt.key, tt.body)
			assert.Equal(t, tt.wantStatus, status)
			var e struct {
				Error string `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &e), "errors are {\"error\": ...}: %s", body)
			assert.Contains(t, e.Error, tt.wantError)
		})
	}
	t.Run("cloud mode needs no window", func(t *testing.T) {
		status, _ := call(t, srv, http.MethodPost, "/remote-dispatch", naradatest.APIKey, `{"prompt":"p","executionMode":"cloud_browser"}`)
		assert.Equal(t, http.StatusAccepted, status)
	})
}

func TestStatusEndpointShapes(t *testing.T) {
	srv := naradatest.NewServer()
	defer srv.Close()
	id := srv.AddTask(naradatest.Task{
		BrowserWindowID: "w1",
		Usage:           json.RawMessage(`{"steps":3}`),
		Steps: []naradatest.Step{
			{Status: narada.StatusSuccess, Text: "done", StructuredOutput: json.RawMessage(`{"n":1}`), AfterPolls: 1},
		},
	})

	status, body := call(t, srv, http.MethodGet, "/remote-dispatch/responses/"+id, naradatest.APIKey, "")
	assert.Equal(t, http.StatusOK, status)
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &raw))
	assert.JSONEq(t, `"pending"`, string(raw["status"]))
	assert.JSONEq(t, `null`, string(raw["response"]), "response is null while pending")
	assert.JSONEq(t, `null`, string(raw["completedAt"]))
	assert.JSONEq(t, `"w1"`, string(raw["browserWindowId"]))
	stamp := regexp.MustCompile(`^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00"$`)
	assert.Regexp(t, stamp, string(raw["createdAt"]), "timestamps as the docs show them")
	_, hasID := raw["requestId"]
	assert.False(t, hasID, "the status answer does not repeat the id")

	_, body = call(t, srv, http.MethodGet, "/remote-dispatch/responses/"+id, naradatest.APIKey, "")
	require.NoError(t, json.Unmarshal([]byte(body), &raw))
	assert.JSONEq(t, `"success"`, string(raw["status"]))
	assert.JSONEq(t, `{"text":"done","structuredOutput":{"n":1}}`, string(raw["response"]))
	assert.Regexp(t, stamp, string(raw["completedAt"]))
	assert.JSONEq(t, `{"steps":3}`, string(raw["usage"]))
	assert.Equal(t, 2, srv.Polls(id))

	status, body = call(t, srv, http.MethodGet, "/remote-dispatch/responses/req_nope", naradatest.APIKey, "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.JSONEq(t, `{"error":"no task with requestId \"req_nope\""}`, body)

	status, _ = call(t, srv, http.MethodGet, "/remote-dispatch/responses/"+id, "wrong", "")
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, 2, srv.Polls(id), "a rejected request does not count as a poll")
}

func TestScriptedLife(t *testing.T) {
	srv := naradatest.NewServer()
	defer srv.Close()
	c := srv.Client()

	t.Run("after N polls", func(t *testing.T) {
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{
			{Status: "thinking", AfterPolls: 1},
			{Status: narada.StatusInputRequired, Text: "Log in?", AfterPolls: 2},
			{Status: narada.StatusPending, AfterPolls: 3},
			{Status: narada.StatusError, Text: "gave up", AfterPolls: 4},
		}})
		var seen []string
		for range 6 {
			got, err := c.Task(t.Context(), id)
			require.NoError(t, err)
			seen = append(seen, got.Status)
		}
		assert.Equal(t, []string{"pending", "thinking", "input-required", "pending", "error", "error"}, seen)
	})
	t.Run("after a duration", func(t *testing.T) {
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess, After: 30 * time.Millisecond}}})
		got, err := c.Task(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, narada.StatusPending, got.Status)
		time.Sleep(40 * time.Millisecond)
		got, err = c.Task(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, narada.StatusSuccess, got.Status)
		require.NotNil(t, got.CompletedAt)
		assert.GreaterOrEqual(t, got.CompletedAt.Sub(got.CreatedAt), 30*time.Millisecond)
	})
	t.Run("both conditions must hold, steps in order", func(t *testing.T) {
		id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{
			{Status: narada.StatusSuccess, AfterPolls: 1, After: time.Hour},
			{Status: narada.StatusError},
		}})
		for range 3 {
			got, err := c.Task(t.Context(), id)
			require.NoError(t, err)
			assert.Equal(t, narada.StatusPending, got.Status, "a later step never skips an earlier one")
		}
	})
	t.Run("immediate", func(t *testing.T) {
		id := srv.AddTask(naradatest.Task{RequestID: "req_fixed", Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "at once"}}})
		assert.Equal(t, "req_fixed", id)
		got, err := c.Task(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, "at once", got.Response.Text)
		assert.Panics(t, func() { srv.AddTask(naradatest.Task{RequestID: "req_fixed"}) }, "a taken id is a test bug")
	})
	t.Run("dispatched tasks follow the dispatch steps", func(t *testing.T) {
		d, err := c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
		require.NoError(t, err)
		quick := []poll.Option{poll.WithInitialDelay(0), poll.WithBackoff(poll.Constant(time.Millisecond))}
		got, err := c.WaitForTask(t.Context(), d.RequestID, quick...)
		require.NoError(t, err)
		assert.Equal(t, "Task completed.", got.Response.Text)
		assert.Equal(t, "w", got.BrowserWindowID)
		assert.Equal(t, 3, srv.Polls(d.RequestID), "DefaultSteps: pending for two polls")

		srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusError, Text: "no window"})
		d, err = c.Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
		require.NoError(t, err)
		_, err = c.WaitForTask(t.Context(), d.RequestID, quick...)
		require.ErrorIs(t, err, poll.ErrFailed)
	})
}

// receiver records the webhooks it gets and answers with the codes given,
// then 204.
type receiver struct {
	mu      sync.Mutex
	codes   []int
	got     []map[string]any
	headers []http.Header
	arrived chan struct{}
}

func newReceiver(t *testing.T, codes ...int) (*receiver, string) {
	r := &receiver{codes: codes, arrived: make(chan struct{}, 10)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(req.Body).Decode(&body)
		r.mu.Lock()
		r.got = append(r.got, body)
		r.headers = append(r.headers, req.Header.Clone())
		code := http.StatusNoContent
		if len(r.codes) > 0 {
			code, r.codes = r.codes[0], r.codes[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
		r.arrived <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL + "/hooks/narada"
}

func (r *receiver) wait(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-r.arrived:
		case <-time.After(5 * time.Second):
			t.Fatal("no webhook arrived")
		}
	}
}

func TestWebhookDelivery(t *testing.T) {
	t.Run("on finishing, with headers and the secret echoed", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		rcv, hookURL := newReceiver(t)
		srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusSuccess, Text: "done", After: 20 * time.Millisecond})
		d, err := srv.Client().Dispatch(t.Context(), narada.DispatchRequest{
			Prompt: "p", BrowserWindowID: "w", CallbackURL: hookURL,
			CallbackHeaders: map[string]string{"Authorization": "Bearer tok"}, CallbackSecret: "s3cret",
		})
		require.NoError(t, err)
		rcv.wait(t, 1) // no poll needed: the timer finishes the task

		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		require.Len(t, rcv.got, 1)
		body := rcv.got[0]
		assert.Equal(t, d.RequestID, body["requestId"])
		assert.Equal(t, "success", body["status"])
		assert.Equal(t, "s3cret", body["callbackSecret"])
		assert.Equal(t, map[string]any{"text": "done"}, body["response"])
		assert.NotNil(t, body["completedAt"])
		assert.Equal(t, "Bearer tok", rcv.headers[0].Get("Authorization"))
		assert.Equal(t, "application/json", rcv.headers[0].Get("Content-Type"))
		assert.Zero(t, srv.Polls(d.RequestID))
	})
	t.Run("the payload verifies with ParseWebhook and a null secret does not", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		var results []error
		var mu sync.Mutex
		done := make(chan struct{}, 2)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, err := narada.ParseWebhook(r, "s3cret")
			mu.Lock()
			results = append(results, err)
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			done <- struct{}{}
		}))
		defer hook.Close()
		srv.AddTask(naradatest.Task{CallbackURL: hook.URL, CallbackSecret: "s3cret", Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		srv.AddTask(naradatest.Task{CallbackURL: hook.URL, Steps: []naradatest.Step{{Status: narada.StatusError, Text: "x"}}})
		<-done
		<-done
		mu.Lock()
		defer mu.Unlock()
		var ok, rejected int
		for _, err := range results {
			if err == nil {
				ok++
			} else if assert.ErrorIs(t, err, narada.ErrWebhookSecret) {
				rejected++
			}
		}
		assert.Equal(t, 1, ok)
		assert.Equal(t, 1, rejected)
	})
	t.Run("retried on failure, at most three tries", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		rcv, hookURL := newReceiver(t, 500, 503, 500, 500)
		id := srv.AddTask(naradatest.Task{CallbackURL: hookURL, Steps: []naradatest.Step{{Status: narada.StatusError}}})
		rcv.wait(t, 3)
		require.Eventually(t, func() bool { return len(srv.Deliveries(id)) == 3 }, 5*time.Second, 5*time.Millisecond)
		for _, d := range srv.Deliveries(id) {
			assert.NotEqual(t, http.StatusNoContent, d.StatusCode)
		}
		select {
		case <-rcv.arrived:
			t.Fatal("a fourth try")
		case <-time.After(150 * time.Millisecond):
		}
	})
	t.Run("a retry that succeeds stops the tries", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		rcv, hookURL := newReceiver(t, 502)
		id := srv.AddTask(naradatest.Task{CallbackURL: hookURL, Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		rcv.wait(t, 2)
		require.Eventually(t, func() bool { return len(srv.Deliveries(id)) == 2 }, 5*time.Second, 5*time.Millisecond)
		assert.Equal(t, []int{502, 204}, []int{srv.Deliveries(id)[0].StatusCode, srv.Deliveries(id)[1].StatusCode})
	})
	t.Run("not sent for input-required, which is not over", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		rcv, hookURL := newReceiver(t)
		id := srv.AddTask(naradatest.Task{CallbackURL: hookURL, Steps: []naradatest.Step{{Status: narada.StatusInputRequired, Text: "?"}}})
		_, err := srv.Client().Task(t.Context(), id)
		require.NoError(t, err)
		select {
		case <-rcv.arrived:
			t.Fatal("a webhook for input-required")
		case <-time.After(50 * time.Millisecond):
		}
		assert.Empty(t, srv.Deliveries(id))
	})
	t.Run("Close cancels deliveries in flight", func(t *testing.T) {
		srv := naradatest.NewServer()
		stuck := make(chan struct{})
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client going away
			close(stuck)
			<-r.Context().Done()
		}))
		defer hook.Close()
		srv.AddTask(naradatest.Task{CallbackURL: hook.URL, Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
		<-stuck
		closed := make(chan struct{})
		go func() { srv.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(2 * time.Second):
			t.Fatal("Close waited for a stuck receiver")
		}
	})
	t.Run("AddTask refuses a callback off this machine", func(t *testing.T) {
		srv := naradatest.NewServer()
		defer srv.Close()
		assert.PanicsWithValue(t, `naradatest: AddTask: callbackUrl "https://hooks.example/x": naradatest delivers webhooks only to loopback hosts (the real API requires a public HTTPS URL)`, func() {
			srv.AddTask(naradatest.Task{CallbackURL: "https://hooks.example/x"})
		})
	})
}

func TestFaults(t *testing.T) {
	srv := naradatest.NewServer()
	defer srv.Close()
	id := srv.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
	srv.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "7"})
	srv.InjectFault(naradatest.RouteDispatch, 1, naradatest.Fault{Status: http.StatusServiceUnavailable})

	_, err := srv.Client().Task(t.Context(), id)
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.Equal(t, 7*time.Second, apiErr.RetryAfter)
	assert.Equal(t, "too many requests", apiErr.Message, "faults use the {\"error\": ...} shape too")

	_, err = srv.Client().Dispatch(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
	assert.Equal(t, 1, srv.Requests(naradatest.RouteDispatch))
	assert.Equal(t, 1, srv.Requests(naradatest.RouteTask))
	assert.Zero(t, srv.Polls(id), "a fault answers before the task is looked at")
}
