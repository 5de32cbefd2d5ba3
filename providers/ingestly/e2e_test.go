package ingestly_test

// End-to-end tests: the client against the fake server over loopback HTTP,
// with millisecond delays.

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// fast keeps real-time waits tiny.
var fast = poll.WithBackoff(poll.Constant(time.Millisecond))

func newFake(t *testing.T) *ingestlytest.Server {
	t.Helper()
	srv := ingestlytest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

func TestE2ETriggerReviewOutput(t *testing.T) {
	srv := newFake(t)
	srv.SetWorkflow("invoice-parser", ingestlytest.Script{
		Stages: []ingestlytest.Stage{
			{Status: "queued", Polls: 1},
			{Status: "running", Polls: 2},
			{Status: "review", Polls: 3},
			{Status: "running", Polls: 1},
			{Status: "completed"},
		},
		Outputs: []ingestlytest.Output{{JSON: map[string]any{"poNumber": "PO-1182", "total": 1250.0}, Filename: "po.json"}},
	})
	c := srv.Client()
	ctx := context.Background()

	trig, err := c.Trigger(ctx, "invoice-parser", ingestly.TriggerRequest{Filename: "po-1182.pdf", File: pdf, Reference: "PO-1182"})
	require.NoError(t, err)
	assert.Equal(t, "queued", trig.Status)
	assert.Equal(t, "PO-1182", trig.Reference)

	var raws []string
	var pendingInReview []int
	run, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID, fast, poll.WithNotify(func(a poll.Attempt) {
		raws = append(raws, a.Status.Raw)
		if a.Status.Raw == ingestly.RunReview {
			n := 0
			for task, err := range c.AllReviewTasks(ctx, ingestly.ReviewTaskQuery{RunID: trig.RunID, Status: ingestly.ReviewTaskPending}) {
				require.NoError(t, err)
				assert.Equal(t, trig.RunID, task.RunID)
				n++
			}
			pendingInReview = append(pendingInReview, n)
		}
	}))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	assert.Equal(t, trig.DocumentID, run.DocumentID)
	assert.Equal(t, []string{"queued", "running", "running", "review", "review", "review", "running", "completed"}, raws)
	assert.Equal(t, []int{1, 1, 1}, pendingInReview)

	page, err := c.ReviewTasks(ctx, ingestly.ReviewTaskQuery{RunID: trig.RunID})
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, ingestly.DecisionApproved, page.Data[0].Decision)

	out, err := c.RunOutput(ctx, run.ID, "")
	require.NoError(t, err)
	var po struct {
		PONumber string  `json:"poNumber"`
		Total    float64 `json:"total"`
	}
	require.NoError(t, out.Decode(&po))
	assert.Equal(t, "PO-1182", po.PONumber)
	assert.Equal(t, 1250.0, po.Total)

	doc, err := c.Document(ctx, trig.DocumentID)
	require.NoError(t, err)
	assert.Equal(t, ingestly.DocumentCompleted, doc.Status)
	assert.Equal(t, "PO-1182", doc.Reference)

	f, err := c.OriginalFile(ctx, trig.DocumentID)
	require.NoError(t, err)
	assert.Contains(t, f.URL, trig.DocumentID)
	assert.WithinDuration(t, time.Now().Add(5*time.Minute), f.ExpiresOn, 5*time.Second)

	ups := srv.Uploads()
	require.Len(t, ups, 1)
	assert.Equal(t, pdf, ups[0].Content)
	assert.Equal(t, "application/pdf", ups[0].ContentType)
	assert.Equal(t, trig.IdempotencyKey, ups[0].IdempotencyKey)
}

func TestE2ETriggerRetryStoresOneDocument(t *testing.T) {
	srv := newFake(t)
	srv.SetWorkflow("wf", ingestlytest.Script{})
	// The first attempt is stored, but its answer is lost; the second gets
	// a 503; the third is answered from the stored key.
	srv.InjectFault(ingestlytest.RouteTrigger, 1, ingestlytest.Fault{Truncate: true})
	srv.InjectFault(ingestlytest.RouteTrigger, 1, ingestlytest.Fault{Status: http.StatusServiceUnavailable})
	c := srv.Client(ingestly.WithTriggerRetry(3, poll.Constant(time.Millisecond)))
	trig, err := c.Trigger(context.Background(), "wf", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
	require.NoError(t, err)
	assert.Equal(t, 3, srv.Requests(ingestlytest.RouteTrigger))
	ups := srv.Uploads()
	require.Len(t, ups, 1, "the same key never stores the document twice")
	assert.Equal(t, ups[0].DocumentID, trig.DocumentID)
}

func TestE2ETriggerSameKeySameAnswer(t *testing.T) {
	srv := newFake(t)
	srv.SetWorkflow("wf", ingestlytest.Script{})
	c := srv.Client()
	req := ingestly.TriggerRequest{Filename: "a.pdf", File: pdf, IdempotencyKey: "po-1182-attempt-1"}
	first, err := c.Trigger(context.Background(), "wf", req)
	require.NoError(t, err)
	again, err := c.Trigger(context.Background(), "wf", req)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.Len(t, srv.Uploads(), 1)
}

func TestE2ETriggerUnknownWorkflow(t *testing.T) {
	srv := newFake(t)
	_, err := srv.Client().Trigger(context.Background(), "nope", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.Equal(t, ingestlytest.ProblemType(http.StatusNotFound), apiErr.Code)
	assert.Equal(t, `workflow "nope" not found`, apiErr.Message)
	assert.Equal(t, 1, srv.Requests(ingestlytest.RouteTrigger))
}

func TestE2EWaitRecoversFrom5xx(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{})
	srv.InjectFault(ingestlytest.RouteRun, 2, ingestlytest.Fault{Status: http.StatusBadGateway})
	srv.InjectFault(ingestlytest.RouteRun, 1, ingestlytest.Fault{Truncate: true})
	var errs int
	run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast,
		poll.WithNotify(func(a poll.Attempt) {
			if a.Err != nil {
				errs++
			}
		}))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	assert.Equal(t, 3, errs)
	// The cut answer was a real poll (queued) whose body was lost: then
	// running, then completed.
	assert.Equal(t, 5, srv.Requests(ingestlytest.RouteRun))
}

func TestE2EWaitHonoursRetryAfter(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{})
	srv.InjectFault(ingestlytest.RouteRun, 1, ingestlytest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "2"})
	// The wake channel cuts the 2 s sleep short once its length is checked,
	// so the test does not wait in real time.
	wake := make(chan struct{}, 1)
	var nexts []time.Duration
	run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast, poll.WithWake(wake),
		poll.WithNotify(func(a poll.Attempt) {
			nexts = append(nexts, a.Next)
			if a.Err != nil {
				var apiErr *poll.APIError
				if assert.ErrorAs(t, a.Err, &apiErr) {
					assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
				}
				wake <- struct{}{}
			}
		}))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	require.NotEmpty(t, nexts)
	assert.Equal(t, 2*time.Second, nexts[0], "Retry-After raises the 1 ms delay to 2 s")
}

func TestE2EWrongKeyIsPermanent(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{})
	const wrong = "ing_prod_wrong_key_0123456789"
	c, err := ingestly.New(wrong, ingestly.WithBaseURL(srv.URL))
	require.NoError(t, err)
	start := time.Now()
	_, err = c.WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast)
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	assert.Equal(t, ingestlytest.ProblemType(http.StatusUnauthorized), apiErr.Code)
	assert.NotContains(t, err.Error(), wrong)
	assert.NotContains(t, err.Error(), ingestlytest.APIKey)
	assert.Less(t, time.Since(start), time.Second)

	_, err = c.Trigger(context.Background(), "wf", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	assert.NotContains(t, err.Error(), wrong)
}

func TestE2EUnknownWordsKeepPolling(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
		{Status: "paused_for_audit", Polls: 2},
		{Status: "awaiting_sub_runs", Polls: 1},
		{Status: "completed"},
	}})
	var states []poll.State
	run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast,
		poll.WithNotify(func(a poll.Attempt) { states = append(states, a.Status.State) }))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	assert.Equal(t, []poll.State{poll.Unknown, poll.Unknown, poll.Unknown, poll.Succeeded}, states)
}

func TestE2EFailedAndCancelledRuns(t *testing.T) {
	tests := []struct {
		script   ingestlytest.Script
		sentinel error
		reason   string
	}{
		{ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "running", Polls: 1}, {Status: "failed"}}, Error: &ingestly.RunError{Code: "ocr_timeout", Message: "OCR took over 120 s"}}, poll.ErrFailed, "ocr_timeout: OCR took over 120 s"},
		{ingestlytest.Script{Stages: []ingestlytest.Stage{{Status: "review", Polls: 1}, {Status: "cancelled"}}}, poll.ErrCanceled, "cancelled_by_user"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			srv := newFake(t)
			trig := srv.AddRun(tt.script)
			run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast)
			require.ErrorIs(t, err, tt.sentinel)
			assert.Contains(t, err.Error(), tt.reason)
			require.NotNil(t, run)
			assert.Equal(t, tt.reason, ingestly.RunStatus(run).Reason)

			_, err = srv.Client().RunOutput(context.Background(), trig.RunID, "")
			assert.ErrorIs(t, err, ingestly.ErrOutputNotReady)
		})
	}
}

func TestE2ERunAppearsAfterA404Window(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{NotFoundPolls: 3})
	var raws []string
	run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast,
		poll.WithNotify(func(a poll.Attempt) { raws = append(raws, a.Status.Raw) }))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	assert.Equal(t, []string{"not_created", "not_created", "not_created", "queued", "running", "completed"}, raws)
	assert.Zero(t, srv.Requests(ingestlytest.RouteDocument))
}

func TestE2ERunNeverCreated(t *testing.T) {
	for _, docStatus := range []string{"failed", "cancelled"} {
		t.Run(docStatus, func(t *testing.T) {
			srv := newFake(t)
			trig := srv.AddRun(ingestlytest.Script{NeverCreated: true, DocumentStatus: docStatus})
			c := srv.Client(ingestly.WithRunGracePeriod(20 * time.Millisecond))
			run, err := c.WaitForRun(context.Background(), trig.DocumentID, trig.RunID, poll.WithBackoff(poll.Constant(5*time.Millisecond)))
			require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
			var missing *ingestly.RunNotCreatedError
			require.ErrorAs(t, err, &missing)
			assert.Equal(t, docStatus, missing.DocumentStatus)
			assert.Equal(t, trig.RunID, missing.RunID)
			assert.GreaterOrEqual(t, missing.Missing, 20*time.Millisecond)
			assert.Contains(t, err.Error(), `has status "`+docStatus+`"`)
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
			assert.Equal(t, ingestly.RunNotCreated, run.Status)
			assert.Equal(t, 1, srv.Requests(ingestlytest.RouteDocument))
		})
	}
}

func TestE2EHeldDocumentReleasedLater(t *testing.T) {
	srv := newFake(t)
	srv.SetWorkflow("manual", ingestlytest.Script{
		Held: true, HeldPolls: 3,
		Stages: []ingestlytest.Stage{{Status: "running", Polls: 1}, {Status: "completed"}},
	})
	c := srv.Client()
	trig, err := c.Trigger(context.Background(), "manual", ingestly.TriggerRequest{Filename: "a.pdf", File: pdf})
	require.NoError(t, err)
	require.True(t, trig.Held())
	require.Empty(t, trig.RunID)

	var raws []string
	run, err := c.WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast,
		poll.WithNotify(func(a poll.Attempt) { raws = append(raws, a.Status.Raw) }))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	assert.NotEmpty(t, run.ID)
	// The run is first seen in the document's list of runs (which is not a
	// poll of the run for the fake), then polled.
	assert.Equal(t, []string{"held", "held", "held", "running", "running", "completed"}, raws)
	assert.Equal(t, 1, srv.Requests(ingestlytest.RouteDocumentRuns))
}

func TestE2EHeldDocumentReleasedByAPerson(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{Held: true})
	var released string
	run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, "", fast,
		poll.WithNotify(func(a poll.Attempt) {
			if a.N == 2 {
				var ok bool
				released, ok = srv.Release(trig.DocumentID)
				require.True(t, ok)
			}
		}))
	require.NoError(t, err)
	assert.Equal(t, released, run.ID)
}

func TestE2EOutputs(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{
		Stages: []ingestlytest.Stage{{Status: "running", Polls: 1}, {Status: "completed"}},
		Outputs: []ingestlytest.Output{
			{NodeID: "csv", Text: "poNumber,total\nPO-1182,1250\n", ContentType: "text/csv", Filename: "po.csv"},
			{NodeID: "pdf", Binary: []byte("%PDF-1.4 binary \x00\xff"), ContentType: "application/pdf", Filename: "po.pdf"},
			{NodeID: "big", TooLarge: true},
			{NodeID: "json", JSON: []any{1, "two"}},
		},
	})
	c := srv.Client()
	ctx := context.Background()

	_, err := c.RunOutput(ctx, trig.RunID, "")
	require.ErrorIs(t, err, ingestly.ErrOutputNotReady, "409 before the run completed")
	var apiErr *poll.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)

	_, err = c.WaitForRun(ctx, trig.DocumentID, trig.RunID, fast)
	require.NoError(t, err)

	csv, err := c.RunOutput(ctx, trig.RunID, "csv")
	require.NoError(t, err)
	text, err := csv.Text()
	require.NoError(t, err)
	assert.Equal(t, "poNumber,total\nPO-1182,1250\n", text)
	assert.Equal(t, "po.csv", csv.Filename)

	bin, err := c.RunOutput(ctx, trig.RunID, "pdf")
	require.NoError(t, err)
	assert.True(t, bin.IsBase64)
	data, err := bin.Bytes()
	require.NoError(t, err)
	assert.Equal(t, []byte("%PDF-1.4 binary \x00\xff"), data)

	last, err := c.RunOutput(ctx, trig.RunID, "")
	require.NoError(t, err)
	var list []any
	require.NoError(t, last.Decode(&list))
	assert.Equal(t, []any{1.0, "two"}, list)

	_, err = c.RunOutput(ctx, trig.RunID, "big")
	require.ErrorIs(t, err, ingestly.ErrOutputTooLarge)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusRequestEntityTooLarge, apiErr.StatusCode)

	_, err = c.RunOutput(ctx, trig.RunID, "not-a-node")
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
	assert.False(t, errors.Is(err, ingestly.ErrOutputNotReady) || errors.Is(err, ingestly.ErrOutputTooLarge))
}

func TestE2EReviewTaskPages(t *testing.T) {
	srv := newFake(t)
	for range 230 {
		srv.AddReviewTasks("r1", ingestly.ReviewTask{})
	}
	srv.AddReviewTasks("r2", ingestly.ReviewTask{})
	c := srv.Client()

	page, err := c.ReviewTasks(context.Background(), ingestly.ReviewTaskQuery{RunID: "r1", Page: 2, PageSize: 50})
	require.NoError(t, err)
	assert.Equal(t, 230, page.Count)
	assert.Equal(t, 5, page.Pages)
	assert.Len(t, page.Data, 50)

	ids := map[string]bool{}
	for task, err := range c.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{RunID: "r1"}) {
		require.NoError(t, err)
		assert.Equal(t, "r1", task.RunID)
		ids[task.ID] = true
	}
	assert.Len(t, ids, 230)
	assert.Equal(t, 1+3, srv.Requests(ingestlytest.RouteReviewTasks))
}

func TestE2ESlowAnswerAndAttemptTimeout(t *testing.T) {
	srv := newFake(t)
	trig := srv.AddRun(ingestlytest.Script{})
	srv.InjectFault(ingestlytest.RouteRun, 1, ingestlytest.Fault{Delay: 5 * time.Second})
	start := time.Now()
	run, err := srv.Client().WaitForRun(context.Background(), trig.DocumentID, trig.RunID, fast, poll.WithAttemptTimeout(20*time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, "completed", run.Status)
	assert.Less(t, time.Since(start), 2*time.Second, "the slow attempt was cut short and retried")
}
