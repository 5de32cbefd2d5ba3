package documind_test

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind"
)

const (
	testKey = "sk-test-0123456789"
	apiRoot = "https://api.documind.cloud/api/v1"
	docID   = "550e8400-e29b-41d4-a716-446655440000"
	batchID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
)

// recorded is one request as the mock server saw it.
type recorded struct {
	Method string
	URL    string // as sent, escaped
	Path   string // escaped path
	Query  map[string][]string
	Header http.Header
	Body   []byte
	At     time.Time // when it was sent: virtual time in a synctest bubble
}

// mockAPI is an in-memory Documind: httpmock's transport in an
// http.Client of our own, so no global state is touched.
type mockAPI struct {
	t  *testing.T
	mt *httpmock.MockTransport

	mu   sync.Mutex
	reqs []recorded
}

func newMockAPI(t *testing.T) *mockAPI {
	return &mockAPI{t: t, mt: httpmock.NewMockTransport()}
}

// client returns a client on the mock, with opts after the mock's.
func (m *mockAPI) client(opts ...documind.Option) *documind.Client {
	all := append([]documind.Option{documind.WithHTTPClient(&http.Client{Transport: m.mt})}, opts...)
	c, err := documind.New(testKey, all...)
	require.NoError(m.t, err)
	return c
}

// on answers method+url (without query) with the responses in turn, the
// last one repeated.
func (m *mockAPI) on(method, url string, responses ...httpmock.Responder) {
	n := 0
	m.mt.RegisterResponder(method, url, func(req *http.Request) (*http.Response, error) {
		m.record(req)
		m.mu.Lock()
		r := responses[min(n, len(responses)-1)]
		n++
		m.mu.Unlock()
		return r(req)
	})
}

func (m *mockAPI) record(req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, recorded{
		Method: req.Method, URL: req.URL.String(), Path: req.URL.EscapedPath(),
		Query: req.URL.Query(), Header: req.Header.Clone(), Body: body, At: time.Now(),
	})
}

func (m *mockAPI) requests() []recorded {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]recorded(nil), m.reqs...)
}

// total counts every request that reached the transport, answered or not.
func (m *mockAPI) total() int { return m.mt.GetTotalCallCount() }

// jsonAnswer answers status with v as JSON.
func jsonAnswer(status int, v any) httpmock.Responder {
	return httpmock.NewJsonResponderOrPanic(status, v)
}

// rawAnswer answers status with body as JSON text.
func rawAnswer(status int, body string, header ...string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		return resp, nil
	}
}

// page is a list answer holding the given extractions.
func page(items ...map[string]any) map[string]any {
	if items == nil {
		items = []map[string]any{}
	}
	return map[string]any{"items": items, "total": len(items), "skip": 0, "limit": 1}
}

// extraction is a listed extraction of docID in the API's own JSON.
func extraction(status string, needsReview, isReviewed bool) map[string]any {
	x := map[string]any{
		"id":                "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb",
		"document_id":       docID,
		"original_filename": "invoice.pdf",
		"status":            status,
		"created_at":        "2024-01-15T10:30:00.123456Z",
		"updated_at":        "2024-01-15T10:31:00Z",
		"needs_review":      needsReview,
		"is_reviewed":       isReviewed,
		"reviewed_at":       nil,
		"reviewed_by":       nil,
		"results":           map[string]any{"invoice_number": "INV-00l"},
		"reviewed_results":  nil,
		"error_message":     nil,
	}
	if isReviewed {
		x["reviewed_at"] = "2024-01-15T10:45:00Z"
		x["reviewed_by"] = "cccccccc-cccc-cccc-cccc-cccccccccccc"
		x["reviewed_results"] = map[string]any{"invoice_number": "INV-001"}
	}
	return x
}

// batchJSON is a batch answer with the given item statuses.
func batchJSON(status string, items ...string) map[string]any {
	out := map[string]any{"batch_id": batchID, "status": status, "total": len(items)}
	var list []map[string]any
	counts := map[string]int{}
	for i, st := range items {
		counts[st]++
		item := map[string]any{
			"document_id":   docID,
			"extraction_id": "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbb" + string(rune('0'+i)),
			"status":        st,
			"results":       map[string]any{},
			"error_message": nil,
		}
		if st == "failed" {
			item["error_message"] = "Extraction failed. Please contact support."
		}
		list = append(list, item)
	}
	out["items"] = list
	out["pending"], out["completed"], out["failed"] = counts["pending"], counts["completed"], counts["failed"]
	return out
}

// times returns when each request was sent, relative to start.
func (m *mockAPI) times(start time.Time) []time.Duration {
	var out []time.Duration
	for _, r := range m.requests() {
		out = append(out, r.At.Sub(start))
	}
	return out
}
