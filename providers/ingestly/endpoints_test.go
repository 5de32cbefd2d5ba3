package ingestly_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

// hostileIDs must each stay one escaped path segment.
var hostileIDs = []struct{ id, escaped string }{
	{"0199a6c2-4b7d-7e01-8f3a-2c4d6e8f0a1b", "0199a6c2-4b7d-7e01-8f3a-2c4d6e8f0a1b"},
	{"../admin", "..%2Fadmin"},
	{"a/b?c#d", "a%2Fb%3Fc%23d"},
	{"..", "%2E%2E"},
	{"with space", "with%20space"},
}

// getCase is one GET endpoint taking an id.
type getCase struct {
	name string
	call func(c *ingestly.Client, id string) (any, error)
	path func(escaped string) string
	body string
	want any
}

var getCases = []getCase{
	{
		name: "Run",
		call: func(c *ingestly.Client, id string) (any, error) { return c.Run(context.Background(), id) },
		path: func(e string) string { return "/runs/" + e },
		body: `{"id":"r1","documentId":"d1","workflowId":"w1","status":"failed","error":{"code":"node_failed","message":"OCR timed out"},"newField":1}`,
		want: &ingestly.Run{ID: "r1", DocumentID: "d1", WorkflowID: "w1", Status: "failed", Error: &ingestly.RunError{Code: "node_failed", Message: "OCR timed out"}},
	},
	{
		name: "Document",
		call: func(c *ingestly.Client, id string) (any, error) { return c.Document(context.Background(), id) },
		path: func(e string) string { return "/documents/" + e },
		body: `{"id":"d1","status":"held","reference":"PO-1182","workflowId":"w1"}`,
		want: &ingestly.Document{ID: "d1", Status: "held", Reference: "PO-1182", WorkflowID: "w1"},
	},
	{
		name: "DocumentRuns",
		call: func(c *ingestly.Client, id string) (any, error) { return c.DocumentRuns(context.Background(), id) },
		path: func(e string) string { return "/documents/" + e + "/runs" },
		body: `{"count":2,"pages":1,"data":[{"id":"r2","status":"running"},{"id":"r1","status":"failed"}]}`,
		want: []ingestly.Run{{ID: "r2", Status: "running"}, {ID: "r1", Status: "failed"}},
	},
	{
		name: "OriginalFile",
		call: func(c *ingestly.Client, id string) (any, error) { return c.OriginalFile(context.Background(), id) },
		path: func(e string) string { return "/documents/" + e + "/original" },
		body: `{"url":"https://files.example/po.pdf?sig=abc","expiresOn":"2025-06-01T12:05:00Z"}`,
		want: &ingestly.OriginalFile{URL: "https://files.example/po.pdf?sig=abc", ExpiresOn: time.Date(2025, 6, 1, 12, 5, 0, 0, time.UTC)},
	},
	{
		name: "RunOutput",
		call: func(c *ingestly.Client, id string) (any, error) { return c.RunOutput(context.Background(), id, "") },
		path: func(e string) string { return "/runs/" + e + "/output" },
		body: `{"contentType":"application/json","filename":"po.json","isBase64":false,"output":{"poNumber":"PO-1182"}}`,
		want: &ingestly.RunOutput{ContentType: "application/json", Filename: "po.json", Output: []byte(`{"poNumber":"PO-1182"}`)},
	},
}

func TestGetEndpoints(t *testing.T) {
	for _, tc := range getCases {
		for _, id := range hostileIDs {
			t.Run(tc.name+"/"+id.id, func(t *testing.T) {
				m := newMock(t, answers(jsonAnswer(http.StatusOK, tc.body)))
				got, err := tc.call(m.client, id.id)
				require.NoError(t, err)
				assert.Equal(t, tc.want, got)
				r := m.one(t)
				assert.Equal(t, http.MethodGet, r.Method)
				assert.Equal(t, tc.path(id.escaped), r.Path)
				assert.Empty(t, r.Query)
				assert.Empty(t, r.Body)
				checkCommon(t, r)
			})
		}
	}
}

func TestGetEndpointsRefuseEmptyIDs(t *testing.T) {
	for _, tc := range getCases {
		for _, id := range []string{"", "  "} {
			t.Run(tc.name, func(t *testing.T) {
				m := newMock(t, answers(jsonAnswer(http.StatusOK, tc.body)))
				_, err := tc.call(m.client, id)
				require.Error(t, err)
				assert.Contains(t, err.Error(), "ingestly: "+tc.name+": the ")
				assert.Contains(t, err.Error(), "must not be empty or blank")
				assert.Empty(t, m.requests(), "no request may be sent")
			})
		}
	}
}

func TestGetEndpointsReturnProblems(t *testing.T) {
	for _, tc := range getCases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMock(t, answers(problem(http.StatusNotFound, "https://api.ingestly.ai/problems/not-found", "no such thing")))
			_, err := tc.call(m.client, "x1")
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
			assert.Equal(t, "https://api.ingestly.ai/problems/not-found", apiErr.Code)
			assert.Equal(t, "no such thing", apiErr.Message)
			assert.False(t, poll.Transient(err))
		})
	}
}

func TestDocumentRunsReadsABareArray(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, ` [{"id":"r3","status":"queued"},{"id":"r2","status":"completed"}]`)))
	runs, err := m.client.DocumentRuns(context.Background(), "d1")
	require.NoError(t, err)
	assert.Equal(t, []ingestly.Run{{ID: "r3", Status: "queued"}, {ID: "r2", Status: "completed"}}, runs)
}

func TestDocumentRunsRefusesAnotherShape(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, `{"data":{"id":"r1"}}`)))
	_, err := m.client.DocumentRuns(context.Background(), "d1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ingestly: DocumentRuns: decoding the list of runs")
}

func TestRunOutputSendsNodeID(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, `{"contentType":"text/csv","filename":"lines.csv","isBase64":false,"output":"a,b\n1,2\n"}`)))
	out, err := m.client.RunOutput(context.Background(), "r/1", "node 7&x=1")
	require.NoError(t, err)
	r := m.one(t)
	assert.Equal(t, "/runs/r%2F1/output", r.Path)
	assert.Equal(t, url.Values{"nodeId": {"node 7&x=1"}}, r.Query)
	text, err := out.Text()
	require.NoError(t, err)
	assert.Equal(t, "a,b\n1,2\n", text)
}

func TestRunOutputErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		sentinel error
		other    error
	}{
		{name: "409 not ready", status: http.StatusConflict, sentinel: ingestly.ErrOutputNotReady, other: ingestly.ErrOutputTooLarge},
		{name: "413 too large", status: http.StatusRequestEntityTooLarge, sentinel: ingestly.ErrOutputTooLarge, other: ingestly.ErrOutputNotReady},
		{name: "404 unknown node", status: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, answers(problem(tt.status, "https://api.ingestly.ai/problems/x", "detail of "+tt.name)))
			out, err := m.client.RunOutput(context.Background(), "r1", "")
			require.Error(t, err)
			assert.Nil(t, out)
			if tt.sentinel != nil {
				assert.ErrorIs(t, err, tt.sentinel)
				assert.NotErrorIs(t, err, tt.other)
				assert.Contains(t, err.Error(), tt.sentinel.Error())
			} else {
				assert.NotErrorIs(t, err, ingestly.ErrOutputNotReady)
				assert.NotErrorIs(t, err, ingestly.ErrOutputTooLarge)
			}
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, "detail of "+tt.name, apiErr.Message)
			assert.Contains(t, err.Error(), "detail of "+tt.name)
		})
	}
}

func TestRunOutputNetworkErrorIsPassedThrough(t *testing.T) {
	m := newMock(t, answers(func(*http.Request) (*http.Response, error) { return nil, errors.New("connection reset by peer") }))
	_, err := m.client.RunOutput(context.Background(), "r1", "")
	require.Error(t, err)
	assert.NotErrorIs(t, err, ingestly.ErrOutputNotReady)
	assert.Contains(t, err.Error(), "connection reset by peer")
}

func TestRunOutputHelpers(t *testing.T) {
	type po struct {
		PONumber string  `json:"poNumber"`
		Total    float64 `json:"total"`
	}
	tests := []struct {
		name      string
		out       ingestly.RunOutput
		wantBytes string
		wantText  string // "" means Text fails
		wantPO    *po    // nil means Decode into po fails
	}{
		{
			name:      "JSON",
			out:       ingestly.RunOutput{ContentType: "application/json", Filename: "po.json", Output: []byte(`{"poNumber":"PO-1182","total":1250.0}`)},
			wantBytes: `{"poNumber":"PO-1182","total":1250.0}`,
			wantText:  `{"poNumber":"PO-1182","total":1250.0}`,
			wantPO:    &po{PONumber: "PO-1182", Total: 1250},
		},
		{
			name:      "JSON that is a lone string stays JSON text",
			out:       ingestly.RunOutput{ContentType: "application/json; charset=utf-8", Filename: "id.json", Output: []byte(`"PO-1182"`)},
			wantBytes: `"PO-1182"`,
			wantText:  `"PO-1182"`,
		},
		{
			name:      "text (CSV)",
			out:       ingestly.RunOutput{ContentType: "text/csv", Filename: "po.csv", Output: []byte(`"poNumber,total\nPO-1182,1250\n"`)},
			wantBytes: "poNumber,total\nPO-1182,1250\n",
			wantText:  "poNumber,total\nPO-1182,1250\n",
		},
		{
			name:      "binary (base64)",
			out:       ingestly.RunOutput{ContentType: "application/pdf", Filename: "po.pdf", IsBase64: true, Output: []byte(`"JVBERi0xLjQK"`)},
			wantBytes: "%PDF-1.4\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.out.Bytes()
			require.NoError(t, err)
			assert.Equal(t, tt.wantBytes, string(b))

			text, err := tt.out.Text()
			if tt.wantText == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "is binary")
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.wantText, text)
			}

			var got po
			err = tt.out.Decode(&got)
			if tt.wantPO == nil {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.out.Filename)
			} else {
				require.NoError(t, err)
				assert.Equal(t, *tt.wantPO, got)
			}
		})
	}
}

func TestRunOutputHelpersRefuseBadContent(t *testing.T) {
	tests := []struct {
		name    string
		out     ingestly.RunOutput
		wantErr string
	}{
		{name: "no output", out: ingestly.RunOutput{Filename: "x"}, wantErr: `output "x" has no content`},
		{name: "null output", out: ingestly.RunOutput{Filename: "x", Output: []byte("null")}, wantErr: "has no content"},
		{name: "base64 flag on an object", out: ingestly.RunOutput{Filename: "x", IsBase64: true, Output: []byte(`{}`)}, wantErr: "marked base64 but is not a JSON string"},
		{name: "bad base64", out: ingestly.RunOutput{Filename: "x", IsBase64: true, Output: []byte(`"%%%"`)}, wantErr: "decoding the base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.out.Bytes()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}
