package ingestlytest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// wire is one raw answer of the fake.
type wire struct {
	status int
	header http.Header
	body   []byte
}

func (w wire) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(w.body, &v), "body %s", w.body)
	return v
}

// call sends a raw request with the fake's key, so the tests see the wire
// format rather than the client's reading of it.
func call(t *testing.T, srv *ingestlytest.Server, method, path string, body io.Reader, header http.Header) wire {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, body)
	require.NoError(t, err)
	req.Header.Set("X-Api-Key", ingestlytest.APIKey)
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := srv.Server.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return wire{status: resp.StatusCode, header: resp.Header, body: data}
}

func get(t *testing.T, srv *ingestlytest.Server, path string) wire {
	t.Helper()
	return call(t, srv, http.MethodGet, path, nil, nil)
}

// requireProblem checks an RFC 7807 answer.
func requireProblem(t *testing.T, w wire, status int, detail string) {
	t.Helper()
	require.Equal(t, status, w.status, "body %s", w.body)
	assert.Equal(t, "application/problem+json", w.header.Get("Content-Type"))
	p := w.json(t)
	assert.Equal(t, ingestlytest.ProblemType(status), p["type"])
	assert.Equal(t, float64(status), p["status"])
	assert.NotEmpty(t, p["title"])
	assert.Contains(t, p["detail"], detail)
}

// multipartBody is a trigger form.
func multipartBody(t *testing.T, filename string, content []byte, reference string) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if filename != "" {
		part, err := w.CreateFormFile("file", filename)
		require.NoError(t, err)
		_, err = part.Write(content)
		require.NoError(t, err)
	}
	if reference != "" {
		require.NoError(t, w.WriteField("reference", reference))
	}
	require.NoError(t, w.Close())
	return &buf, w.FormDataContentType()
}

func trigger(t *testing.T, srv *ingestlytest.Server, workflow, key, reference string) wire {
	t.Helper()
	body, ct := multipartBody(t, "po-1182.pdf", []byte("%PDF-1.4"), reference)
	h := http.Header{"Content-Type": {ct}}
	if key != "" {
		h.Set("Idempotency-Key", key)
	}
	return call(t, srv, http.MethodPost, "/workflows/"+workflow+"/trigger", body, h)
}

func TestKeyIsChecked(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	for _, key := range []string{"", "wrong"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/runs/x", nil)
		require.NoError(t, err)
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		resp, err := srv.Server.Client().Do(req)
		require.NoError(t, err)
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		requireProblem(t, wire{status: resp.StatusCode, header: resp.Header, body: data}, http.StatusUnauthorized, "API key")
	}
	assert.Positive(t, srv.Requests(ingestlytest.RouteRun), "rejected requests are counted")
}

func TestUnknownEndpointIsAProblem(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	requireProblem(t, get(t, srv, "/pipelines/p1"), http.StatusNotFound, "no such endpoint")
}

func TestTriggerStoresTheDocument(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("invoices", ingestlytest.Script{})

	w := trigger(t, srv, "invoices", "key-1", "PO-1182")
	require.Equal(t, http.StatusAccepted, w.status, "body %s", w.body)
	assert.Equal(t, "application/json", w.header.Get("Content-Type"))
	ans := w.json(t)
	assert.Equal(t, "queued", ans["status"])
	assert.Equal(t, "PO-1182", ans["reference"])
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, ans["documentId"])
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, ans["runId"])

	ups := srv.Uploads()
	require.Len(t, ups, 1)
	assert.Equal(t, ingestlytest.Upload{
		WorkflowID: "invoices", DocumentID: ans["documentId"].(string), IdempotencyKey: "key-1",
		Filename: "po-1182.pdf", ContentType: "application/octet-stream", Content: []byte("%PDF-1.4"), Reference: "PO-1182",
	}, ups[0])
}

func TestTriggerHonoursTheIdempotencyKey(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("invoices", ingestlytest.Script{})

	first := trigger(t, srv, "invoices", "key-1", "A")
	again := trigger(t, srv, "invoices", "key-1", "B")
	other := trigger(t, srv, "invoices", "key-2", "A")
	assert.Equal(t, first.status, again.status)
	assert.JSONEq(t, string(first.body), string(again.body), "the same key gets the same answer, whatever the body")
	assert.NotEqual(t, first.json(t)["documentId"], other.json(t)["documentId"])
	assert.Len(t, srv.Uploads(), 2)

	// Without a key every trigger stores a document.
	trigger(t, srv, "invoices", "", "A")
	trigger(t, srv, "invoices", "", "A")
	assert.Len(t, srv.Uploads(), 4)
}

func TestTriggerSameKeyConcurrently(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("invoices", ingestlytest.Script{})
	var wg sync.WaitGroup
	ids := make([]any, 8)
	for i := range ids {
		wg.Go(func() { ids[i] = trigger(t, srv, "invoices", "same", "A").json(t)["documentId"] })
	}
	wg.Wait()
	for _, id := range ids {
		assert.Equal(t, ids[0], id)
	}
	assert.Len(t, srv.Uploads(), 1)
}

func TestTriggerErrors(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("invoices", ingestlytest.Script{})

	requireProblem(t, trigger(t, srv, "nope", "", ""), http.StatusNotFound, `workflow "nope" not found`)

	body, ct := multipartBody(t, "", nil, "only-a-reference")
	requireProblem(t, call(t, srv, http.MethodPost, "/workflows/invoices/trigger", body, http.Header{"Content-Type": {ct}}), http.StatusBadRequest, "no file field")

	requireProblem(t, call(t, srv, http.MethodPost, "/workflows/invoices/trigger", strings.NewReader(`{"file":"x"}`), http.Header{"Content-Type": {"application/json"}}), http.StatusBadRequest, "multipart/form-data")
	assert.Empty(t, srv.Uploads())
}

func TestHeldTriggerAnswersANullRunID(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("manual", ingestlytest.Script{Held: true})
	w := trigger(t, srv, "manual", "", "")
	ans := w.json(t)
	assert.Equal(t, "held", ans["status"])
	v, present := ans["runId"]
	assert.True(t, present)
	assert.Nil(t, v, "runId is null when held")
}

// status polls a run once and returns its status, or the answer's code.
func status(t *testing.T, srv *ingestlytest.Server, runID string) string {
	t.Helper()
	w := get(t, srv, "/runs/"+runID)
	if w.status != http.StatusOK {
		return fmt.Sprint(w.status)
	}
	return w.json(t)["status"].(string)
}

func statuses(t *testing.T, srv *ingestlytest.Server, runID string, n int) []string {
	t.Helper()
	var out []string
	for range n {
		out = append(out, status(t, srv, runID))
	}
	return out
}

func TestRunStagesByPolls(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "queued", Polls: 1},
		{Status: "running", Polls: 2},
		{Status: "skipped"},
		{Status: "mystery_word", Polls: 1},
		{Status: "completed"},
	}})
	assert.Equal(t, []string{"queued", "running", "running", "mystery_word", "completed", "completed"}, statuses(t, srv, trig.RunID, 6))
	assert.Equal(t, 6, srv.Requests(ingestlytest.RouteRun))
}

func TestDefaultScript(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{})
	assert.Equal(t, []string{"queued", "running", "completed"}, statuses(t, srv, trig.RunID, 3))
	body := get(t, srv, "/runs/"+trig.RunID).json(t)
	assert.Equal(t, map[string]any{"id": trig.RunID, "documentId": trig.DocumentID, "workflowId": "", "status": "completed"}, body)
}

func TestRunStagesByTime(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "running", For: 100 * time.Millisecond},
		{Status: "completed"},
	}})
	assert.Equal(t, "running", status(t, srv, trig.RunID))
	time.Sleep(110 * time.Millisecond)
	assert.Equal(t, "completed", status(t, srv, trig.RunID))
}

func TestRunStageNeedsBothPollsAndTime(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "review", Polls: 2, For: 30 * time.Millisecond},
		{Status: "completed"},
	}})
	time.Sleep(40 * time.Millisecond)
	assert.Equal(t, []string{"review", "review", "completed"}, statuses(t, srv, trig.RunID, 3), "time alone does not end it")

	trig = srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "review", Polls: 1, For: 100 * time.Millisecond},
		{Status: "completed"},
	}})
	assert.Equal(t, []string{"review", "review"}, statuses(t, srv, trig.RunID, 2), "polls alone do not end it")
	time.Sleep(110 * time.Millisecond)
	assert.Equal(t, "completed", status(t, srv, trig.RunID))
}

func TestFailedAndCancelledRunsCarryAnError(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	tests := []struct {
		script ingestlytest.Script
		want   map[string]any
	}{
		{ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "failed"}}}, map[string]any{"code": "node_failed", "message": "a node of the workflow failed"}},
		{ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "cancelled"}}}, map[string]any{"code": "cancelled_by_user"}},
		{ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "failed"}}, Error: &ingestly.RunError{Code: "ocr_timeout", Message: "OCR took over 120 s"}}, map[string]any{"code": "ocr_timeout", "message": "OCR took over 120 s"}},
	}
	for _, tt := range tests {
		trig := srv.AddRun(tt.script)
		assert.Equal(t, tt.want, get(t, srv, "/runs/"+trig.RunID).json(t)["error"])
	}
	trig := srv.AddRun(ingestlytest.Script{})
	assert.NotContains(t, get(t, srv, "/runs/"+trig.RunID).json(t), "error")
}

func TestUnknownRunIsAProblem(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	requireProblem(t, get(t, srv, "/runs/a%2Fb%3Fc"), http.StatusNotFound, `run "a/b?c" not found`)
	requireProblem(t, get(t, srv, "/documents/..%2Fadmin"), http.StatusNotFound, `document "../admin" not found`)
}

func TestNotFoundWindowByPolls(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{NotFoundPolls: 2})
	runs := func() float64 { return get(t, srv, "/documents/"+trig.DocumentID+"/runs").json(t)["count"].(float64) }
	assert.Equal(t, "processing", get(t, srv, "/documents/"+trig.DocumentID).json(t)["status"])
	assert.Zero(t, runs(), "a run that does not exist yet is not listed")
	assert.Equal(t, []string{"404", "404", "queued", "running"}, statuses(t, srv, trig.RunID, 4))
	assert.Equal(t, float64(1), runs())
}

func TestNotFoundWindowByTime(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{NotFoundFor: 100 * time.Millisecond})
	assert.Equal(t, "404", status(t, srv, trig.RunID))
	time.Sleep(110 * time.Millisecond)
	assert.Equal(t, "queued", status(t, srv, trig.RunID))
}

func TestNeverCreatedRun(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	for _, tt := range []struct{ docStatus, want string }{{"", "failed"}, {"cancelled", "cancelled"}} {
		trig := srv.AddRun(ingestlytest.Script{NeverCreated: true, DocumentStatus: tt.docStatus})
		require.NotEmpty(t, trig.RunID)
		assert.Equal(t, []string{"404", "404", "404"}, statuses(t, srv, trig.RunID, 3))
		assert.Equal(t, tt.want, get(t, srv, "/documents/"+trig.DocumentID).json(t)["status"])
	}
}

func TestHeldDocumentReleasedAfterReads(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Held: true, HeldPolls: 2})
	assert.True(t, trig.Held())
	assert.Empty(t, trig.RunID)
	doc := func() map[string]any { return get(t, srv, "/documents/"+trig.DocumentID).json(t) }
	assert.Equal(t, "held", doc()["status"])
	assert.Equal(t, float64(0), get(t, srv, "/documents/"+trig.DocumentID+"/runs").json(t)["count"])
	assert.Equal(t, "held", doc()["status"])
	assert.Equal(t, "processing", doc()["status"])
	list := get(t, srv, "/documents/"+trig.DocumentID+"/runs").json(t)
	assert.Equal(t, float64(1), list["count"])
	assert.Equal(t, float64(1), list["pages"])
	data := list["data"].([]any)
	require.Len(t, data, 1)
	assert.Equal(t, "queued", data[0].(map[string]any)["status"])
}

func TestHeldDocumentStaysHeldUntilReleased(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Held: true})
	for range 3 {
		assert.Equal(t, "held", get(t, srv, "/documents/"+trig.DocumentID).json(t)["status"])
	}
	runID, ok := srv.Release(trig.DocumentID)
	require.True(t, ok)
	assert.Equal(t, "queued", status(t, srv, runID))
	_, ok = srv.Release(trig.DocumentID)
	assert.False(t, ok, "no longer held")
	_, ok = srv.Release("unknown")
	assert.False(t, ok)
}

func TestDocumentStatusFollowsTheRun(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "running", Polls: 1}, {Status: "review", Polls: 1}, {Status: "completed"},
	}})
	var docs []string
	for range 3 {
		status(t, srv, trig.RunID)
		docs = append(docs, get(t, srv, "/documents/"+trig.DocumentID).json(t)["status"].(string))
	}
	assert.Equal(t, []string{"processing", "review", "completed"}, docs)
}

func TestReviewTasksFollowTheReviewStage(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "running", Polls: 1},
		{Status: "review", Polls: 1, ReviewTasks: 2, Decision: "rejected"},
		{Status: "completed"},
	}})
	tasks := func(query string) map[string]any { return get(t, srv, "/review-tasks?"+query).json(t) }
	status(t, srv, trig.RunID)
	assert.Equal(t, float64(0), tasks("runId=" + trig.RunID)["count"])

	status(t, srv, trig.RunID) // review
	page := tasks("runId=" + trig.RunID + "&status=pending")
	assert.Equal(t, float64(2), page["count"])
	for _, task := range page["data"].([]any) {
		task := task.(map[string]any)
		assert.Equal(t, trig.RunID, task["runId"])
		assert.Equal(t, "pending", task["status"])
		assert.NotContains(t, task, "decision")
	}

	status(t, srv, trig.RunID) // completed
	assert.Equal(t, float64(0), tasks("runId=" + trig.RunID + "&status=pending")["count"])
	for _, task := range tasks("runId=" + trig.RunID)["data"].([]any) {
		task := task.(map[string]any)
		assert.Equal(t, ingestlytest.ReviewTaskCompleted, task["status"])
		assert.Equal(t, "rejected", task["decision"])
	}
}

func TestReviewTasksPaging(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	for i := range 45 {
		srv.AddReviewTasks("r1", ingestly.ReviewTask{ID: fmt.Sprintf("t%02d", i)})
	}
	srv.AddReviewTasks("r2", ingestly.ReviewTask{Status: "completed", Decision: "approved"})

	first := get(t, srv, "/review-tasks?runId=r1").json(t)
	assert.Equal(t, float64(45), first["count"])
	assert.Equal(t, float64(3), first["pages"], "default page size 20")
	assert.Len(t, first["data"], 20)

	last := get(t, srv, "/review-tasks?runId=r1&page=3&pageSize=20").json(t)
	data := last["data"].([]any)
	require.Len(t, data, 5)
	assert.Equal(t, "t40", data[0].(map[string]any)["id"])

	past := get(t, srv, "/review-tasks?runId=r1&page=9").json(t)
	assert.Equal(t, []any{}, past["data"])

	all := get(t, srv, "/review-tasks?pageSize=100").json(t)
	assert.Equal(t, float64(46), all["count"])
	assert.Equal(t, float64(1), all["pages"])

	done := get(t, srv, "/review-tasks?status=completed").json(t)
	assert.Equal(t, float64(1), done["count"])

	none := get(t, srv, "/review-tasks?runId=zzz").json(t)
	assert.Equal(t, float64(0), none["count"])
	assert.Equal(t, float64(0), none["pages"])
}

func TestReviewTasksValidatesPaging(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	requireProblem(t, get(t, srv, "/review-tasks?pageSize=101"), http.StatusBadRequest, "pageSize")
	requireProblem(t, get(t, srv, "/review-tasks?pageSize=0"), http.StatusBadRequest, "pageSize")
	requireProblem(t, get(t, srv, "/review-tasks?page=0"), http.StatusBadRequest, "page")
	requireProblem(t, get(t, srv, "/review-tasks?page=two"), http.StatusBadRequest, "page")
}

func TestOutputs(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{
		Stages: []ingestlytest.Stage{{Status: "running", Polls: 1}, {Status: "completed"}},
		Outputs: []ingestlytest.Output{
			{NodeID: "json", JSON: map[string]any{"poNumber": "PO-1182", "total": 1250.0}, Filename: "po.json"},
			{NodeID: "csv", Text: "a,b\n1,2\n", ContentType: "text/csv"},
			{NodeID: "pdf", Binary: []byte("%PDF-1.4"), ContentType: "application/pdf", Filename: "po.pdf"},
			{NodeID: "huge", TooLarge: true},
			{NodeID: "real-huge", Binary: make([]byte, ingestlytest.MaxInlineOutput+1)},
			{NodeID: "last", Text: "most recent"},
		},
	})
	out := func(query string) wire { return get(t, srv, "/runs/"+trig.RunID+"/output"+query) }

	requireProblem(t, out(""), http.StatusConflict, "not completed")
	status(t, srv, trig.RunID)
	requireProblem(t, out(""), http.StatusConflict, "is running, not completed")
	status(t, srv, trig.RunID)

	assert.JSONEq(t, `{"contentType":"application/json","filename":"po.json","isBase64":false,"output":{"poNumber":"PO-1182","total":1250}}`, string(out("?nodeId=json").body))
	assert.JSONEq(t, `{"contentType":"text/csv","filename":"output.txt","isBase64":false,"output":"a,b\n1,2\n"}`, string(out("?nodeId=csv").body))
	assert.JSONEq(t, `{"contentType":"application/pdf","filename":"po.pdf","isBase64":true,"output":"JVBERi0xLjQ="}`, string(out("?nodeId=pdf").body))
	assert.JSONEq(t, `{"contentType":"text/plain","filename":"output.txt","isBase64":false,"output":"most recent"}`, string(out("").body), "without nodeId the last node answers")
	requireProblem(t, out("?nodeId=huge"), http.StatusRequestEntityTooLarge, "10 MB")
	requireProblem(t, out("?nodeId=real-huge"), http.StatusRequestEntityTooLarge, "10485761 bytes")
	requireProblem(t, out("?nodeId=nope"), http.StatusNotFound, `node "nope" is not a node`)
}

func TestCompletedRunWithoutOutput(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "completed"}}})
	status(t, srv, trig.RunID)
	requireProblem(t, get(t, srv, "/runs/"+trig.RunID+"/output"), http.StatusConflict, "captured no output")
}

func TestOriginalFile(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{})
	before := time.Now()
	body := get(t, srv, "/documents/"+trig.DocumentID+"/original").json(t)
	assert.Contains(t, body["url"], trig.DocumentID)
	expires, err := time.Parse(time.RFC3339, body["expiresOn"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, before.Add(5*time.Minute), expires, 2*time.Second)
	requireProblem(t, get(t, srv, "/documents/nope/original"), http.StatusNotFound, "not found")
}

func TestInjectFaultOnARoute(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{})
	srv.InjectFault(ingestlytest.RouteRun, 1, ingestlytest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "3"})
	w := get(t, srv, "/runs/"+trig.RunID)
	requireProblem(t, w, http.StatusTooManyRequests, "too many requests")
	assert.Equal(t, "3", w.header.Get("Retry-After"))
	assert.Equal(t, "queued", status(t, srv, trig.RunID), "a fault does not count as a poll of the run")
	assert.Equal(t, 2, srv.Requests(ingestlytest.RouteRun))
}

func TestClientHelper(t *testing.T) {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{})
	run, err := srv.Client(ingestly.WithUserAgent("fake-test/1")).Run(t.Context(), trig.RunID)
	require.NoError(t, err)
	assert.Equal(t, "queued", run.Status)
	assert.PanicsWithValue(t, "ingestlytest: Client: ingestly: the run grace period -1ns is negative", func() {
		srv.Client(ingestly.WithRunGracePeriod(-1))
	})
}
