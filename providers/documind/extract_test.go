package documind_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

var invoiceSchema = &documind.Schema{
	NamedEntities: map[string]documind.Entity{
		"invoice_number": {Type: "string", Description: "Invoice number"},
	},
	Required: []string{"invoice_number"},
}

func TestExtract(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodPost, apiRoot+"/extract/"+docID, rawAnswer(200, `{
		"document_id": "`+docID+`",
		"results": {"invoice_number": "INV-001", "total": 120.5},
		"needs_review": true,
		"needs_review_metadata": {"confidence_scores": {"invoice_number": 0.42}, "review_flags": {"invoice_number": true}}
	}`))

	threshold := 0.0
	res, err := m.client().Extract(t.Context(), docID, documind.ExtractRequest{
		Schema:          invoiceSchema,
		Prompt:          "Extract data",
		ReviewThreshold: &threshold,
	})
	require.NoError(t, err)
	assert.Equal(t, docID, res.DocumentID)
	assert.True(t, res.NeedsReview)
	assert.JSONEq(t, `{"invoice_number": "INV-001", "total": 120.5}`, string(res.Results))
	assert.JSONEq(t, `{"confidence_scores": {"invoice_number": 0.42}, "review_flags": {"invoice_number": true}}`, string(res.NeedsReviewMetadata))

	reqs := m.requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/api/v1/extract/"+docID, r.Path)
	assert.Empty(t, r.Query)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, testKey, r.Header.Get("X-API-Key"))
	assert.JSONEq(t, `{
		"schema": {"named_entities": {"invoice_number": {"type": "string", "description": "Invoice number"}}, "required": ["invoice_number"]},
		"prompt": "Extract data",
		"review_threshold": 0
	}`, string(r.Body), "unset options are left out; a zero threshold is sent")
}

func TestExtractRequestEncodesEveryOption(t *testing.T) {
	threshold := 65.0
	body, err := json.Marshal(documind.ExtractRequest{
		Schema: invoiceSchema, Prompt: "p", Model: "openai-gpt-4.1", ExtractionMode: documind.ModeVLM,
		ReviewThreshold: &threshold, IncludeCitations: documind.Bool(false), AgenticOCR: documind.Bool(true),
		ConfidenceInstruction: "be strict",
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"schema": {"named_entities": {"invoice_number": {"type": "string", "description": "Invoice number"}}, "required": ["invoice_number"]},
		"prompt": "p", "model": "openai-gpt-4.1", "extraction_mode": "vlm", "review_threshold": 65,
		"include_citations": false, "agentic_ocr": true, "confidence_instruction": "be strict"
	}`, string(body))
}

func TestExtractErrors(t *testing.T) {
	tests := []struct {
		status  int
		body    string
		message string
	}{
		{400, `{"detail":"Invalid schema"}`, "Invalid schema"},
		{402, `{"detail":"Insufficient credits","available_credits":0}`, "Insufficient credits"},
		{404, `{"detail":"Document not found"}`, "Document not found"},
		{500, `{"detail":"Extraction failed. Please contact support."}`, "Extraction failed. Please contact support."},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			m := newMockAPI(t)
			m.on(http.MethodPost, apiRoot+"/extract/"+docID, rawAnswer(tt.status, tt.body))
			res, err := m.client().Extract(t.Context(), docID, documind.ExtractRequest{Schema: invoiceSchema})
			assert.Nil(t, res)
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.message, apiErr.Message)
			assert.Equal(t, tt.status >= 500, poll.Transient(err))
		})
	}
}

// badIDs are refused before any request: each would otherwise have to
// stay one escaped path segment.
var badIDs = []string{"", "../admin", "a/b?c#d", "550e8400-e29b-41d4-a716-44665544000", "550e8400e29b41d4a716446655440000",
	"{550e8400-e29b-41d4-a716-446655440000}", "urn:uuid:550e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716-44665544000g"}

func TestExtractRefusesIDsThatAreNotUUIDs(t *testing.T) {
	for _, id := range badIDs {
		m := newMockAPI(t)
		res, err := m.client().Extract(t.Context(), id, documind.ExtractRequest{Schema: invoiceSchema})
		assert.Nil(t, res)
		require.ErrorIs(t, err, documind.ErrInvalidInput, "id %q", id)
		assert.Contains(t, err.Error(), "documind: document id "+strconv.Quote(id)+" is not a UUID")
		assert.Contains(t, err.Error(), "no request was sent")
		assert.Zero(t, m.total(), "id %q: a request was sent", id)
	}
}

func TestUpperCaseUUIDIsAccepted(t *testing.T) {
	upper := "550E8400-E29B-41D4-A716-446655440000"
	m := newMockAPI(t)
	m.on(http.MethodPost, apiRoot+"/extract/"+upper, rawAnswer(200, `{"document_id":"`+upper+`","results":{},"needs_review":false}`))
	_, err := m.client().Extract(t.Context(), upper, documind.ExtractRequest{Schema: invoiceSchema})
	require.NoError(t, err)
}
