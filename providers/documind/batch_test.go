package documind_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

const otherDocID = "22222222-2222-2222-2222-222222222222"

func TestStartBatch(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodPost, apiRoot+"/batch/extract", rawAnswer(http.StatusAccepted, `{
		"batch_id": "`+batchID+`",
		"status": "pending",
		"items": [
			{"document_id": "`+docID+`", "extraction_id": "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb", "status": "pending"},
			{"document_id": "`+otherDocID+`", "extraction_id": "cccccccc-cccc-cccc-cccc-cccccccccccc", "status": "pending"}
		]
	}`))

	b, err := m.client().StartBatch(t.Context(), documind.BatchRequest{
		DocumentIDs: []string{docID, otherDocID},
		ExtractionRequest: documind.ExtractRequest{
			Schema: invoiceSchema, Model: "google-gemini-2.5-flash", IncludeCitations: documind.Bool(false),
		},
	})
	require.NoError(t, err)
	assert.Equal(t, batchID, b.BatchID)
	assert.Equal(t, documind.BatchPending, b.Status)
	assert.Zero(t, b.Total, "the 202 answer has no counts")
	require.Len(t, b.Items, 2)
	assert.Equal(t, otherDocID, b.Items[1].DocumentID)
	assert.Equal(t, "cccccccc-cccc-cccc-cccc-cccccccccccc", b.Items[1].ExtractionID)
	assert.Equal(t, "pending", b.Items[1].Status)

	reqs := m.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/api/v1/batch/extract", r.Path)
	assert.Empty(t, r.Query)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, testKey, r.Header.Get("X-API-Key"))
	assert.JSONEq(t, `{
		"document_ids": ["`+docID+`", "`+otherDocID+`"],
		"extraction_request": {
			"schema": {"named_entities": {"invoice_number": {"type": "string", "description": "Invoice number"}}, "required": ["invoice_number"]},
			"model": "google-gemini-2.5-flash",
			"include_citations": false
		}
	}`, string(r.Body))
}

func TestStartBatchPromptOnlySendsAnExtractionRequest(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodPost, apiRoot+"/batch/extract", jsonAnswer(http.StatusAccepted, map[string]any{"batch_id": batchID, "status": "pending"}))
	_, err := m.client().StartBatch(t.Context(), documind.BatchRequest{
		DocumentIDs:       []string{docID},
		ExtractionRequest: documind.ExtractRequest{Prompt: "Extract invoice fields"},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"document_ids":["`+docID+`"],"extraction_request":{"prompt":"Extract invoice fields"}}`, string(m.requests()[0].Body))
}

func TestStartBatchRefusesBadInput(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"nil ids", nil, "a batch needs at least one document id, got none"},
		{"empty ids", []string{}, "a batch needs at least one document id, got none"},
		{"second id bad", []string{docID, "../admin", otherDocID}, `document_ids[1] (of 3) "../admin" is not a UUID`},
		{"empty id", []string{""}, `document_ids[0] (of 1) "" is not a UUID`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMockAPI(t)
			b, err := m.client().StartBatch(t.Context(), documind.BatchRequest{DocumentIDs: tt.ids})
			assert.Nil(t, b)
			require.ErrorIs(t, err, documind.ErrInvalidInput)
			assert.Contains(t, err.Error(), "documind: "+tt.want)
			assert.Zero(t, m.total())
		})
	}
}

func TestStartBatchErrors(t *testing.T) {
	for _, status := range []int{400, 402, 403, 422, 500} {
		m := newMockAPI(t)
		m.on(http.MethodPost, apiRoot+"/batch/extract", rawAnswer(status, `{"detail":"no"}`))
		_, err := m.client().StartBatch(t.Context(), documind.BatchRequest{DocumentIDs: []string{docID}})
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, status, apiErr.StatusCode)
	}
}

func TestBatch(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/batch/"+batchID, rawAnswer(200, `{
		"batch_id": "`+batchID+`",
		"status": "partial_failed",
		"total": 2, "pending": 0, "completed": 1, "failed": 1,
		"items": [
			{
				"document_id": "`+docID+`", "extraction_id": "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb",
				"original_filename": "invoice-1.pdf", "status": "completed",
				"results": {"invoice_number": "INV-001"}, "needs_review": false, "needs_review_metadata": {},
				"results_metadata": {"batch_id": "`+batchID+`"},
				"error_message": null, "parsed_content": null, "layout": null, "sources": null
			},
			{
				"document_id": "`+otherDocID+`", "extraction_id": "cccccccc-cccc-cccc-cccc-cccccccccccc",
				"original_filename": "invoice-2.pdf", "status": "failed",
				"results": {}, "needs_review": false, "needs_review_metadata": {},
				"results_metadata": {"batch_id": "`+batchID+`"},
				"error_message": "Extraction failed. Please contact support.", "parsed_content": "text", "layout": null, "sources": null
			}
		]
	}`))

	b, err := m.client().Batch(t.Context(), batchID)
	require.NoError(t, err)
	assert.Equal(t, documind.BatchPartialFailed, b.Status)
	assert.Equal(t, [4]int{2, 0, 1, 1}, [4]int{b.Total, b.Pending, b.Completed, b.Failed})
	require.Len(t, b.Items, 2)
	ok, bad := b.Items[0], b.Items[1]
	assert.Equal(t, "invoice-1.pdf", ok.OriginalFilename)
	assert.JSONEq(t, `{"invoice_number":"INV-001"}`, string(ok.Results))
	assert.JSONEq(t, `{"batch_id":"`+batchID+`"}`, string(ok.ResultsMetadata))
	assert.Empty(t, ok.ErrorMessage)
	assert.Equal(t, "failed", bad.Status)
	assert.Equal(t, "Extraction failed. Please contact support.", bad.ErrorMessage)
	assert.JSONEq(t, `"text"`, string(bad.ParsedContent))

	reqs := m.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, http.MethodGet, reqs[0].Method)
	assert.Equal(t, "/api/v1/batch/"+batchID, reqs[0].Path)
	assert.Empty(t, reqs[0].Query)
	assert.Empty(t, reqs[0].Body)
}

func TestBatchRefusesIDsThatAreNotUUIDs(t *testing.T) {
	for _, id := range badIDs {
		m := newMockAPI(t)
		b, err := m.client().Batch(t.Context(), id)
		assert.Nil(t, b)
		require.ErrorIs(t, err, documind.ErrInvalidInput, "id %q", id)
		assert.Contains(t, err.Error(), "batch id")
		assert.Zero(t, m.total(), "id %q: a request was sent", id)
	}
}
