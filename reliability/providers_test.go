package reliability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// A waiter is one wait helper of one provider, on its fake server, with
// its jobs scripted the same way for every fault: the job finishes after
// a few polls with a known result, never finishes, or shows an unknown
// status word before it finishes.
type waiter struct {
	name  string
	route string // where faults go: the route the wait polls
	// newJob starts a fake server and scripts a job; the returned wait
	// runs the helper and reports the final result as text, checked
	// against want.
	newJob func(t *testing.T, kind jobKind) (srv faultable, wait waitFunc)
}

type jobKind int

const (
	finishes jobKind = iota
	neverFinishes
	unknownWordThenFinishes
)

// faultable is what every fake server offers.
type faultable interface {
	InjectFault(route string, n int, f fakeapi.Fault)
	Requests(route string) int
}

// waitFunc runs the wait helper with opts and renders its result: the
// parts a caller needs, so a lost or partial result shows.
type waitFunc func(ctx context.Context, opts ...poll.Option) (result string, got any, err error)

// want is the rendered result of a job that finished.
const want = "result:INV-42"

func waiters() []waiter {
	return []waiter{
		{name: "documind review", route: documindtest.RouteExtractions, newJob: documindReview},
		{name: "documind batch", route: documindtest.RouteBatch, newJob: documindBatch},
		{name: "narada task", route: naradatest.RouteTask, newJob: naradaTask},
		{name: "ingestly run", route: ingestlytest.RouteRun, newJob: ingestlyRun},
	}
}

func documindReview(t *testing.T, kind jobKind) (faultable, waitFunc) {
	srv := documindtest.NewServer()
	t.Cleanup(srv.Close)
	doc := srv.AddDocument(documindtest.Document{})
	x := documindtest.Extraction{NeedsReview: true, Results: map[string]any{"invoice": "INV-4?"}}
	switch kind {
	case finishes:
		x.Review = &documindtest.Review{At: documindtest.After{Polls: 3}, Results: map[string]any{"invoice": "INV-42"}}
	case unknownWordThenFinishes:
		x.Status = "archiving"
		x.Steps = []documindtest.Step{{Status: "completed", At: documindtest.After{Polls: 3}}}
		x.Review = &documindtest.Review{At: documindtest.After{Polls: 4}, Results: map[string]any{"invoice": "INV-42"}}
	}
	srv.AddExtraction(doc, x)
	return srv, func(ctx context.Context, opts ...poll.Option) (string, any, error) {
		got, err := srv.Client().WaitForReview(ctx, doc, opts...)
		if got == nil || !got.IsReviewed {
			return "", got, err
		}
		var r struct{ Invoice string }
		if jerr := json.Unmarshal(got.ReviewedResults, &r); jerr != nil {
			return "", got, fmt.Errorf("reviewed_results: %w", jerr)
		}
		return "result:" + r.Invoice, got, err
	}
}

func documindBatch(t *testing.T, kind jobKind) (faultable, waitFunc) {
	srv := documindtest.NewServer()
	t.Cleanup(srv.Close)
	d := documindtest.Document{Results: map[string]any{"invoice": "INV-42"}, Ready: documindtest.After{Polls: 3}}
	if kind == neverFinishes {
		d.StayPending = true
	}
	ids := []string{srv.AddDocument(d), srv.AddDocument(documindtest.Document{Results: map[string]any{"invoice": "INV-42"}})}
	batchID, err := srv.StartBatch(ids...)
	if err != nil {
		t.Fatal(err)
	}
	if kind == unknownWordThenFinishes {
		if err := srv.OverrideBatchStatus(batchID, "reticulating", 2); err != nil {
			t.Fatal(err)
		}
	}
	return srv, func(ctx context.Context, opts ...poll.Option) (string, any, error) {
		got, err := srv.Client().WaitForBatch(ctx, batchID, append([]poll.Option{poll.WithInitialDelay(0)}, opts...)...)
		if got == nil || got.Status != documind.BatchCompleted || len(got.Items) != 2 {
			return "", got, err
		}
		var r struct{ Invoice string }
		for _, it := range got.Items {
			if jerr := json.Unmarshal(it.Results, &r); jerr != nil || r.Invoice != "INV-42" {
				return "", got, fmt.Errorf("item %s: results %s", it.DocumentID, it.Results)
			}
		}
		return "result:" + r.Invoice, got, err
	}
}

func naradaTask(t *testing.T, kind jobKind) (faultable, waitFunc) {
	srv := naradatest.NewServer()
	t.Cleanup(srv.Close)
	var steps []naradatest.Step
	switch kind {
	case finishes:
		steps = []naradatest.Step{{Status: narada.StatusSuccess, Text: "INV-42", AfterPolls: 2}}
	case neverFinishes:
		steps = []naradatest.Step{{Status: narada.StatusPending}}
	case unknownWordThenFinishes:
		steps = []naradatest.Step{{Status: "thinking"}, {Status: narada.StatusSuccess, Text: "INV-42", AfterPolls: 3}}
	}
	id := srv.AddTask(naradatest.Task{Steps: steps})
	return srv, func(ctx context.Context, opts ...poll.Option) (string, any, error) {
		got, err := srv.Client().WaitForTask(ctx, id, append([]poll.Option{poll.WithInitialDelay(0)}, opts...)...)
		if got == nil || got.Status != narada.StatusSuccess || got.Response == nil {
			return "", got, err
		}
		return "result:" + got.Response.Text, got, err
	}
}

func ingestlyRun(t *testing.T, kind jobKind) (faultable, waitFunc) {
	srv := ingestlytest.NewServer()
	t.Cleanup(srv.Close)
	sc := ingestlytest.Script{Outputs: []ingestlytest.Output{{JSON: map[string]any{"invoice": "INV-42"}}}}
	switch kind {
	case finishes:
		sc.Stages = []ingestlytest.Stage{{Status: ingestly.RunRunning, Polls: 2}, {Status: ingestly.RunCompleted}}
	case neverFinishes:
		sc.Stages = []ingestlytest.Stage{{Status: ingestly.RunReview}}
	case unknownWordThenFinishes:
		sc.Stages = []ingestlytest.Stage{{Status: "paused_for_audit", Polls: 3}, {Status: ingestly.RunCompleted}}
	}
	trig := srv.AddRun(sc)
	return srv, func(ctx context.Context, opts ...poll.Option) (string, any, error) {
		c := srv.Client()
		got, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID, opts...)
		if got == nil || got.Status != ingestly.RunCompleted {
			return "", got, err
		}
		out, oerr := c.RunOutput(ctx, got.ID, "")
		if oerr != nil {
			return "", got, oerr
		}
		var r struct{ Invoice string }
		if derr := out.Decode(&r); derr != nil {
			return "", got, derr
		}
		return "result:" + r.Invoice, got, err
	}
}

// fast keeps real-time waits on loopback short.
func fast(timeout time.Duration) []poll.Option {
	return []poll.Option{poll.WithBackoff(poll.Constant(2 * time.Millisecond)), poll.WithTimeout(timeout)}
}
