package documindtest

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
)

// listLimit is the largest limit GET /data/extractions accepts (the list
// page says 1–100).
const listLimit = 100

var (
	statusWords = []string{statusCompleted, statusProcessing, statusFailed, statusPending}
	sortFields  = []string{"created_at", "updated_at", "status", "original_filename"}
	sortOrders  = []string{"desc", "asc"}
)

// listQuery is a parsed GET /data/extractions query.
type listQuery struct {
	documentID, status, filename string
	needsReview, isReviewed      *bool
	after, before                time.Time
	sortBy, order                string
	skip, limit                  int
}

// handleExtractions serves GET /data/extractions. Every request counts as
// a poll of the extractions it could list, before it filters them.
func (s *Server) handleExtractions(w http.ResponseWriter, r *http.Request) {
	q, ok := parseList(w, r.URL.Query())
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	var matched []*extraction
	for _, e := range s.extractions {
		if q.documentID != "" && e.documentID != q.documentID {
			continue
		}
		e.observe(now)
		if e.visible(now) && q.matches(e) {
			matched = append(matched, e)
		}
	}
	slices.SortStableFunc(matched, q.compare)
	page := wirePage{Items: []wireExtraction{}, Total: len(matched), Skip: q.skip, Limit: q.limit}
	for _, e := range matched[min(q.skip, len(matched)):min(q.skip+q.limit, len(matched))] {
		page.Items = append(page.Items, e.wire())
	}
	fakeapi.JSON(w, http.StatusOK, page)
}

func (q *listQuery) matches(e *extraction) bool {
	switch {
	case q.status != "" && e.status != q.status,
		q.filename != "" && e.filename != q.filename,
		q.needsReview != nil && e.needsReview != *q.needsReview,
		q.isReviewed != nil && e.isReviewed != *q.isReviewed,
		!q.after.IsZero() && e.createdAt.Before(q.after),
		!q.before.IsZero() && !e.createdAt.Before(q.before):
		return false
	}
	return true
}

func (q *listQuery) compare(a, b *extraction) int {
	var c int
	switch q.sortBy {
	case "updated_at":
		c = a.updatedAt.Compare(b.updatedAt)
	case "status":
		c = cmp.Compare(a.status, b.status)
	case "original_filename":
		c = cmp.Compare(a.filename, b.filename)
	default:
		c = a.createdAt.Compare(b.createdAt)
	}
	if c == 0 {
		c = cmp.Compare(a.seq, b.seq) // creation order breaks ties
	}
	if q.order == "desc" {
		return -c
	}
	return c
}

// parseList reads the query, answering 422 (FastAPI validation) or 400
// (a value outside the allowed ones, with allowed_values) when it is bad.
func parseList(w http.ResponseWriter, v url.Values) (*listQuery, bool) {
	q := &listQuery{
		documentID: v.Get("document_id"), status: v.Get("status"), filename: v.Get("original_filename"),
		sortBy: cmp.Or(v.Get("sort_by"), "created_at"), order: cmp.Or(v.Get("sort_order"), "desc"),
		limit: listLimit,
	}
	var issues []issue
	if q.documentID != "" && !isUUID(q.documentID) {
		issues = append(issues, uuidIssue([]any{"query", "document_id"}, q.documentID))
	}
	boolean := func(key string) *bool {
		raw := v.Get(key)
		if raw == "" {
			return nil
		}
		b, err := strconv.ParseBool(raw)
		if err != nil {
			issues = append(issues, issue{Type: "bool_parsing", Loc: []any{"query", key}, Msg: "Input should be a valid boolean", Input: raw})
			return nil
		}
		return &b
	}
	q.needsReview, q.isReviewed = boolean("needs_review"), boolean("is_reviewed")
	timestamp := func(key string) time.Time {
		raw := v.Get(key)
		if raw == "" {
			return time.Time{}
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly} {
			if t, err := time.Parse(layout, raw); err == nil {
				return t
			}
		}
		issues = append(issues, issue{Type: "datetime_parsing", Loc: []any{"query", key}, Msg: "Input should be a valid datetime", Input: raw})
		return time.Time{}
	}
	q.after, q.before = timestamp("created_after"), timestamp("created_before")
	integer := func(key string, dst *int, least, most int) {
		raw := v.Get(key)
		if raw == "" {
			return
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < least || n > most {
			issues = append(issues, issue{Type: "int_parsing", Loc: []any{"query", key},
				Msg: fmt.Sprintf("Input should be an integer from %d to %d", least, most), Input: raw})
			return
		}
		*dst = n
	}
	integer("skip", &q.skip, 0, 1<<31-1)
	integer("limit", &q.limit, 1, listLimit)
	if len(issues) > 0 {
		unprocessable(w, issues...)
		return nil, false
	}
	for _, check := range []struct {
		key, value string
		allowed    []string
	}{{"status", q.status, statusWords}, {"sort_by", q.sortBy, sortFields}, {"sort_order", q.order, sortOrders}} {
		if check.value != "" && !slices.Contains(check.allowed, check.value) {
			fakeapi.JSON(w, http.StatusBadRequest, map[string]any{
				"detail":         fmt.Sprintf("Invalid %s %q", check.key, check.value),
				"allowed_values": check.allowed,
			})
			return nil, false
		}
	}
	return q, true
}
