package documind_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind"
)

func TestExtractionsQuery(t *testing.T) {
	after := time.Date(2024, 1, 15, 1, 0, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name  string
		query documind.ExtractionQuery
		want  url.Values
	}{
		{name: "zero query sends no parameters", want: url.Values{}},
		{
			name: "every filter",
			query: documind.ExtractionQuery{
				DocumentID: docID, Status: documind.ExtractionCompleted,
				NeedsReview: documind.Bool(true), IsReviewed: documind.Bool(false),
				OriginalFilename: "invoice 1.pdf",
				CreatedAfter:     after, CreatedBefore: after.Add(36*time.Hour + 500*time.Millisecond),
				SortBy: documind.SortByUpdatedAt, SortOrder: documind.SortAsc,
				Skip: 20, Limit: 10, OrganizationID: "org-1",
			},
			want: url.Values{
				"document_id": {docID}, "status": {"completed"},
				"needs_review": {"true"}, "is_reviewed": {"false"},
				"original_filename": {"invoice 1.pdf"},
				"created_after":     {"2024-01-15T00:00:00Z"}, "created_before": {"2024-01-16T12:00:00.5Z"},
				"sort_by": {"updated_at"}, "sort_order": {"asc"},
				"skip": {"20"}, "limit": {"10"}, "organization_id": {"org-1"},
			},
		},
		{
			name:  "false flags are sent",
			query: documind.ExtractionQuery{NeedsReview: documind.Bool(false), IsReviewed: documind.Bool(false)},
			want:  url.Values{"needs_review": {"false"}, "is_reviewed": {"false"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMockAPI(t)
			m.on(http.MethodGet, apiRoot+"/data/extractions", jsonAnswer(200, page()))
			_, err := m.client().Extractions(t.Context(), tt.query)
			require.NoError(t, err)
			reqs := m.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, http.MethodGet, reqs[0].Method)
			assert.Equal(t, "/api/v1/data/extractions", reqs[0].Path)
			assert.Equal(t, map[string][]string(tt.want), reqs[0].Query)
			assert.Empty(t, reqs[0].Body)
			assert.Equal(t, testKey, reqs[0].Header.Get("X-API-Key"))
		})
	}
}

func TestExtractionsDecodesThePage(t *testing.T) {
	m := newMockAPI(t)
	reviewed := extraction("completed", true, true)
	failed := extraction("failed", false, false)
	failed["error_message"] = "Extraction failed. Please contact support."
	failed["created_at"] = "2024-01-15T10:30:00.123456" // no zone, as Python writes a naive datetime
	m.on(http.MethodGet, apiRoot+"/data/extractions", jsonAnswer(200, map[string]any{
		"items": []any{reviewed, failed}, "total": 7, "skip": 2, "limit": 2,
	}))

	p, err := m.client().Extractions(t.Context(), documind.ExtractionQuery{Skip: 2, Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, 7, p.Total)
	assert.Equal(t, 2, p.Skip)
	assert.Equal(t, 2, p.Limit)
	require.Len(t, p.Items, 2)

	x := p.Items[0]
	assert.Equal(t, "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb", x.ID)
	assert.Equal(t, docID, x.DocumentID)
	assert.Equal(t, "invoice.pdf", x.OriginalFilename)
	assert.Equal(t, documind.ExtractionCompleted, x.Status)
	assert.Equal(t, time.Date(2024, 1, 15, 10, 30, 0, 123456000, time.UTC), x.CreatedAt.UTC())
	assert.Equal(t, time.Date(2024, 1, 15, 10, 31, 0, 0, time.UTC), x.UpdatedAt.UTC())
	assert.True(t, x.NeedsReview)
	assert.True(t, x.IsReviewed)
	assert.Equal(t, time.Date(2024, 1, 15, 10, 45, 0, 0, time.UTC), x.ReviewedAt.UTC())
	assert.Equal(t, "cccccccc-cccc-cccc-cccc-cccccccccccc", x.ReviewedBy)
	assert.JSONEq(t, `{"invoice_number":"INV-00l"}`, string(x.Results))
	assert.JSONEq(t, `{"invoice_number":"INV-001"}`, string(x.ReviewedResults))
	assert.JSONEq(t, `{"invoice_number":"INV-001"}`, string(x.FinalResults()), "reviewed results win")

	f := p.Items[1]
	assert.Equal(t, "Extraction failed. Please contact support.", f.ErrorMessage)
	assert.True(t, f.ReviewedAt.IsZero(), "null reviewed_at")
	assert.Empty(t, f.ReviewedBy)
	assert.Equal(t, time.Date(2024, 1, 15, 10, 30, 0, 123456000, time.UTC), f.CreatedAt.Time, "a zoneless timestamp reads as UTC")
	assert.JSONEq(t, `{"invoice_number":"INV-00l"}`, string(f.FinalResults()), "not reviewed: the extraction's own results")
}

func TestExtractionsRefusesBadQueries(t *testing.T) {
	tests := []struct {
		query documind.ExtractionQuery
		want  string
	}{
		{documind.ExtractionQuery{DocumentID: "../admin"}, `document id "../admin" is not a UUID`},
		{documind.ExtractionQuery{Skip: -1}, "skip -1 is negative"},
		{documind.ExtractionQuery{Limit: -5}, "limit -5 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			m := newMockAPI(t)
			p, err := m.client().Extractions(t.Context(), tt.query)
			assert.Nil(t, p)
			require.ErrorIs(t, err, documind.ErrInvalidInput)
			assert.Contains(t, err.Error(), tt.want)
			assert.Zero(t, m.total())
		})
	}
}

func TestExtractionsMalformedAnswerIsPermanent(t *testing.T) {
	m := newMockAPI(t)
	m.on(http.MethodGet, apiRoot+"/data/extractions", rawAnswer(200, `{"items": [{"created_at": "yesterday"}]}`))
	_, err := m.client().Extractions(t.Context(), documind.ExtractionQuery{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"yesterday" is not ISO 8601`)
}

func TestFinalResultsOfNil(t *testing.T) {
	var x *documind.Extraction
	assert.Nil(t, x.FinalResults())
	reviewedWithoutResults := &documind.Extraction{IsReviewed: true, Results: []byte(`{"a":1}`), ReviewedResults: []byte("null")}
	assert.JSONEq(t, `{"a":1}`, string(reviewedWithoutResults.FinalResults()))
}

func TestBool(t *testing.T) {
	for _, v := range []bool{true, false} {
		p := documind.Bool(v)
		require.NotNil(t, p)
		assert.Equal(t, v, *p, strconv.FormatBool(v))
	}
}
