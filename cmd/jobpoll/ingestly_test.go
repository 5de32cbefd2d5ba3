package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// reviewed is a run that goes through a person's review.
var reviewed = []ingestlytest.Stage{
	{Status: ingestly.RunQueued, Polls: 1},
	{Status: ingestly.RunRunning, Polls: 1},
	{Status: ingestly.RunReview, Polls: 2},
	{Status: ingestly.RunCompleted},
}

func TestWaitIngestlyRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script ingestlytest.Script
		held   bool // wait with --held instead of the run id
		flags  []string
		code   int
		stdout string
		stderr []string
	}{
		{
			name:   "completed with a JSON output",
			script: ingestlytest.Script{Stages: reviewed, Outputs: []ingestlytest.Output{{JSON: map[string]any{"poNumber": "PO-1182"}}}},
			code:   exitOK,
			stdout: "{\"poNumber\":\"PO-1182\"}\n",
			stderr: []string{`queued`, `running`, `waiting ("review")`, `succeeded ("completed")`},
		},
		{
			name: "completed with a CSV output, node picked",
			script: ingestlytest.Script{Outputs: []ingestlytest.Output{
				{NodeID: "csv", Text: "a,b\n1,2\n"},
				{NodeID: "json", JSON: map[string]any{"x": 1}},
			}},
			flags:  []string{"--node", "csv"},
			code:   exitOK,
			stdout: "a,b\n1,2\n",
		},
		{
			name:   "completed with a binary output, written as is",
			script: ingestlytest.Script{Outputs: []ingestlytest.Output{{Binary: []byte{0, 1, 2}}}},
			code:   exitOK,
			stdout: "\x00\x01\x02",
		},
		{
			name:   "completed with an output too large to return",
			script: ingestlytest.Script{Outputs: []ingestlytest.Output{{TooLarge: true}}},
			code:   exitUsage,
			stderr: []string{"reading the output of run ", "413", "download it from the run in the Ingestly dashboard"},
		},
		{
			name:   "completed without an output",
			script: ingestlytest.Script{},
			code:   exitOK,
			stderr: []string{"completed without capturing an output"},
		},
		{
			name: "failed",
			script: ingestlytest.Script{
				Stages: []ingestlytest.Stage{{Status: ingestly.RunRunning, Polls: 1}, {Status: ingestly.RunFailed}},
				Error:  &ingestly.RunError{Code: "ocr_failed", Message: "no text found"},
			},
			code:   exitJobFailed,
			stderr: []string{`ended failed: ocr_failed: no text found`},
		},
		{
			name:   "cancelled",
			script: ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: ingestly.RunCancelled}}},
			code:   exitJobFailed,
			stderr: []string{`ended canceled ("cancelled"): cancelled_by_user`},
		},
		{
			name:   "held until someone runs it",
			script: ingestlytest.Script{Held: true, HeldPolls: 2, Outputs: []ingestlytest.Output{{Text: "released"}}},
			held:   true,
			code:   exitOK,
			stdout: "released\n",
			stderr: []string{"a run of held ingestly document", `waiting ("held")`},
		},
		{
			name:   "held document that failed without a run",
			script: ingestlytest.Script{NeverCreated: true},
			held:   true,
			code:   exitJobFailed,
			stderr: []string{`has no run and its status is "failed"`},
		},
		{
			name:   "review that outlasts the timeout",
			script: ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: ingestly.RunReview}}},
			flags:  []string{"--timeout", "80ms"},
			code:   exitTimeout,
			stderr: []string{"gave up waiting for ingestly run", "to wait again: jobpoll wait ingestly run "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newIngestly(t)
			trig := srv.AddRun(tt.script)
			args := []string{"wait", "ingestly", "run", trig.RunID, "--document", trig.DocumentID}
			if tt.held {
				args = []string{"wait", "ingestly", "run", "--held", "--document", trig.DocumentID}
			}
			o := call(t, testEnv, "", with(withFast(args...), append(tt.flags, "--base-url", srv.URL)...)...)
			require.Equal(t, tt.code, o.code, o)
			assert.Equal(t, tt.stdout, o.stdout)
			for _, want := range tt.stderr {
				assert.Contains(t, o.stderr, want)
			}
		})
	}
}

func TestWaitIngestlyRunEmptyRunIDIsHeld(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	trig := srv.AddRun(ingestlytest.Script{Held: true, HeldPolls: 1, Outputs: []ingestlytest.Output{{JSON: 1}}})
	require.Empty(t, trig.RunID)
	o := call(t, testEnv, "", withFast("wait", "ingestly", "run", "", "--document", trig.DocumentID, "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, "1\n", o.stdout)
}

func TestWaitIngestlyRunJSON(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	trig := srv.AddRun(ingestlytest.Script{Outputs: []ingestlytest.Output{{JSON: map[string]any{"total": 12.5}}}})
	o := call(t, testEnv, "", withFast("wait", "ingestly", "run", trig.RunID, "--document", trig.DocumentID, "--json", "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	v := decodeJSON(t, o.stdout)
	require.NotContains(t, v, "trigger")
	run := v["run"].(map[string]any)
	assert.Equal(t, trig.RunID, run["id"])
	assert.Equal(t, "completed", run["status"])
	out := v["output"].(map[string]any)
	assert.Equal(t, map[string]any{"total": 12.5}, out["output"])
	assert.Equal(t, "application/json", out["contentType"])
}

func TestWaitIngestlyRunSave(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	pdf := []byte("%PDF-1.7 binary \x00\x01")
	trig := srv.AddRun(ingestlytest.Script{Outputs: []ingestlytest.Output{{Binary: pdf, Filename: "invoice.pdf", ContentType: "application/pdf"}}})
	path := filepath.Join(t.TempDir(), "out.pdf")
	o := call(t, testEnv, "", withFast("wait", "ingestly", "run", trig.RunID, "--document", trig.DocumentID, "--save", path, "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Empty(t, o.stdout)
	assert.Contains(t, o.stderr, fmt.Sprintf("saved the output invoice.pdf (application/pdf, %d bytes) to %s", len(pdf), path))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, pdf, got)
}

func TestTriggerIngestly(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	srv.SetWorkflow("invoices", ingestlytest.Script{Stages: reviewed, Outputs: []ingestlytest.Output{{JSON: map[string]any{"ok": true}}}})
	file := filepath.Join(t.TempDir(), "po-1182.pdf")
	require.NoError(t, os.WriteFile(file, []byte("%PDF-1.7"), 0o600))
	o := call(t, testEnv, "", withFast("trigger", "ingestly", "--workflow", "invoices", "--file", file, "--reference", "PO-1182", "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, "{\"ok\":true}\n", o.stdout)
	assert.Contains(t, o.stderr, "submitted po-1182.pdf: document ")
	ups := srv.Uploads()
	require.Len(t, ups, 1)
	assert.Equal(t, "po-1182.pdf", ups[0].Filename)
	assert.Equal(t, "application/pdf", ups[0].ContentType)
	assert.Equal(t, "PO-1182", ups[0].Reference)
	assert.NotEmpty(t, ups[0].IdempotencyKey)
}

func TestTriggerIngestlyFromStdinJSON(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	srv.SetWorkflow("scans", ingestlytest.Script{Outputs: []ingestlytest.Output{{Text: "hello"}}})
	o := call(t, testEnv, "scanned bytes", withFast("trigger", "ingestly", "--workflow", "scans", "--file", "-", "--filename", "scan.txt",
		"--idempotency-key", "k-1", "--json", "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	v := decodeJSON(t, o.stdout)
	trig := v["trigger"].(map[string]any)
	assert.NotEmpty(t, trig["documentId"])
	assert.Equal(t, "completed", v["run"].(map[string]any)["status"])
	assert.Equal(t, "hello", v["output"].(map[string]any)["output"])
	ups := srv.Uploads()
	require.Len(t, ups, 1)
	assert.Equal(t, "scanned bytes", string(ups[0].Content))
	assert.Equal(t, "k-1", ups[0].IdempotencyKey)
}

func TestTriggerIngestlyHeld(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	srv.SetWorkflow("manual", ingestlytest.Script{Held: true, HeldPolls: 1, Outputs: []ingestlytest.Output{{Text: "ran"}}})
	file := filepath.Join(t.TempDir(), "a.txt")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	o := call(t, testEnv, "", withFast("trigger", "ingestly", "--workflow", "manual", "--file", file, "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, "ran\n", o.stdout)
	assert.Contains(t, o.stderr, "is held until someone runs it")
}

func TestTriggerIngestlyUnknownWorkflow(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	file := filepath.Join(t.TempDir(), "a.pdf")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	o := call(t, testEnv, "", withFast("trigger", "ingestly", "--workflow", "nope", "--file", file, "--idempotency-key", "key-42", "--base-url", srv.URL)...)
	require.Equal(t, exitUsage, o.code, o)
	assert.Empty(t, o.stdout)
	assert.Contains(t, o.stderr, "submitting a.pdf to workflow nope: the API answered POST")
	assert.Contains(t, o.stderr, "404 Not Found")
}

func TestTriggerIngestlyTransientFailureNamesTheKey(t *testing.T) {
	t.Parallel()
	srv := newIngestly(t)
	srv.SetWorkflow("invoices", ingestlytest.Script{})
	srv.InjectFault(ingestlytest.RouteTrigger, 3, ingestlytest.Fault{CloseConnection: true})
	file := filepath.Join(t.TempDir(), "a.pdf")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	o := call(t, testEnv, "", withFast("trigger", "ingestly", "--workflow", "invoices", "--file", file, "--idempotency-key", "key-42", "--base-url", srv.URL)...)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "jobpoll: submitting a.pdf to workflow invoices: ingestly: Trigger")
	assert.Contains(t, o.stderr, "gave up after 3 attempts")
	assert.Contains(t, o.stderr, "add --idempotency-key key-42")
	assert.Empty(t, srv.Uploads())
}
