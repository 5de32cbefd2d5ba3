package ingestly_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

const triggerAnswer = `{"documentId":"0199a6c2-3f1e-7b2a-9c4d-5e6f7a8b9c0d","runId":"0199a6c2-4b7d-7e01-8f3a-2c4d6e8f0a1b","status":"queued","reference":"PO-1182"}`

var pdf = []byte("%PDF-1.4\n1 0 obj\n")

// form is a parsed trigger body.
type form struct {
	fileName, fileType string
	file               []byte
	reference          string
	hasReference       bool
}

func parseForm(t *testing.T, r captured) form {
	t.Helper()
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/form-data", mt)
	var f form
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return f
		}
		require.NoError(t, err)
		data, err := io.ReadAll(part)
		require.NoError(t, err)
		switch part.FormName() {
		case "file":
			f.fileName, f.fileType, f.file = part.FileName(), part.Header.Get("Content-Type"), data
		case "reference":
			f.reference, f.hasReference = string(data), true
		default:
			t.Fatalf("unexpected form field %q", part.FormName())
		}
	}
}

func TestTriggerSendsTheDocumentedRequest(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusAccepted, triggerAnswer)))
	resp, err := m.client.Trigger(context.Background(), "wf/../1", ingestly.TriggerRequest{Filename: "po-1182.pdf", File: pdf, Reference: "PO-1182"})
	require.NoError(t, err)

	r := m.one(t)
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/workflows/wf%2F..%2F1/trigger", r.Path)
	assert.Empty(t, r.Query)
	checkCommon(t, r)
	f := parseForm(t, r)
	assert.Equal(t, form{fileName: "po-1182.pdf", fileType: "application/pdf", file: pdf, reference: "PO-1182", hasReference: true}, f)

	key := r.Header.Get("Idempotency-Key")
	parsed, err := uuid.Parse(key)
	require.NoError(t, err, "the generated key is a UUID")
	assert.Equal(t, uuid.Version(4), parsed.Version())
	assert.Equal(t, &ingestly.TriggerResponse{
		DocumentID: "0199a6c2-3f1e-7b2a-9c4d-5e6f7a8b9c0d", RunID: "0199a6c2-4b7d-7e01-8f3a-2c4d6e8f0a1b",
		Status: "queued", Reference: "PO-1182", IdempotencyKey: key,
	}, resp)
	assert.False(t, resp.Held())
}

func TestTriggerUsesTheCallersKeyAndContentType(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, triggerAnswer)))
	resp, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{
		Filename: "scan", File: []byte{0xff, 0xd8}, ContentType: "image/jpeg", IdempotencyKey: "order-1182-v1",
	})
	require.NoError(t, err)
	r := m.one(t)
	assert.Equal(t, "order-1182-v1", r.Header.Get("Idempotency-Key"))
	assert.Equal(t, "order-1182-v1", resp.IdempotencyKey)
	f := parseForm(t, r)
	assert.Equal(t, form{fileName: "scan", fileType: "image/jpeg", file: []byte{0xff, 0xd8}}, f, "no reference field when none is given")
}

func TestTriggerGuessesTheTypeOrFallsBack(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, triggerAnswer)))
	_, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "blob.unknownext", File: []byte("x")})
	require.NoError(t, err)
	assert.Equal(t, "application/octet-stream", parseForm(t, m.one(t)).fileType)
}

func TestTriggerKeysDifferPerCall(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, triggerAnswer)))
	for range 2 {
		_, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
		require.NoError(t, err)
	}
	reqs := m.requests()
	require.Len(t, reqs, 2)
	assert.NotEqual(t, reqs[0].Header.Get("Idempotency-Key"), reqs[1].Header.Get("Idempotency-Key"))
}

func TestTriggerHeld(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusAccepted, `{"documentId":"d1","runId":null,"status":"held","reference":"PO-9"}`)))
	resp, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
	require.NoError(t, err)
	assert.True(t, resp.Held())
	assert.Empty(t, resp.RunID)
	assert.Equal(t, "d1", resp.DocumentID)
}

func TestTriggerRefusesBadRequestsWithoutSending(t *testing.T) {
	tests := []struct {
		name     string
		workflow string
		req      ingestly.TriggerRequest
		wantErr  string
	}{
		{name: "no workflow", workflow: "", req: ingestly.TriggerRequest{Filename: "a.pdf", File: pdf}, wantErr: `ingestly: Trigger: the workflow id must not be empty or blank (got "")`},
		{name: "no filename", workflow: "wf1", req: ingestly.TriggerRequest{File: pdf}, wantErr: "ingestly: Trigger: the filename must not be empty"},
		{name: "empty file", workflow: "wf1", req: ingestly.TriggerRequest{Filename: "a.pdf"}, wantErr: `ingestly: Trigger: the file "a.pdf" is empty`},
		{name: "key with a newline", workflow: "wf1", req: ingestly.TriggerRequest{Filename: "a.pdf", File: pdf, IdempotencyKey: "k\r\nX-Evil: 1"}, wantErr: "not printable ASCII"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, answers(jsonAnswer(http.StatusOK, triggerAnswer)))
			_, err := m.client.Trigger(context.Background(), tt.workflow, tt.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Empty(t, m.requests())
		})
	}
}

// sent is when each request reached the mock, from the test's start.
type sent struct {
	start time.Time
	at    []time.Duration
}

func (s *sent) record(next httpmock.Responder) httpmock.Responder {
	return func(r *http.Request) (*http.Response, error) {
		s.at = append(s.at, time.Since(s.start))
		return next(r)
	}
}

func TestTriggerRetriesTransientFailuresWithTheSameKeyAndBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sent{start: time.Now()}
		m := newMock(t, answers(
			s.record(problem(http.StatusServiceUnavailable, "https://api.ingestly.ai/problems/unavailable", "busy")),
			s.record(func(*http.Request) (*http.Response, error) { return nil, io.ErrUnexpectedEOF }),
			s.record(jsonAnswer(http.StatusAccepted, triggerAnswer)),
		), ingestly.WithTriggerRetry(3, poll.Constant(2*time.Second)))
		resp, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf, Reference: "R"})
		require.NoError(t, err)
		assert.Equal(t, "queued", resp.Status)

		reqs := m.requests()
		require.Len(t, reqs, 3)
		for _, r := range reqs[1:] {
			assert.Equal(t, reqs[0].Header.Get("Idempotency-Key"), r.Header.Get("Idempotency-Key"))
			assert.Equal(t, reqs[0].Header.Get("Content-Type"), r.Header.Get("Content-Type"), "same boundary")
			assert.Equal(t, reqs[0].Body, r.Body)
		}
		assert.Equal(t, resp.IdempotencyKey, reqs[0].Header.Get("Idempotency-Key"))
		assert.Equal(t, []time.Duration{0, 2 * time.Second, 4 * time.Second}, s.at)
	})
}

func TestTriggerHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sent{start: time.Now()}
		m := newMock(t, answers(
			s.record(problem(http.StatusTooManyRequests, "https://api.ingestly.ai/problems/too-many-requests", "trigger limit").HeaderAdd(http.Header{"Retry-After": {"7"}})),
			s.record(jsonAnswer(http.StatusAccepted, triggerAnswer)),
		))
		_, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{0, 7 * time.Second}, s.at)
	})
}

func TestTriggerDefaultRetryGivesUpAfterThreeAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sent{start: time.Now()}
		m := newMock(t, answers(s.record(problem(http.StatusBadGateway, "https://api.ingestly.ai/problems/bad-gateway", "upstream down"))))
		_, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf, IdempotencyKey: "key-42"})
		require.Error(t, err)
		assert.ErrorIs(t, err, poll.ErrExhausted)
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusBadGateway, apiErr.StatusCode)
		assert.Contains(t, err.Error(), `ingestly: Trigger: workflow "wf1", idempotency key key-42`)
		assert.Contains(t, err.Error(), "3 attempts")
		assert.NotContains(t, err.Error(), testKey)
		require.Len(t, s.at, 3)
		// 0.5 s then 1 s, each ±20%.
		assert.InDelta(t, 0.5, s.at[1].Seconds(), 0.1)
		assert.InDelta(t, 1.5, s.at[2].Seconds(), 0.31)
	})
}

func TestTriggerDoesNotRetryPermanentErrors(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusConflict} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			m := newMock(t, answers(problem(status, "https://api.ingestly.ai/problems/x", "no")))
			_, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.Len(t, m.requests(), 1)
		})
	}
}

func TestTriggerRetryCanBeTurnedOff(t *testing.T) {
	m := newMock(t, answers(problem(http.StatusServiceUnavailable, "", "busy")), ingestly.WithTriggerRetry(1, nil))
	_, err := m.client.Trigger(context.Background(), "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
	require.Error(t, err)
	assert.Len(t, m.requests(), 1)
}

func TestTriggerStopsWhenTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		m := newMock(t, answers(problem(http.StatusServiceUnavailable, "", "busy").HeaderAdd(http.Header{"Retry-After": {"60"}})))
		start := time.Now()
		_, err := m.client.Trigger(ctx, "wf1", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.LessOrEqual(t, time.Since(start), 3*time.Second)
		assert.Len(t, m.requests(), 2, "one last attempt just before the deadline")
	})
}
