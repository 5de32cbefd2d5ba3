package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

func TestWaitNarada(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		steps  []naradatest.Step
		fault  *naradatest.Fault
		flags  []string
		code   int
		stdout string
		stderr []string
	}{
		{
			name:   "success",
			steps:  []naradatest.Step{{Status: narada.StatusSuccess, Text: "Found 3 flights.", AfterPolls: 2}},
			code:   exitOK,
			stdout: "Found 3 flights.\n",
			stderr: []string{"waiting for narada task req_t", "running (\"pending\")", "succeeded (\"success\")"},
		},
		{
			name:   "structured output when there is no text",
			steps:  []naradatest.Step{{Status: narada.StatusSuccess, StructuredOutput: []byte(`{"price":129}`)}},
			code:   exitOK,
			stdout: "{\"price\":129}\n",
		},
		{
			name:   "error",
			steps:  []naradatest.Step{{Status: narada.StatusError, Text: "the page did not load", AfterPolls: 1}},
			code:   exitJobFailed,
			stderr: []string{"jobpoll: narada task req_t ended failed (\"error\"): the page did not load"},
		},
		{
			name:   "input required",
			steps:  []naradatest.Step{{Status: narada.StatusInputRequired, Text: "Which date\nshould I book?"}},
			code:   exitInput,
			stderr: []string{"needs input: Which date should I book?", "wait again with: jobpoll wait narada req_t --base-url http://127.0.0.1:"},
		},
		{
			name:   "timeout",
			flags:  []string{"--timeout", "100ms"},
			code:   exitTimeout,
			stderr: []string{"gave up waiting for narada task req_t: timed out after 100ms", "The job itself goes on; to wait again: jobpoll wait narada req_t"},
		},
		{
			name:   "stalled",
			flags:  []string{"--stall-timeout", "60ms"},
			code:   exitTimeout,
			stderr: []string{"gave up waiting for narada task req_t: stalled"},
		},
		{
			name:   "an unknown word keeps the wait going",
			steps:  []naradatest.Step{{Status: "thinking", AfterPolls: 1}, {Status: narada.StatusSuccess, Text: "done", AfterPolls: 3}},
			code:   exitOK,
			stdout: "done\n",
			stderr: []string{`unknown ("thinking")`},
		},
		{
			name:   "a transient error is retried",
			steps:  []naradatest.Step{{Status: narada.StatusSuccess, Text: "done", AfterPolls: 1}},
			fault:  &naradatest.Fault{Status: http.StatusServiceUnavailable},
			code:   exitOK,
			stdout: "done\n",
			stderr: []string{"failed, retrying", "503 Service Unavailable"},
		},
		{
			name:   "a permanent error ends the wait",
			fault:  &naradatest.Fault{Status: http.StatusBadRequest},
			code:   exitUsage,
			stderr: []string{"waiting for narada task req_t, the API answered GET http://127.0.0.1:", "400 Bad Request"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newNarada(t)
			srv.AddTask(naradatest.Task{RequestID: "req_t", Steps: tt.steps})
			if tt.fault != nil {
				srv.InjectFault(naradatest.RouteTask, 1, *tt.fault)
			}
			args := with([]string{"wait", "narada", "req_t", "--base-url", srv.URL}, append(fast, tt.flags...)...)
			o := call(t, testEnv, "", args...)
			require.Equal(t, tt.code, o.code, o)
			assert.Equal(t, tt.stdout, o.stdout, "stdout")
			for _, want := range tt.stderr {
				assert.Contains(t, o.stderr, want)
			}
		})
	}
}

func TestWaitNaradaUnknownTask(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	o := call(t, testEnv, "", "wait", "narada", "req_nope", "--base-url", srv.URL)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "404 Not Found")
	assert.Contains(t, o.stderr, "Check the id")
	assert.Empty(t, o.stdout)
}

func TestWaitNaradaJSON(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.AddTask(naradatest.Task{RequestID: "req_j", BrowserWindowID: "win-1", Steps: []naradatest.Step{
		{Status: narada.StatusSuccess, Text: "ok", StructuredOutput: []byte(`{"n":1}`), AfterPolls: 1},
	}})
	o := call(t, testEnv, "", withFast("wait", "narada", "--json", "--base-url", srv.URL, "req_j")...)
	require.Equal(t, exitOK, o.code, o)
	v := decodeJSON(t, o.stdout)
	assert.Equal(t, "req_j", v["requestId"])
	assert.Equal(t, "success", v["status"])
	assert.Equal(t, "win-1", v["browserWindowId"])
	assert.Equal(t, map[string]any{"text": "ok", "structuredOutput": map[string]any{"n": float64(1)}}, v["response"])
	assert.NotEmpty(t, v["completedAt"])
}

func TestWaitNaradaJSONWhenFailed(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.AddTask(naradatest.Task{RequestID: "req_f", Steps: []naradatest.Step{{Status: narada.StatusError, Text: "boom"}}})
	o := call(t, testEnv, "", withFast("wait", "narada", "req_f", "--json", "--base-url", srv.URL)...)
	require.Equal(t, exitJobFailed, o.code, o)
	v := decodeJSON(t, o.stdout)
	assert.Equal(t, "error", v["status"], "the last observation goes to stdout however the wait ended")
	assert.Contains(t, o.stderr, "ended failed")
}

func TestRunNarada(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusSuccess, Text: "Booked.", AfterPolls: 1})
	o := call(t, testEnv, "", withFast("run", "narada", "--prompt", "/Operator book it", "--window", "win-7", "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, "Booked.\n", o.stdout)
	assert.Contains(t, o.stderr, "dispatched narada task req_")
	sent := srv.Dispatched()
	require.Len(t, sent, 1)
	assert.Equal(t, "/Operator book it", sent[0].Prompt)
	assert.Equal(t, "win-7", sent[0].BrowserWindowID)
}

func TestRunNaradaPromptFromStdinCloud(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.SetDispatchSteps(naradatest.Step{Status: narada.StatusSuccess, Text: "Summary."})
	o := call(t, testEnv, "  /Operator summarise\n", withFast("run", "narada", "--prompt", "-", "--mode", "cloud", "--json", "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	v := decodeJSON(t, o.stdout)
	assert.True(t, strings.HasPrefix(v["requestId"].(string), "req_"))
	sent := srv.Dispatched()
	require.Len(t, sent, 1)
	assert.Equal(t, "/Operator summarise", sent[0].Prompt)
	assert.Equal(t, narada.ExecutionModeCloud, sent[0].ExecutionMode)
}

func TestRunNaradaDispatchRefused(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.InjectFault(naradatest.RouteDispatch, 1, naradatest.Fault{Status: http.StatusServiceUnavailable})
	o := call(t, testEnv, "", withFast("run", "narada", "--prompt", "x", "--window", "w", "--base-url", srv.URL)...)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "dispatching the narada task: the API answered POST")
	assert.Contains(t, o.stderr, "may or may not have started")
	assert.Len(t, srv.Dispatched(), 0, "the fault answered before the handler")
	assert.Equal(t, 1, srv.Requests(naradatest.RouteDispatch), "a dispatch is never retried")
}

func TestInterruptedInProcess(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.AddTask(naradatest.Task{RequestID: "req_slow"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := time.AfterFunc(150*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	o := callCtx(ctx, t, testEnv, "", withFast("wait", "narada", "req_slow", "--base-url", srv.URL)...)
	require.Equal(t, exitInterrupted, o.code, o)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Empty(t, o.stdout)
	assert.Contains(t, o.stderr, "jobpoll: interrupted: stopped waiting for narada task req_slow after ")
	assert.Contains(t, o.stderr, `(last status running ("pending"))`)
	assert.Contains(t, o.stderr, "to wait again: jobpoll wait narada req_slow --base-url "+srv.URL)
}
