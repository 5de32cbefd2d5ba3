// Command documind-batch runs Documind's batch workflow: start a batch
// extraction of several documents, show a live progress line while it
// runs, then print each document's outcome. One document fails, so the
// batch ends partially failed and the other results still arrive.
//
// By default it runs against an in-process fake Documind (documindtest),
// scripted so that five documents finish over about two seconds: no
// network, no key. With DOCUMIND_API_KEY set it uses the real API:
//
//	DOCUMIND_API_KEY=... go run ./examples/documind-batch -documents <uuid>,<uuid>,...
//
// The progress line goes to stderr: rewritten in place on a terminal,
// one line per poll otherwise (a log file, CI).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

func main() {
	log.SetFlags(0)
	documents := flag.String("documents", "", "comma-separated ids of uploaded documents (real API only)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *documents); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, documents string) error {
	c, ids, opts, cleanup, err := setup(documents)
	if err != nil {
		return err
	}
	defer cleanup()

	started, err := c.StartBatch(ctx, documind.BatchRequest{
		DocumentIDs: ids,
		ExtractionRequest: documind.ExtractRequest{
			Prompt: "Extract invoice fields",
			Schema: &documind.Schema{
				NamedEntities: map[string]documind.Entity{"invoice_number": {Type: "string", Description: "Invoice number"}},
				Required:      []string{"invoice_number"},
			},
		},
	})
	if err != nil {
		return fmt.Errorf("start batch: %w", err)
	}
	fmt.Printf("batch %s started: %d documents %s\n", started.BatchID, len(started.Items), started.Status)

	line := newProgressLine(os.Stderr, len(started.Items))
	opts = append(opts, poll.WithNotify(line.update))
	b, err := c.WaitForBatch(ctx, started.BatchID, opts...)
	line.done()

	var jobErr *poll.JobError
	switch {
	case errors.As(err, &jobErr):
		// partially_failed or failed: the batch and its items are here all
		// the same.
		fmt.Printf("batch %s: %s\n", jobErr.Status.State, jobErr.Status.Reason)
	case errors.Is(err, poll.ErrStalled):
		fmt.Printf("batch stuck pending (the API may have restarted): %v\n", err)
	case err != nil:
		return fmt.Errorf("wait for batch: %w", err)
	default:
		fmt.Println("batch completed")
	}
	if b == nil {
		return nil
	}
	for _, it := range b.Items {
		name := it.OriginalFilename
		if name == "" {
			name = it.DocumentID
		}
		switch it.Status {
		case documind.ExtractionCompleted:
			review := ""
			if it.NeedsReview {
				review = "  (needs review)"
			}
			fmt.Printf("  ok      %-22s %s%s\n", name, it.Results, review)
		case documind.ExtractionFailed:
			fmt.Printf("  FAILED  %-22s %s\n", name, it.ErrorMessage)
		default:
			fmt.Printf("  %-7s %-22s\n", it.Status, name)
		}
	}
	return nil
}

// setup returns a client for the real API when DOCUMIND_API_KEY is set,
// else for a fake with five scripted documents, and wait options to suit.
func setup(documents string) (*documind.Client, []string, []poll.Option, func(), error) {
	if key := os.Getenv("DOCUMIND_API_KEY"); key != "" {
		if documents == "" {
			return nil, nil, nil, nil, errors.New("with DOCUMIND_API_KEY set, pass -documents with the comma-separated ids of uploaded documents")
		}
		c, err := documind.New(key, documind.WithUserAgent("documind-batch-example"))
		if err != nil {
			return nil, nil, nil, nil, err
		}
		fmt.Println("using the Documind API at", documind.DefaultBaseURL)
		// The provider's defaults: documind.BatchBackoff, an hour's
		// timeout, a 10-minute stall timeout.
		return c, strings.Split(documents, ","), nil, func() {}, nil
	}

	srv := documindtest.NewServer()
	fmt.Println("using a fake Documind at", srv.URL, "(set DOCUMIND_API_KEY for the real one)")
	at := func(ms int) documindtest.After { return documindtest.After{Time: time.Duration(ms) * time.Millisecond} }
	var ids []string
	for _, d := range []documindtest.Document{
		{Filename: "invoice-1001.pdf", Ready: at(300), Results: map[string]any{"invoice_number": "INV-1001"}},
		{Filename: "invoice-1002.pdf", Ready: at(700), Results: map[string]any{"invoice_number": "INV-1002"}},
		{Filename: "invoice-1003.pdf", Ready: at(1100), Results: map[string]any{"invoice_number": "INV-1003"}, NeedsReview: true},
		{Filename: "invoice-1004.pdf", Ready: at(1500), Results: map[string]any{"invoice_number": "INV-1004"}},
		{Filename: "scan-blurry.pdf", Ready: at(2000), FailWith: "Extraction failed. Please contact support."},
	} {
		ids = append(ids, srv.AddDocument(d))
	}
	opts := []poll.Option{
		poll.WithInitialDelay(100 * time.Millisecond),
		poll.WithBackoff(poll.Exponential(100*time.Millisecond, 400*time.Millisecond)),
		poll.WithTimeout(30 * time.Second),
	}
	return srv.Client(), ids, opts, srv.Close, nil
}

// progressLine shows the batch's progress on w: one line rewritten in
// place on a terminal, a new line per poll otherwise.
type progressLine struct {
	w        io.Writer
	total    int
	terminal bool
	drawn    bool
}

func newProgressLine(f *os.File, total int) *progressLine {
	fi, err := f.Stat()
	return &progressLine{w: f, total: total, terminal: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p *progressLine) update(a poll.Attempt) {
	if a.Changed {
		p.clear()
		fmt.Fprintf(p.w, "state: %s\n", a.Status)
	}
	done := int(math.Round(a.Status.Progress * float64(p.total)))
	text := fmt.Sprintf("attempt %d: %d/%d done, elapsed %v", a.N, done, p.total, a.Elapsed.Round(10*time.Millisecond))
	if a.Err != nil && a.Next > 0 { // a retried error; the final one is reported after
		text += ", error: " + a.Err.Error()
	}
	if a.Next > 0 {
		text += fmt.Sprintf(", next poll in %v", a.Next.Round(10*time.Millisecond))
	}
	if !p.terminal {
		fmt.Fprintln(p.w, text)
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s", text) // carriage return, erase the line
	p.drawn = true
}

// clear removes the in-place line before other output.
func (p *progressLine) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// done ends the in-place line so later output starts on a fresh one.
func (p *progressLine) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
