package documindtest_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind/documindtest"
)

func TestListFiltersSortsAndPages(t *testing.T) {
	srv := newServer(t)
	a, b := srv.AddDocument(documindtest.Document{}), srv.AddDocument(documindtest.Document{})
	x1 := srv.AddExtraction(a, documindtest.Extraction{Filename: "c.pdf", NeedsReview: true})
	x2 := srv.AddExtraction(a, documindtest.Extraction{Filename: "a.pdf", Status: "failed", ErrorMessage: "boom"})
	x3 := srv.AddExtraction(b, documindtest.Extraction{Filename: "b.pdf", NeedsReview: true})
	require.NoError(t, srv.Review(b, map[string]any{"total": 10.0}))
	x4 := srv.AddExtraction(b, documindtest.Extraction{Filename: "d.pdf", Status: "processing"})

	tests := []struct {
		query string
		want  []any
		total float64
	}{
		{"", []any{x4, x3, x2, x1}, 4},
		{"sort_order=asc", []any{x1, x2, x3, x4}, 4},
		{"document_id=" + a, []any{x2, x1}, 2},
		{"document_id=" + a + "&limit=1", []any{x2}, 2},
		{"status=failed", []any{x2}, 1},
		{"needs_review=true&is_reviewed=false", []any{x1}, 1},
		{"needs_review=false", []any{x4, x2}, 2},
		{"is_reviewed=true", []any{x3}, 1},
		{"original_filename=b.pdf", []any{x3}, 1},
		{"sort_by=original_filename&sort_order=asc", []any{x2, x3, x1, x4}, 4},
		{"sort_by=status&sort_order=asc", []any{x1, x3, x2, x4}, 4},
		{"sort_by=updated_at", []any{x4, x3, x2, x1}, 4},
		{"skip=1&limit=2", []any{x3, x2}, 4},
		{"skip=10", []any{}, 4},
		{"created_after=2000-01-01T00:00:00Z", []any{x4, x3, x2, x1}, 4},
		{"created_before=2000-01-01T00:00:00Z", []any{}, 0},
		{"created_after=" + url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339)), []any{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			status, page := call(t, srv, http.MethodGet, "/data/extractions?"+tt.query, nil)
			require.Equal(t, http.StatusOK, status, "%v", page)
			assert.Equal(t, tt.want, field(items(t, page), "id"))
			assert.Equal(t, tt.total, page["total"])
		})
	}
}

func TestListShapes(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{Filename: "invoice.pdf"})
	srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true, Results: map[string]any{"n": "1"}})
	status, page := call(t, srv, http.MethodGet, "/data/extractions?document_id="+doc+"&limit=5&skip=0", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 5.0, page["limit"])
	assert.Equal(t, 0.0, page["skip"])
	x := items(t, page)[0]
	keys := []string{"id", "document_id", "original_filename", "status", "created_at", "updated_at", "needs_review",
		"is_reviewed", "reviewed_at", "reviewed_by", "results", "reviewed_results", "needs_review_metadata", "error_message"}
	for _, k := range keys {
		assert.Contains(t, x, k)
	}
	assert.Len(t, x, len(keys))
	assert.Equal(t, "invoice.pdf", x["original_filename"])
	assert.Nil(t, x["reviewed_at"])
	assert.Nil(t, x["reviewed_by"])
	assert.Nil(t, x["reviewed_results"])
	assert.Nil(t, x["error_message"])
	_, err := time.Parse(time.RFC3339Nano, x["created_at"].(string))
	assert.NoError(t, err)

	require.NoError(t, srv.Review(doc, nil))
	_, page = call(t, srv, http.MethodGet, "/data/extractions?document_id="+doc, nil)
	x = items(t, page)[0]
	assert.Equal(t, true, x["is_reviewed"])
	assert.Equal(t, documindtest.Reviewer, x["reviewed_by"])
	assert.NotNil(t, x["reviewed_at"])
	assert.Equal(t, map[string]any{"n": "1"}, x["reviewed_results"], "nil results: the extraction's own")
}

func TestListRefusesBadQueries(t *testing.T) {
	srv := newServer(t)
	for _, q := range []string{"document_id=nope", "needs_review=maybe", "is_reviewed=2", "created_after=yesterday",
		"created_before=15.01.2024", "skip=-1", "limit=0", "limit=101", "limit=x"} {
		status, body := call(t, srv, http.MethodGet, "/data/extractions?"+q, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, status, q)
		assert.IsType(t, []any{}, body["detail"], q)
	}
	for _, q := range []string{"status=done", "sort_by=size", "sort_order=up"} {
		status, body := call(t, srv, http.MethodGet, "/data/extractions?"+q, nil)
		assert.Equal(t, http.StatusBadRequest, status, q)
		assert.IsType(t, "", body["detail"], q)
		assert.NotEmpty(t, body["allowed_values"], q)
	}
}

// statusAt lists the document's newest extraction once and returns its
// status, or "" when none is listed.
func statusAt(t *testing.T, srv *documindtest.Server, doc string) (string, map[string]any) {
	t.Helper()
	status, page := call(t, srv, http.MethodGet, "/data/extractions?limit=1&document_id="+doc, nil)
	require.Equal(t, http.StatusOK, status)
	list := items(t, page)
	if len(list) == 0 {
		return "", nil
	}
	return list[0]["status"].(string), list[0]
}

func TestScriptedExtractionAfterPolls(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{
		Listed: documindtest.After{Polls: 1},
		Status: "pending",
		Steps: []documindtest.Step{
			{Status: "processing", At: documindtest.After{Polls: 2}},
			{Status: "reindexing", At: documindtest.After{Polls: 3}},
			{Status: "completed", At: documindtest.After{Polls: 4}},
		},
		NeedsReview: true,
		Review:      &documindtest.Review{At: documindtest.After{Polls: 5}, Results: map[string]any{"ok": true}, ReviewedBy: "r-1"},
	})
	var seen []string
	var last map[string]any
	for range 7 {
		var st string
		st, last = statusAt(t, srv, doc)
		if last != nil && last["is_reviewed"] == true {
			st += "+reviewed"
		}
		seen = append(seen, st)
	}
	assert.Equal(t, []string{"", "pending", "processing", "reindexing", "completed", "completed+reviewed", "completed+reviewed"}, seen,
		"N polls see the old state, poll N+1 the change")
	assert.Equal(t, map[string]any{"ok": true}, last["reviewed_results"])
	assert.Equal(t, "r-1", last["reviewed_by"])
}

func TestPollsOfOtherDocumentsDoNotCount(t *testing.T) {
	srv := newServer(t)
	doc, other := srv.AddDocument(documindtest.Document{}), srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{Status: "pending", Steps: []documindtest.Step{{Status: "completed", At: documindtest.After{Polls: 1}}}})
	for range 3 {
		statusAt(t, srv, other)
	}
	st, _ := statusAt(t, srv, doc)
	assert.Equal(t, "pending", st)
	st, _ = statusAt(t, srv, doc)
	assert.Equal(t, "completed", st)
}

func TestScriptedChangeAfterTime(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true, Review: &documindtest.Review{At: documindtest.After{Time: 30 * time.Millisecond}}})
	_, x := statusAt(t, srv, doc)
	assert.Equal(t, false, x["is_reviewed"])
	time.Sleep(40 * time.Millisecond)
	_, x = statusAt(t, srv, doc)
	assert.Equal(t, true, x["is_reviewed"])
}

func TestReviewWaitsForCompletion(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	srv.AddExtraction(doc, documindtest.Extraction{
		Status: "processing", NeedsReview: true,
		Steps:  []documindtest.Step{{Status: "completed", At: documindtest.After{Polls: 2}}},
		Review: &documindtest.Review{}, // due at once, but only a completed extraction is reviewed
	})
	st, x := statusAt(t, srv, doc)
	assert.Equal(t, "processing", st)
	assert.Equal(t, false, x["is_reviewed"])
}

func TestManualReview(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	require.ErrorIs(t, srv.Review(doc, nil), documindtest.ErrNoExtraction)
	srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true, Results: map[string]any{"v": "old"}})
	newest := srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true, Results: map[string]any{"v": "new"}})
	require.NoError(t, srv.Review(doc, map[string]any{"v": "fixed"}))
	_, x := statusAt(t, srv, doc)
	assert.Equal(t, newest, x["id"])
	assert.Equal(t, true, x["is_reviewed"])
	assert.Equal(t, map[string]any{"v": "fixed"}, x["reviewed_results"])
	assert.Equal(t, map[string]any{"v": "new"}, x["results"])
}
