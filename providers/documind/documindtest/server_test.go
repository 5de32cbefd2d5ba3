package documindtest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

func TestServerChecksTheKey(t *testing.T) {
	srv := newServer(t)
	for _, key := range []string{"", "wrong"} {
		status, body := callWithKey(t, srv, key, http.MethodGet, "/data/extractions", nil)
		assert.Equal(t, http.StatusUnauthorized, status)
		assert.IsType(t, "", body["detail"])
	}
	assert.Equal(t, 2, srv.Requests(documindtest.RouteExtractions), "refused requests are counted")
	status, _ := call(t, srv, http.MethodGet, "/data/extractions", nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, 3, srv.Requests(documindtest.RouteExtractions))
}

func TestServerInjectsFaults(t *testing.T) {
	srv := newServer(t)
	srv.InjectFault(documindtest.RouteExtractions, 1, documindtest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "7"})
	status, body := call(t, srv, http.MethodGet, "/data/extractions", nil)
	assert.Equal(t, http.StatusTooManyRequests, status)
	assert.Contains(t, body, "detail")
	status, _ = call(t, srv, http.MethodGet, "/data/extractions", nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, 2, srv.Requests(documindtest.RouteExtractions))
}

func TestClientPointsAtTheServer(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{Results: map[string]any{"a": 1.0}})
	res, err := srv.Client(documind.WithUserAgent("test/1")).Extract(t.Context(), doc, documind.ExtractRequest{
		Schema: &documind.Schema{NamedEntities: map[string]documind.Entity{"a": {Type: "number"}}},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":1}`, string(res.Results))
	assert.Equal(t, 1, srv.Requests(documindtest.RouteExtract))
}

func TestExtractEndpoint(t *testing.T) {
	srv := newServer(t)
	flagged := srv.AddDocument(documindtest.Document{Filename: "invoice.pdf", NeedsReview: true})
	clean := srv.AddDocument(documindtest.Document{Results: map[string]any{"invoice_number": "INV-9"}})
	broken := srv.AddDocument(documindtest.Document{FailWith: "Extraction failed. Please contact support."})

	status, body := call(t, srv, http.MethodPost, "/extract/"+flagged, map[string]any{"schema": schema, "prompt": "Extract data"})
	require.Equal(t, http.StatusOK, status, "%v", body)
	assert.Equal(t, flagged, body["document_id"])
	assert.Equal(t, true, body["needs_review"])
	assert.Equal(t, map[string]any{"invoice_number": "sample invoice_number", "total": "sample total"}, body["results"],
		"with no scripted results, one sample per schema entity")
	assert.Equal(t, map[string]any{
		"confidence_scores": map[string]any{"invoice_number": 0.42},
		"review_flags":      map[string]any{"invoice_number": true},
	}, body["needs_review_metadata"])

	status, body = call(t, srv, http.MethodPost, "/extract/"+clean, map[string]any{"schema": schema})
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, false, body["needs_review"])
	assert.Equal(t, map[string]any{"invoice_number": "INV-9"}, body["results"])
	assert.Equal(t, map[string]any{"confidence_scores": map[string]any{}, "review_flags": map[string]any{}}, body["needs_review_metadata"])

	status, body = call(t, srv, http.MethodPost, "/extract/"+broken, map[string]any{"schema": schema})
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Equal(t, "Extraction failed. Please contact support.", body["detail"])

	// Every extraction is listed, newest first, the failed one included.
	status, page := call(t, srv, http.MethodGet, "/data/extractions", nil)
	require.Equal(t, http.StatusOK, status)
	list := items(t, page)
	assert.Equal(t, []any{broken, clean, flagged}, field(list, "document_id"))
	assert.Equal(t, []any{"failed", "completed", "completed"}, field(list, "status"))
	assert.Equal(t, "Extraction failed. Please contact support.", list[0]["error_message"])
	assert.Equal(t, "invoice.pdf", list[2]["original_filename"])
}

func TestExtractEndpointErrors(t *testing.T) {
	srv := newServer(t)
	doc := srv.AddDocument(documindtest.Document{})
	missing := "11111111-1111-1111-1111-111111111111"
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		detail string // for a string detail; "" for FastAPI's list
		loc    []any  // for a list detail
	}{
		{"not a UUID", "/extract/not-a-uuid", map[string]any{"schema": schema}, 422, "", []any{"path", "document_id"}},
		{"not JSON", "/extract/" + doc, "{", 422, "", []any{"body"}},
		{"no schema", "/extract/" + doc, map[string]any{"prompt": "x"}, 422, "", []any{"body", "schema"}},
		{"empty schema", "/extract/" + doc, map[string]any{"schema": map[string]any{"named_entities": map[string]any{}}}, 400, "Invalid schema: named_entities must name at least one field", nil},
		{"bad mode", "/extract/" + doc, map[string]any{"schema": schema, "extraction_mode": "ocr"}, 400, `Invalid extraction_mode "ocr": only "vlm" is supported`, nil},
		{"threshold above 100", "/extract/" + doc, map[string]any{"schema": schema, "review_threshold": 101}, 400, "Invalid review_threshold 101: must be between 0 and 100", nil},
		{"citations with a model", "/extract/" + doc, map[string]any{"schema": schema, "model": "openai-gpt-4o", "include_citations": true}, 400,
			`include_citations is only valid for Advanced extraction: do not set model or extraction_mode "vlm"`, nil},
		{"unknown document", "/extract/" + missing, map[string]any{"schema": schema}, 404, "Document not found", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := call(t, srv, http.MethodPost, tt.path, tt.body)
			assert.Equal(t, tt.status, status)
			if tt.detail != "" {
				assert.Equal(t, tt.detail, body["detail"])
				return
			}
			detail, ok := body["detail"].([]any)
			require.True(t, ok, "FastAPI's list of issues: %v", body)
			require.NotEmpty(t, detail)
			assert.Equal(t, tt.loc, detail[0].(map[string]any)["loc"])
		})
	}
}

func TestClientErrorsFromTheServer(t *testing.T) {
	srv := newServer(t)
	c := srv.Client()
	_, err := c.Extract(t.Context(), "11111111-1111-1111-1111-111111111111", documind.ExtractRequest{})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "422"), "a missing schema: %v", err)
	assert.Contains(t, err.Error(), "Field required")
}
