package durable

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// providers are the three fake servers and a client working all the
// built-in kinds against them.
type providers struct {
	documind *documindtest.Server
	narada   *naradatest.Server
	ingestly *ingestlytest.Server
	client   *Client
}

func startProviders(t *testing.T) *providers {
	t.Helper()
	p := &providers{documind: documindtest.NewServer(), narada: naradatest.NewServer(), ingestly: ingestlytest.NewServer()}
	t.Cleanup(p.documind.Close)
	t.Cleanup(p.narada.Close)
	t.Cleanup(p.ingestly.Close)
	var kinds []Kind
	kinds = append(kinds, DocumindKinds(p.documind.Client())...)
	kinds = append(kinds, NaradaKinds(p.narada.Client())...)
	kinds = append(kinds, IngestlyKinds(p.ingestly.Client())...)
	p.client = startClient(t, tempDB(t), testConfig(t, kinds...))
	return p
}

func (p *providers) await(t *testing.T, target Target, opts Options) (*Result, error) {
	t.Helper()
	ctx := testCtx(t, 60*time.Second)
	id, err := p.client.Submit(ctx, target, opts)
	require.NoError(t, err)
	return p.client.Await(ctx, id)
}

func TestBuiltInKinds(t *testing.T) {
	p := startProviders(t)

	t.Run("documind review", func(t *testing.T) {
		doc := uuid.NewString()
		p.documind.AddExtraction(doc, documindtest.Extraction{
			Status:      "processing",
			Steps:       []documindtest.Step{{Status: "completed", At: documindtest.After{Polls: 1}}},
			NeedsReview: true,
			Review:      &documindtest.Review{At: documindtest.After{Polls: 3}},
		})
		r, err := p.await(t, DocumindReview(doc), fast())
		require.NoError(t, err)
		x, err := Value[*documind.Extraction](r)
		require.NoError(t, err)
		require.True(t, x.IsReviewed)
		require.Equal(t, documind.RawReviewed, r.Status.Raw)
		require.Equal(t, 4, r.Attempts)
	})

	t.Run("documind batch", func(t *testing.T) {
		a := p.documind.AddDocument(documindtest.Document{Ready: documindtest.After{Polls: 1}})
		b := p.documind.AddDocument(documindtest.Document{Ready: documindtest.After{Polls: 2}})
		batch, err := p.documind.StartBatch(a, b)
		require.NoError(t, err)
		r, err := p.await(t, DocumindBatch(batch), fast())
		require.NoError(t, err)
		got, err := Value[*documind.Batch](r)
		require.NoError(t, err)
		require.Equal(t, "completed", got.Status)
		require.Len(t, got.Items, 2)
	})

	t.Run("narada task", func(t *testing.T) {
		req := p.narada.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "done it", AfterPolls: 2}}})
		r, err := p.await(t, NaradaTask(req), fast())
		require.NoError(t, err)
		task, err := Value[*narada.TaskResponse](r)
		require.NoError(t, err)
		require.Equal(t, "done it", task.Response.Text)
		require.Equal(t, 3, p.narada.Polls(req))
	})

	t.Run("narada input required is final", func(t *testing.T) {
		req := p.narada.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusInputRequired, Text: "which account?", AfterPolls: 1}}})
		r, err := p.await(t, NaradaTask(req), fast())
		require.ErrorIs(t, err, poll.ErrInputRequired)
		require.Equal(t, "which account?", r.Status.Reason)
	})

	t.Run("ingestly run", func(t *testing.T) {
		trig := p.ingestly.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
			{Status: "queued", Polls: 1}, {Status: "running", Polls: 1}, {Status: "review", Polls: 2}, {Status: "completed"},
		}})
		r, err := p.await(t, IngestlyRun(trig.DocumentID, trig.RunID), fast())
		require.NoError(t, err)
		run, err := Value[*ingestly.Run](r)
		require.NoError(t, err)
		require.Equal(t, trig.RunID, run.ID)
		require.Equal(t, 5, r.Attempts)
	})

	t.Run("ingestly run failed", func(t *testing.T) {
		trig := p.ingestly.AddRun(ingestlytest.Script{
			Stages: []ingestlytest.Stage{{Status: "running", Polls: 1}, {Status: "failed"}},
			Error:  &ingestly.RunError{Code: "ocr_failed", Message: "page 3 unreadable"},
		})
		r, err := p.await(t, IngestlyRun(trig.DocumentID, trig.RunID), fast())
		require.ErrorIs(t, err, poll.ErrFailed)
		require.Equal(t, "ocr_failed: page 3 unreadable", r.Status.Reason)
		require.Contains(t, err.Error(), "poll: job ended failed: ocr_failed: page 3 unreadable")
	})
}

func TestBuiltInKindsDefaults(t *testing.T) {
	p := startProviders(t)
	ctx := testCtx(t, 10*time.Second)
	for _, tc := range []struct {
		target Target
		want   plan
	}{
		{DocumindReview(uuid.NewString()), plan{Timeout: documind.ReviewTimeout, Strategy: NamedSpec("documind.review")}},
		{DocumindBatch(uuid.NewString()), plan{Timeout: documind.BatchTimeout, StallTimeout: documind.BatchStallTimeout, Strategy: NamedSpec("documind.batch")}},
		{NaradaTask("req_1"), plan{Timeout: narada.DefaultTaskTimeout, Strategy: NamedSpec("narada.task")}},
		{IngestlyRun("doc", ""), plan{Timeout: ingestly.DefaultRunTimeout, Strategy: NamedSpec("ingestly.run")}},
	} {
		id, err := p.client.Submit(ctx, tc.target, Options{InitialDelay: time.Hour})
		require.NoError(t, err)
		row, err := p.client.engine.JobGet(ctx, int64(id))
		require.NoError(t, err)
		var args waitArgs
		require.NoError(t, jsonUnmarshal(row.EncodedArgs, &args))
		tc.want.InitialDelay = time.Hour
		require.Equal(t, tc.want, args.Plan, tc.target.String())
		require.NoError(t, p.client.Cancel(ctx, id))
	}
	_, err := p.client.Submit(ctx, DocumindReview(""), Options{})
	require.ErrorIs(t, err, ErrInvalidTarget)
	_, err = p.client.Submit(ctx, IngestlyRun("doc", "run"), Options{Timeout: NoLimit, Strategy: new(ConstantSpec(time.Second))})
	require.NoError(t, err)
}

func TestPermanentErrorIsNotRetried(t *testing.T) {
	p := startProviders(t)
	p.narada.InjectFault(naradatest.RouteTask, 1, naradatest.Fault{Status: http.StatusUnauthorized})
	req := p.narada.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess, AfterPolls: 5}}})
	r, err := p.await(t, NaradaTask(req), fast())
	require.ErrorIs(t, err, ErrFetch)
	var api *poll.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, http.StatusUnauthorized, api.StatusCode)
	require.Equal(t, EndFetchError, r.End)
	require.Equal(t, "cancelled", r.JobState)
	require.Equal(t, 1, r.Attempts)

	// Nothing polls again: not River, not the wait.
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, 1, p.narada.Requests(naradatest.RouteTask))
	got, err := p.client.Get(context.Background(), r.ID)
	require.NoError(t, err)
	require.Equal(t, 1, got.Attempts)
}

func TestTransientErrorsAreRetriedAfterTheServersDelay(t *testing.T) {
	p := startProviders(t)
	p.narada.InjectFault(naradatest.RouteTask, 2, naradatest.Fault{Status: http.StatusServiceUnavailable, RetryAfter: "1"})
	req := p.narada.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess, AfterPolls: 0}}})
	start := time.Now()
	r, err := p.await(t, NaradaTask(req), fast())
	require.NoError(t, err)
	require.Equal(t, 3, r.Attempts)
	require.GreaterOrEqual(t, time.Since(start), 2*time.Second, "two Retry-After: 1 answers")
}

func TestMaxErrorsEndsTheWait(t *testing.T) {
	p := startProviders(t)
	p.narada.InjectFault(naradatest.RouteTask, 10, naradatest.Fault{Status: http.StatusBadGateway})
	req := p.narada.AddTask(naradatest.Task{Steps: []naradatest.Step{{Status: narada.StatusSuccess}}})
	opts := fast()
	opts.MaxErrors = 3
	r, err := p.await(t, NaradaTask(req), opts)
	require.ErrorIs(t, err, poll.ErrExhausted)
	var api *poll.APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, http.StatusBadGateway, api.StatusCode)
	require.Equal(t, 3, r.Attempts)
	require.Contains(t, err.Error(), "3 consecutive errors (max errors 3)")
}
