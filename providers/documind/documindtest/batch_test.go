package documindtest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind/documindtest"
)

func startBatch(t *testing.T, srv *documindtest.Server, ids ...string) string {
	t.Helper()
	status, body := call(t, srv, http.MethodPost, "/batch/extract", map[string]any{
		"document_ids": ids, "extraction_request": map[string]any{"schema": schema, "prompt": "Extract invoice fields"},
	})
	require.Equal(t, http.StatusAccepted, status, "%v", body)
	return body["batch_id"].(string)
}

func getBatch(t *testing.T, srv *documindtest.Server, id string) map[string]any {
	t.Helper()
	status, body := call(t, srv, http.MethodGet, "/batch/"+id, nil)
	require.Equal(t, http.StatusOK, status, "%v", body)
	return body
}

func TestStartBatchEndpoint(t *testing.T) {
	srv := newServer(t)
	a := srv.AddDocument(documindtest.Document{Ready: documindtest.After{Polls: 1}})
	b := srv.AddDocument(documindtest.Document{Ready: documindtest.After{Polls: 1}})
	status, body := call(t, srv, http.MethodPost, "/batch/extract", map[string]any{
		"document_ids": []string{a, b}, "extraction_request": map[string]any{"prompt": "prompt only"},
	})
	require.Equal(t, http.StatusAccepted, status)
	assert.Len(t, body, 3, "batch_id, status, items: %v", body)
	assert.Equal(t, "pending", body["status"])
	list := items(t, body)
	assert.Equal(t, []any{a, b}, field(list, "document_id"))
	assert.Equal(t, []any{"pending", "pending"}, field(list, "status"))
	for _, it := range list {
		assert.Len(t, it, 3, "document_id, extraction_id, status: %v", it)
	}

	// The items are extractions: listed, pending for one poll.
	_, page := call(t, srv, http.MethodGet, "/data/extractions?status=pending&sort_order=asc", nil)
	assert.Equal(t, field(list, "extraction_id"), field(items(t, page), "id"))
	_, page = call(t, srv, http.MethodGet, "/data/extractions?status=completed&sort_order=asc", nil)
	assert.Equal(t, field(list, "extraction_id"), field(items(t, page), "id"))
}

func TestStartBatchEndpointErrors(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	req := map[string]any{"schema": schema}
	tests := []struct {
		name   string
		body   any
		status int
		detail string
	}{
		{"empty ids", map[string]any{"document_ids": []string{}, "extraction_request": req}, 422, ""},
		{"no ids", map[string]any{"extraction_request": req}, 422, ""},
		{"an id that is not a UUID", map[string]any{"document_ids": []any{doc, "nope"}, "extraction_request": req}, 422, ""},
		{"an id that is not a string", map[string]any{"document_ids": []any{7}, "extraction_request": req}, 422, ""},
		{"no extraction_request", map[string]any{"document_ids": []string{doc}}, 422, ""},
		{"not JSON", "[", 422, ""},
		{"citations in VLM mode", map[string]any{"document_ids": []string{doc}, "extraction_request": map[string]any{"extraction_mode": "vlm", "include_citations": true}}, 400,
			`include_citations is only valid for Advanced extraction: do not set model or extraction_mode "vlm"`},
		{"a document not uploaded", map[string]any{"document_ids": []string{doc, "11111111-1111-1111-1111-111111111111"}, "extraction_request": req}, 403,
			"No access to document 11111111-1111-1111-1111-111111111111"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, srv, http.MethodPost, "/batch/extract", tt.body)
			assert.Equal(t, tt.status, status)
			if tt.detail == "" {
				assert.IsType(t, []any{}, body["detail"])
			} else {
				assert.Equal(t, tt.detail, body["detail"])
			}
		})
	}
	_, page := call(t, srv, http.MethodGet, "/data/extractions", nil)
	assert.Empty(t, items(t, page), "a refused batch creates nothing")
}

func TestBatchEndpointErrors(t *testing.T) {
	srv := newServer(t)
	status, body := call(t, srv, http.MethodGet, "/batch/not-a-uuid", nil)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Invalid batch ID", body["detail"])
	status, body = call(t, srv, http.MethodGet, "/batch/aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", nil)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "Batch not found", body["detail"])
}

func TestBatchItemsLandAfterPolls(t *testing.T) {
	srv := newServer(t)
	fast := srv.AddDocument(documindtest.Document{Filename: "a.pdf", Results: map[string]any{"invoice_number": "INV-1"}})
	slow := srv.AddDocument(documindtest.Document{Filename: "b.pdf", Ready: documindtest.After{Polls: 2}, NeedsReview: true})
	bad := srv.AddDocument(documindtest.Document{Filename: "c.pdf", Ready: documindtest.After{Polls: 3}, FailWith: "Extraction failed. Please contact support."})
	id := startBatch(t, srv, fast, slow, bad)

	type counts struct {
		Status                     string
		Pending, Completed, Failed float64
	}
	var seen []counts
	var last map[string]any
	for range 5 {
		last = getBatch(t, srv, id)
		assert.Equal(t, 3.0, last["total"])
		seen = append(seen, counts{last["status"].(string), last["pending"].(float64), last["completed"].(float64), last["failed"].(float64)})
	}
	assert.Equal(t, []counts{
		{"pending", 2, 1, 0},
		{"pending", 2, 1, 0},
		{"pending", 1, 2, 0},
		{"partial_failed", 0, 2, 1},
		{"partial_failed", 0, 2, 1},
	}, seen)

	list := items(t, last)
	keys := []string{"document_id", "extraction_id", "original_filename", "status", "results", "needs_review",
		"needs_review_metadata", "results_metadata", "error_message", "parsed_content", "layout", "sources"}
	for _, k := range keys {
		assert.Contains(t, list[0], k)
	}
	assert.Len(t, list[0], len(keys))
	assert.Equal(t, []any{"a.pdf", "b.pdf", "c.pdf"}, field(list, "original_filename"))
	assert.Equal(t, []any{"completed", "completed", "failed"}, field(list, "status"))
	assert.Equal(t, map[string]any{"invoice_number": "INV-1"}, list[0]["results"])
	assert.Equal(t, map[string]any{"invoice_number": "sample invoice_number", "total": "sample total"}, list[1]["results"])
	assert.Equal(t, map[string]any{}, list[2]["results"])
	assert.Equal(t, []any{false, true, false}, field(list, "needs_review"))
	assert.Equal(t, []any{nil, nil, "Extraction failed. Please contact support."}, field(list, "error_message"))
	assert.Equal(t, map[string]any{"batch_id": id}, list[0]["results_metadata"])

	// The batch's extractions are listed with the same outcome.
	_, page := call(t, srv, http.MethodGet, "/data/extractions?document_id="+bad, nil)
	x := items(t, page)[0]
	assert.Equal(t, list[2]["extraction_id"], x["id"])
	assert.Equal(t, "failed", x["status"])
}

func TestBatchAggregateStatus(t *testing.T) {
	tests := []struct {
		name string
		docs []documindtest.Document
		want string
	}{
		{"every item completed", []documindtest.Document{{}, {}}, "completed"},
		{"every item failed", []documindtest.Document{{FailWith: "x"}, {FailWith: "y"}}, "failed"},
		{"one failed, one completed", []documindtest.Document{{FailWith: "x"}, {}}, "partial_failed"},
		{"one failed while another is pending", []documindtest.Document{{FailWith: "x"}, {StayPending: true}}, "partial_failed"},
		{"stays pending", []documindtest.Document{{}, {StayPending: true}}, "pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			var ids []string
			for _, d := range tt.docs {
				ids = append(ids, srv.AddDocument(d))
			}
			id, err := srv.StartBatch(ids...)
			require.NoError(t, err)
			for range 3 {
				assert.Equal(t, tt.want, getBatch(t, srv, id)["status"])
			}
		})
	}
}

func TestBatchReviewOfAnItem(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{NeedsReview: true, Ready: documindtest.After{Polls: 1},
		Review: &documindtest.Review{At: documindtest.After{Polls: 2}, Results: map[string]any{"fixed": true}}})
	id, err := srv.StartBatch(doc)
	require.NoError(t, err)
	getBatch(t, srv, id)
	assert.Equal(t, "completed", getBatch(t, srv, id)["status"])
	_, x := statusAt(t, srv, doc) // the third poll of the extraction
	assert.Equal(t, true, x["is_reviewed"])
	assert.Equal(t, map[string]any{"fixed": true}, x["reviewed_results"])
}

func TestServerStartBatchErrors(t *testing.T) {
	srv := newServer(t)
	_, err := srv.StartBatch()
	require.Error(t, err)
	_, err = srv.StartBatch("11111111-1111-1111-1111-111111111111")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "was not added")
}

func TestOverrideBatchStatus(t *testing.T) {
	srv := newServer(t)
	id, err := srv.StartBatch(srv.AddDocument(documindtest.Document{}))
	require.NoError(t, err)
	require.NoError(t, srv.OverrideBatchStatus(id, "reconciling", 2))
	assert.Equal(t, "reconciling", getBatch(t, srv, id)["status"])
	b := getBatch(t, srv, id)
	assert.Equal(t, "reconciling", b["status"])
	assert.Equal(t, 1.0, b["completed"], "the counts stay true")
	assert.Equal(t, "completed", getBatch(t, srv, id)["status"])
	require.Error(t, srv.OverrideBatchStatus("11111111-1111-1111-1111-111111111111", "x", 1))
}
