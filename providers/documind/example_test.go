package documind_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

// Extract a document, and when a person has to check the extraction, wait
// for the review and use the reviewed results.
func ExampleClient_WaitForReview() {
	srv := documindtest.NewServer() // a fake Documind; use documind.New(apiKey) for the real one
	defer srv.Close()
	documentID := srv.AddDocument(documindtest.Document{
		NeedsReview: true,
		Results:     map[string]any{"invoice_number": "INV-00l"},
		Review: &documindtest.Review{
			At:      documindtest.After{Polls: 2},
			Results: map[string]any{"invoice_number": "INV-001"},
		},
	})
	c := srv.Client()
	ctx := context.Background()

	res, err := c.Extract(ctx, documentID, documind.ExtractRequest{
		Schema: &documind.Schema{
			NamedEntities: map[string]documind.Entity{"invoice_number": {Type: "string"}},
			Required:      []string{"invoice_number"},
		},
	})
	if err != nil {
		fmt.Println("extract:", err)
		return
	}
	fmt.Printf("extracted %s, needs review: %v\n", res.Results, res.NeedsReview)

	x, err := c.WaitForReview(ctx, documentID,
		poll.WithBackoff(poll.Constant(time.Millisecond)), // tiny for the fake; the default suits a person
		poll.WithNotify(func(a poll.Attempt) { fmt.Printf("attempt %d: %s\n", a.N, a.Status) }),
	)
	if err != nil {
		fmt.Println("wait:", err)
		return
	}
	fmt.Printf("reviewed: %s\n", x.FinalResults())
	// Output:
	// extracted {"invoice_number":"INV-00l"}, needs review: true
	// attempt 1: waiting ("needs_review")
	// attempt 2: waiting ("needs_review")
	// attempt 3: succeeded ("reviewed")
	// reviewed: {"invoice_number":"INV-001"}
}

// Start a batch and wait for it; a partial failure still returns every
// item.
func ExampleClient_WaitForBatch() {
	srv := documindtest.NewServer()
	defer srv.Close()
	ids := []string{
		srv.AddDocument(documindtest.Document{Filename: "a.pdf", Ready: documindtest.After{Polls: 1}, Results: map[string]any{"total": 120}}),
		srv.AddDocument(documindtest.Document{Filename: "b.pdf", Ready: documindtest.After{Polls: 2}, Results: map[string]any{"total": 75.5}}),
		srv.AddDocument(documindtest.Document{Filename: "c.pdf", Ready: documindtest.After{Polls: 3}, FailWith: "unreadable scan"}),
	}
	c := srv.Client()
	ctx := context.Background()

	started, err := c.StartBatch(ctx, documind.BatchRequest{
		DocumentIDs:       ids,
		ExtractionRequest: documind.ExtractRequest{Prompt: "Extract invoice fields"},
	})
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	b, err := c.WaitForBatch(ctx, started.BatchID,
		poll.WithInitialDelay(0), // the default waits documind.BatchFirstPoll
		poll.WithBackoff(poll.Constant(time.Millisecond)),
		poll.WithNotify(func(a poll.Attempt) {
			fmt.Printf("attempt %d: %s %.0f%%\n", a.N, a.Status.Raw, a.Status.Progress*100)
		}),
	)
	if errors.Is(err, poll.ErrPartiallyFailed) {
		fmt.Println("partially failed")
	}
	for _, it := range b.Items {
		if it.ErrorMessage != "" {
			fmt.Printf("%s: %s (%s)\n", it.OriginalFilename, it.Status, it.ErrorMessage)
			continue
		}
		fmt.Printf("%s: %s %s\n", it.OriginalFilename, it.Status, it.Results)
	}
	// Output:
	// attempt 1: pending 0%
	// attempt 2: pending 33%
	// attempt 3: pending 67%
	// attempt 4: partial_failed 100%
	// partially failed
	// a.pdf: completed {"total":120}
	// b.pdf: completed {"total":75.5}
	// c.pdf: failed (unreadable scan)
}

// List the extractions still waiting for a person.
func ExampleClient_Extractions() {
	srv := documindtest.NewServer()
	defer srv.Close()
	doc := srv.AddDocument(documindtest.Document{Filename: "invoice.pdf"})
	srv.AddExtraction(doc, documindtest.Extraction{NeedsReview: true})

	page, err := srv.Client().Extractions(context.Background(), documind.ExtractionQuery{
		NeedsReview: documind.Bool(true),
		IsReviewed:  documind.Bool(false), // a pointer, so that false is sent
		Limit:       50,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range page.Items {
		fmt.Println(x.OriginalFilename, x.Status, documind.ReviewStatus(&x).State)
	}
	fmt.Println("total:", page.Total)
	// Output:
	// invoice.pdf completed waiting
	// total: 1
}

// ReviewStatus maps an extraction's flags onto the common model.
func ExampleReviewStatus() {
	for _, x := range []*documind.Extraction{
		nil,
		{Status: "processing"},
		{Status: "completed", NeedsReview: true},
		{Status: "completed", NeedsReview: true, IsReviewed: true},
		{Status: "completed"},
		{Status: "failed", ErrorMessage: "unreadable scan"},
	} {
		st := documind.ReviewStatus(x)
		fmt.Println(st, st.State.Final())
	}
	// Output:
	// queued ("not_listed") false
	// running ("processing") false
	// waiting ("needs_review") false
	// succeeded ("reviewed") true
	// succeeded ("not_needed") true
	// failed: unreadable scan true
}
