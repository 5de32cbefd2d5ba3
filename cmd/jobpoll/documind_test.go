package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind/documindtest"
)

func TestWaitDocumindReview(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		extraction *documindtest.Extraction // nil: none listed, ever
		flags      []string
		code       int
		stdout     string
		stderr     []string
	}{
		{
			name: "reviewed",
			extraction: &documindtest.Extraction{
				Results:     map[string]any{"total": "10.00"},
				NeedsReview: true,
				Review:      &documindtest.Review{At: documindtest.After{Polls: 2}, Results: map[string]any{"total": "12.50"}},
			},
			code:   exitOK,
			stdout: "{\n  \"total\": \"12.50\"\n}\n",
			stderr: []string{`waiting ("needs_review")`, `succeeded ("reviewed")`},
		},
		{
			name:       "no review needed",
			extraction: &documindtest.Extraction{Results: map[string]any{"total": "3.00"}},
			code:       exitOK,
			stdout:     "{\n  \"total\": \"3.00\"\n}\n",
			stderr:     []string{`succeeded ("not_needed")`},
		},
		{
			name: "the extraction failed",
			extraction: &documindtest.Extraction{Status: "processing", Steps: []documindtest.Step{
				{Status: "failed", ErrorMessage: "unreadable scan", At: documindtest.After{Polls: 1}},
			}},
			code:   exitJobFailed,
			stderr: []string{`ended failed: unreadable scan`},
		},
		{
			name:   "never listed: timeout",
			flags:  []string{"--timeout", "80ms"},
			code:   exitTimeout,
			stderr: []string{`queued ("not_listed")`, "gave up waiting for documind review of document", "to wait again: jobpoll wait documind review "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newDocumind(t)
			doc := srv.AddDocument(documindtest.Document{})
			if tt.extraction != nil {
				srv.AddExtraction(doc, *tt.extraction)
			}
			o := call(t, testEnv, "", with(withFast("wait", "documind", "review", doc, "--base-url", srv.URL), tt.flags...)...)
			require.Equal(t, tt.code, o.code, o)
			assert.Equal(t, tt.stdout, o.stdout)
			for _, want := range tt.stderr {
				assert.Contains(t, o.stderr, want)
			}
		})
	}
}

func TestWaitDocumindReviewJSON(t *testing.T) {
	t.Parallel()
	srv := newDocumind(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true, Results: map[string]any{"a": 1},
		Review: &documindtest.Review{At: documindtest.After{Polls: 1}}})
	o := call(t, testEnv, "", withFast("wait", "documind", "review", doc, "--json", "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	v := decodeJSON(t, o.stdout)
	assert.Equal(t, doc, v["document_id"])
	assert.Equal(t, true, v["is_reviewed"])
	assert.Equal(t, documindtest.Reviewer, v["reviewed_by"])
	assert.Equal(t, map[string]any{"a": float64(1)}, v["reviewed_results"])
}

func TestWaitDocumindReviewNotAUUID(t *testing.T) {
	t.Parallel()
	srv := newDocumind(t)
	o := call(t, testEnv, "", "wait", "documind", "review", "doc-1", "--base-url", srv.URL)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, `"doc-1" is not a UUID`)
	assert.Equal(t, 0, srv.Requests(documindtest.RouteExtractions))
}

func TestWaitDocumindBatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		docs   []documindtest.Document
		flags  []string
		code   int
		lines  int
		stderr []string
	}{
		{
			name: "completed",
			docs: []documindtest.Document{
				{Results: map[string]any{"n": 1}, Ready: documindtest.After{Polls: 1}},
				{Results: map[string]any{"n": 2}, Ready: documindtest.After{Polls: 2}},
			},
			code:   exitOK,
			lines:  2,
			stderr: []string{`running ("pending")`, "50% done", `succeeded ("completed")`},
		},
		{
			name: "partially failed",
			docs: []documindtest.Document{
				{Results: map[string]any{"n": 1}},
				{FailWith: "password-protected PDF"},
			},
			code:   exitJobFailed,
			stderr: []string{`ended partially_failed ("partial_failed"): 1 of 2 items failed`, "password-protected PDF"},
		},
		{
			name:   "failed",
			docs:   []documindtest.Document{{FailWith: "corrupt file"}},
			code:   exitJobFailed,
			stderr: []string{`ended failed: 1 of 1 items failed`},
		},
		{
			name:   "stalled",
			docs:   []documindtest.Document{{StayPending: true}},
			flags:  []string{"--stall-timeout", "60ms"},
			code:   exitTimeout,
			stderr: []string{"gave up waiting for documind batch", "stalled", "to wait again: jobpoll wait documind batch "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newDocumind(t)
			var ids []string
			for _, d := range tt.docs {
				ids = append(ids, srv.AddDocument(d))
			}
			batch, err := srv.StartBatch(ids...)
			require.NoError(t, err)
			o := call(t, testEnv, "", with(withFast("wait", "documind", "batch", batch, "--base-url", srv.URL), tt.flags...)...)
			require.Equal(t, tt.code, o.code, o)
			for _, want := range tt.stderr {
				assert.Contains(t, o.stderr, want)
			}
			if tt.code != exitOK {
				assert.Empty(t, o.stdout)
				return
			}
			lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
			require.Len(t, lines, tt.lines)
			for i, line := range lines {
				var item struct {
					DocumentID   string         `json:"document_id"`
					ExtractionID string         `json:"extraction_id"`
					Results      map[string]any `json:"results"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &item), line)
				assert.Equal(t, ids[i], item.DocumentID)
				assert.NotEmpty(t, item.ExtractionID)
				assert.Equal(t, float64(i+1), item.Results["n"])
			}
		})
	}
}

func TestWaitDocumindBatchJSONWhenPartiallyFailed(t *testing.T) {
	t.Parallel()
	srv := newDocumind(t)
	ok := srv.AddDocument(documindtest.Document{})
	bad := srv.AddDocument(documindtest.Document{FailWith: "blank page"})
	batch, err := srv.StartBatch(ok, bad)
	require.NoError(t, err)
	o := call(t, testEnv, "", withFast("wait", "documind", "batch", batch, "--json", "--quiet", "--base-url", srv.URL)...)
	require.Equal(t, exitJobFailed, o.code, o)
	v := decodeJSON(t, o.stdout)
	assert.Equal(t, "partial_failed", v["status"])
	assert.Equal(t, float64(1), v["failed"])
	assert.NotContains(t, o.stderr, "waiting for", "--quiet")
	assert.Contains(t, o.stderr, "ended partially_failed", "errors are reported even with --quiet")
}

func TestWaitDocumindBatchFirstPollAtOnce(t *testing.T) {
	t.Parallel()
	srv := newDocumind(t)
	batch, err := srv.StartBatch(srv.AddDocument(documindtest.Document{}))
	require.NoError(t, err)
	// No --interval: the provider's schedule, but not its 10 s first delay.
	o := call(t, testEnv, "", "wait", "documind", "batch", batch, "--base-url", srv.URL)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, 1, srv.Requests(documindtest.RouteBatch))
}

func TestWaitDocumindTransientThenDone(t *testing.T) {
	t.Parallel()
	srv := newDocumind(t)
	batch, err := srv.StartBatch(srv.AddDocument(documindtest.Document{}))
	require.NoError(t, err)
	srv.InjectFault(documindtest.RouteBatch, 2, documindtest.Fault{Status: http.StatusTooManyRequests})
	o := call(t, testEnv, "", withFast("wait", "documind", "batch", batch, "--base-url", srv.URL)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, 2, strings.Count(o.stderr, "429 Too Many Requests"))
	assert.Equal(t, 3, srv.Requests(documindtest.RouteBatch))
}
