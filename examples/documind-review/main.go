// Command documind-review runs Documind's review workflow: extract a
// document, and when the extraction needs a person's review, wait for the
// review and print the reviewed results.
//
// By default it runs against an in-process fake Documind (documindtest),
// where a scripted reviewer saves the extraction about two seconds later:
// no network, no key. With DOCUMIND_API_KEY set it uses the real API:
//
//	DOCUMIND_API_KEY=... go run ./examples/documind-review -document <uploaded document UUID>
//
// and someone has to review the extraction in the Documind dashboard.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

var invoiceSchema = &documind.Schema{
	NamedEntities: map[string]documind.Entity{
		"invoice_number": {Type: "string", Description: "Invoice number"},
		"total":          {Type: "number", Description: "Total amount due"},
	},
	Required: []string{"invoice_number", "total"},
}

func main() {
	log.SetFlags(0)
	documentID := flag.String("document", "", "the id of an uploaded document (real API only)")
	timeout := flag.Duration("timeout", documind.ReviewTimeout, "how long to wait for the review (real API only)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *documentID, *timeout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, documentID string, timeout time.Duration) error {
	c, docID, opts, cleanup, err := setup(documentID, timeout)
	if err != nil {
		return err
	}
	defer cleanup()

	fmt.Printf("extracting document %s\n", docID)
	res, err := c.Extract(ctx, docID, documind.ExtractRequest{Schema: invoiceSchema, Prompt: "Extract the invoice fields"})
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	fmt.Printf("extracted: %s\n", res.Results)
	if !res.NeedsReview {
		fmt.Println("no review needed: done")
		return nil
	}
	fmt.Printf("needs review (%s): waiting for a person at https://app.documind.cloud/review\n", res.NeedsReviewMetadata)

	opts = append(opts, poll.WithNotify(report))
	x, err := c.WaitForReview(ctx, res.DocumentID, opts...)
	switch {
	case errors.Is(err, poll.ErrTimeout):
		return fmt.Errorf("nobody reviewed the extraction in time: %w", err)
	case err != nil:
		return fmt.Errorf("wait for review: %w", err)
	}
	fmt.Printf("reviewed by %s at %s\n", x.ReviewedBy, x.ReviewedAt.Format(time.RFC3339))
	var pretty any
	if err := json.Unmarshal(x.FinalResults(), &pretty); err == nil {
		out, _ := json.MarshalIndent(pretty, "", "  ")
		fmt.Printf("reviewed_results:\n%s\n", out)
	} else {
		fmt.Printf("reviewed_results: %s\n", x.FinalResults())
	}
	return nil
}

// setup returns a client for the real API when DOCUMIND_API_KEY is set,
// else for a fake with one scripted document, and the wait options that
// suit each.
func setup(documentID string, timeout time.Duration) (*documind.Client, string, []poll.Option, func(), error) {
	if key := os.Getenv("DOCUMIND_API_KEY"); key != "" {
		if documentID == "" {
			return nil, "", nil, nil, errors.New("with DOCUMIND_API_KEY set, pass -document <uploaded document UUID>")
		}
		c, err := documind.New(key, documind.WithUserAgent("documind-review-example"))
		if err != nil {
			return nil, "", nil, nil, err
		}
		fmt.Println("using the Documind API at", documind.DefaultBaseURL)
		// The provider's defaults (documind.ReviewBackoff) suit a person.
		return c, documentID, []poll.Option{poll.WithTimeout(timeout)}, func() {}, nil
	}

	srv := documindtest.NewServer()
	fmt.Println("using a fake Documind at", srv.URL, "(set DOCUMIND_API_KEY for the real one)")
	doc := srv.AddDocument(documindtest.Document{
		Filename:    "invoice-2024-017.pdf",
		Results:     map[string]any{"invoice_number": "INV-2024-0l7", "total": 1250.0},
		NeedsReview: true,
		Review: &documindtest.Review{
			At:      documindtest.After{Time: 2 * time.Second},
			Results: map[string]any{"invoice_number": "INV-2024-017", "total": 1250.0},
		},
	})
	// A reviewer two seconds away: poll fast so the demo ends quickly.
	opts := []poll.Option{
		poll.WithBackoff(poll.Exponential(200*time.Millisecond, time.Second)),
		poll.WithTimeout(30 * time.Second),
	}
	return srv.Client(), doc, opts, srv.Close, nil
}

// report prints one line per attempt.
func report(a poll.Attempt) {
	line := fmt.Sprintf("attempt %2d  %6s  %-26s", a.N, a.Elapsed.Round(10*time.Millisecond), a.Status)
	if a.Err != nil {
		line += "  error: " + a.Err.Error()
	}
	if a.Next > 0 {
		line += fmt.Sprintf("  next poll in %v", a.Next.Round(10*time.Millisecond))
	}
	if a.Changed {
		line += "  <- state changed"
	}
	fmt.Println(line)
}
