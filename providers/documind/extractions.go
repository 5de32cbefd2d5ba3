package documind

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/jobpoll/poll/internal/httpapi"
)

// Values for [ExtractionQuery.SortBy] and [ExtractionQuery.SortOrder].
const (
	SortByCreatedAt        = "created_at"
	SortByUpdatedAt        = "updated_at"
	SortByStatus           = "status"
	SortByOriginalFilename = "original_filename"

	SortDesc = "desc"
	SortAsc  = "asc"
)

// ExtractionQuery filters, sorts and pages GET /data/extractions. A zero
// field is not sent, so the API's default applies; the booleans are
// pointers so that false can be asked for (use [Bool]).
type ExtractionQuery struct {
	// DocumentID keeps the extractions of one document (a UUID).
	DocumentID string
	// Status keeps one status: pending, processing, completed or failed.
	Status string
	// NeedsReview and IsReviewed keep extractions with that flag.
	NeedsReview *bool
	IsReviewed  *bool
	// OriginalFilename keeps an exact file name.
	OriginalFilename string
	// CreatedAfter and CreatedBefore bound created_at; sent as RFC 3339
	// in UTC.
	CreatedAfter  time.Time
	CreatedBefore time.Time
	// SortBy is one of the SortBy* names (API default created_at);
	// SortOrder is SortDesc (API default) or SortAsc.
	SortBy    string
	SortOrder string
	// Skip and Limit page the list (API defaults 0 and 100).
	Skip  int
	Limit int
	// OrganizationID is honoured for admin keys only.
	OrganizationID string
}

// Bool returns a pointer to v, for the boolean filters of
// [ExtractionQuery] and the options of [ExtractRequest].
func Bool(v bool) *bool { return &v }

// values encodes q, refusing what cannot be valid.
func (q ExtractionQuery) values() (url.Values, error) {
	v := url.Values{}
	if q.DocumentID != "" {
		if err := checkUUID("document id", q.DocumentID); err != nil {
			return nil, err
		}
		v.Set("document_id", q.DocumentID)
	}
	if q.Skip < 0 {
		return nil, invalid("skip %d is negative", q.Skip)
	}
	if q.Limit < 0 {
		return nil, invalid("limit %d is negative", q.Limit)
	}
	set := func(key, value string) {
		if value != "" {
			v.Set(key, value)
		}
	}
	set("status", q.Status)
	if q.NeedsReview != nil {
		v.Set("needs_review", strconv.FormatBool(*q.NeedsReview))
	}
	if q.IsReviewed != nil {
		v.Set("is_reviewed", strconv.FormatBool(*q.IsReviewed))
	}
	set("original_filename", q.OriginalFilename)
	if !q.CreatedAfter.IsZero() {
		v.Set("created_after", q.CreatedAfter.UTC().Format(time.RFC3339Nano))
	}
	if !q.CreatedBefore.IsZero() {
		v.Set("created_before", q.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	set("sort_by", q.SortBy)
	set("sort_order", q.SortOrder)
	if q.Skip > 0 {
		v.Set("skip", strconv.Itoa(q.Skip))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	set("organization_id", q.OrganizationID)
	return v, nil
}

// Extractions lists extractions: GET /data/extractions. It is also how a
// review is observed, since the API has no endpoint for one extraction.
func (c *Client) Extractions(ctx context.Context, q ExtractionQuery) (*ExtractionPage, error) {
	query, err := q.values()
	if err != nil {
		return nil, err
	}
	var out ExtractionPage
	err = c.api.Do(ctx, &httpapi.Request{
		Method: http.MethodGet,
		Path:   []string{"data", "extractions"},
		Query:  query,
	}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// latestExtraction returns the document's newest extraction, or nil when
// none is listed yet.
func (c *Client) latestExtraction(ctx context.Context, documentID string) (*Extraction, error) {
	page, err := c.Extractions(ctx, ExtractionQuery{
		DocumentID: documentID,
		SortBy:     SortByCreatedAt,
		SortOrder:  SortDesc,
		Limit:      1,
	})
	if err != nil {
		return nil, err
	}
	if len(page.Items) == 0 {
		return nil, nil
	}
	return &page.Items[0], nil
}
