package main

import (
	"time"

	"github.com/jobpoll/poll/durable"
	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// fakes are the in-process fake APIs the demo waits on. They are built
// the same way at every start, so their ids are the same and a second
// start of the program on the same file resubmits the same targets (which
// gives back the same waits). Their clocks start with the process.
type fakes struct {
	documind *documindtest.Server
	narada   *naradatest.Server
	ingestly *ingestlytest.Server
	targets  []durable.Target
}

// reviewedDocument is the Documind document the demo waits for.
const reviewedDocument = "5b0c3f1e-2a4d-4e8f-9b6a-1c2d3e4f5a6b"

func startFakes() *fakes {
	f := &fakes{documind: documindtest.NewServer(), narada: naradatest.NewServer(), ingestly: ingestlytest.NewServer()}
	for _, d := range []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second, 8 * time.Second} {
		trig := f.ingestly.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
			{Status: ingestly.RunQueued, For: 500 * time.Millisecond},
			{Status: ingestly.RunRunning, For: d / 2},
			{Status: ingestly.RunReview, For: d / 2},
			{Status: ingestly.RunCompleted},
		}})
		f.targets = append(f.targets, durable.IngestlyRun(trig.DocumentID, trig.RunID))
	}
	failing := f.ingestly.AddRun(ingestlytest.Script{
		Stages: []ingestlytest.Stage{{Status: ingestly.RunRunning, For: 3 * time.Second}, {Status: ingestly.RunFailed}},
		Error:  &ingestly.RunError{Code: "ocr_failed", Message: "page 2 is unreadable"},
	})
	f.targets = append(f.targets, durable.IngestlyRun(failing.DocumentID, failing.RunID))

	task := f.narada.AddTask(naradatest.Task{RequestID: "req_demo_1", Steps: []naradatest.Step{
		{Status: narada.StatusSuccess, Text: "Booked: table for 4 at 19:30", After: 5 * time.Second},
	}})
	f.targets = append(f.targets, durable.NaradaTask(task))

	f.documind.AddExtraction(reviewedDocument, documindtest.Extraction{
		Status:      "processing",
		Steps:       []documindtest.Step{{Status: "completed", At: documindtest.After{Time: time.Second}}},
		NeedsReview: true,
		Review:      &documindtest.Review{At: documindtest.After{Time: 7 * time.Second}},
	})
	f.targets = append(f.targets, durable.DocumindReview(reviewedDocument))
	return f
}

// kinds are the built-in kinds, polling the fakes. A real program passes
// its own provider clients, with its API keys, here.
func (f *fakes) kinds() []durable.Kind {
	var kinds []durable.Kind
	kinds = append(kinds, durable.DocumindKinds(f.documind.Client())...)
	kinds = append(kinds, durable.NaradaKinds(f.narada.Client())...)
	kinds = append(kinds, durable.IngestlyKinds(f.ingestly.Client())...)
	return kinds
}

func (f *fakes) close() {
	f.documind.Close()
	f.narada.Close()
	f.ingestly.Close()
}
