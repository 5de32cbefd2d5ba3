// Command ingestly-run submits a document to an Ingestly workflow, waits
// for its run (through human review), and prints the output.
//
// By default it runs against an in-process fake Ingestly server, scripted
// so that the run takes about two seconds: no network, no key. With
// INGESTLY_API_KEY set it uses the real API instead and needs
// INGESTLY_WORKFLOW_ID and a file to submit:
//
//	go run ./examples/ingestly-run
//	INGESTLY_API_KEY=ing_... INGESTLY_WORKFLOW_ID=... go run ./examples/ingestly-run po-1182.pdf
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ingestly-run:", err)
		stop()
		os.Exit(1)
	}
}

// setup is what the run needs: a client, a workflow, a document and the
// wait's options.
type setup struct {
	client   *ingestly.Client
	workflow string
	request  ingestly.TriggerRequest
	opts     []poll.Option
	cleanup  func()
}

func run(ctx context.Context) error {
	s, err := configure()
	if err != nil {
		return err
	}
	defer s.cleanup()
	c := s.client

	trig, err := c.Trigger(ctx, s.workflow, s.request)
	if err != nil {
		return err
	}
	fmt.Printf("triggered %s: document %s, run %q, status %s (idempotency key %s)\n",
		s.request.Filename, trig.DocumentID, trig.RunID, trig.Status, trig.IdempotencyKey)

	notify := poll.WithNotify(func(a poll.Attempt) {
		report(a)
		if a.Changed && a.Status.Raw == ingestly.RunReview {
			printReviewTasks(ctx, c, trig.RunID)
		}
	})
	result, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID, append(s.opts, notify)...)
	switch {
	case errors.Is(err, ingestly.ErrRunNotCreated):
		return fmt.Errorf("the run never started: %w", err)
	case err != nil:
		return err
	}

	out, err := c.RunOutput(ctx, result.ID, "")
	switch {
	case errors.Is(err, ingestly.ErrOutputTooLarge):
		fmt.Println("the output is over 10 MB: download it from the run in the Ingestly dashboard")
		return nil
	case errors.Is(err, ingestly.ErrOutputNotReady):
		fmt.Println("the run completed without capturing an output")
		return nil
	case err != nil:
		return err
	}
	fmt.Printf("output %s (%s):\n", out.Filename, out.ContentType)
	if out.IsBase64 {
		data, err := out.Bytes()
		if err != nil {
			return err
		}
		fmt.Printf("  %d bytes of binary content\n", len(data))
		return nil
	}
	text, err := out.Text()
	if err != nil {
		return err
	}
	fmt.Println(" ", text)
	return nil
}

// report prints one attempt: state changes stand out.
func report(a poll.Attempt) {
	mark := " "
	if a.Changed {
		mark = "*"
	}
	line := fmt.Sprintf("%s attempt %2d  %7v  %-22s", mark, a.N, a.Elapsed.Round(time.Millisecond), a.Status)
	if a.Err != nil {
		line += "  error: " + a.Err.Error()
	}
	if a.Next > 0 {
		line += fmt.Sprintf("  next poll in %v", a.Next.Round(time.Millisecond))
	}
	fmt.Println(line)
}

func printReviewTasks(ctx context.Context, c *ingestly.Client, runID string) {
	if runID == "" {
		return // a held document's run id is not known here
	}
	n := 0
	for task, err := range c.AllReviewTasks(ctx, ingestly.ReviewTaskQuery{RunID: runID, Status: ingestly.ReviewTaskPending}) {
		if err != nil {
			fmt.Println("    (could not list review tasks:", err, ")")
			return
		}
		n++
		fmt.Printf("    review task %s is %s\n", task.ID, task.Status)
	}
	if n == 0 {
		fmt.Println("    no pending review task listed")
	}
}

// configure picks the real API when INGESTLY_API_KEY is set, else the fake.
func configure() (*setup, error) {
	key := os.Getenv("INGESTLY_API_KEY")
	if key == "" {
		return fake(), nil
	}
	workflow := os.Getenv("INGESTLY_WORKFLOW_ID")
	if workflow == "" || len(os.Args) < 2 {
		return nil, errors.New("with INGESTLY_API_KEY set, give INGESTLY_WORKFLOW_ID and the file to submit as the first argument")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		return nil, err
	}
	c, err := ingestly.New(key, ingestly.WithUserAgent("ingestly-run-example"))
	if err != nil {
		return nil, err
	}
	fmt.Println("using the real Ingestly API; waiting with RunBackoff, up to 24 hours")
	return &setup{
		client:   c,
		workflow: workflow,
		request:  ingestly.TriggerRequest{Filename: filepath.Base(os.Args[1]), File: data, Reference: filepath.Base(os.Args[1])},
		cleanup:  func() {},
	}, nil
}

// fake starts an in-process Ingestly whose run takes about two seconds:
// not created for a moment, queued, running, in review, then completed.
func fake() *setup {
	srv := ingestlytest.NewServer()
	srv.SetWorkflow("invoice-parser", ingestlytest.Script{
		NotFoundFor: 150 * time.Millisecond,
		Stages: []ingestlytest.Stage{
			{Status: ingestly.RunQueued, For: 200 * time.Millisecond},
			{Status: ingestly.RunRunning, For: 400 * time.Millisecond},
			{Status: ingestly.RunReview, For: 900 * time.Millisecond, ReviewTasks: 2},
			{Status: ingestly.RunRunning, For: 300 * time.Millisecond},
			{Status: ingestly.RunCompleted},
		},
		Outputs: []ingestlytest.Output{{
			JSON:     map[string]any{"poNumber": "PO-1182", "total": 1250.0, "currency": "EUR"},
			Filename: "invoice-parser-po-1182.json",
		}},
	})
	fmt.Println("using an in-process fake Ingestly (set INGESTLY_API_KEY for the real API)")
	return &setup{
		client:   srv.Client(),
		workflow: "invoice-parser",
		request:  ingestly.TriggerRequest{Filename: "po-1182.pdf", File: []byte("%PDF-1.4\n% a stand-in purchase order\n"), Reference: "PO-1182"},
		opts: []poll.Option{
			poll.WithBackoff(poll.Exponential(100*time.Millisecond, 400*time.Millisecond)),
			poll.WithTimeout(30 * time.Second),
		},
		cleanup: srv.Close,
	}
}
