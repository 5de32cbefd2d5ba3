package ingestly_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// A document goes through a workflow with a review step; the wait reports
// each change of state, then the output is collected.
func ExampleClient_WaitForRun() {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("invoice-parser", ingestlytest.Script{
		Stages: []ingestlytest.Stage{
			{Status: "queued", Polls: 1},
			{Status: "running", Polls: 2},
			{Status: "review", Polls: 3},
			{Status: "completed"},
		},
		Outputs: []ingestlytest.Output{{JSON: map[string]any{"poNumber": "PO-1182", "total": 1250.0}}},
	})
	c := srv.Client() // ingestly.New(os.Getenv("INGESTLY_API_KEY")) for the real API
	ctx := context.Background()

	trig, err := c.Trigger(ctx, "invoice-parser", ingestly.TriggerRequest{
		Filename: "po-1182.pdf", File: []byte("%PDF-1.4 ..."), Reference: "PO-1182",
	})
	if err != nil {
		fmt.Println("trigger:", err)
		return
	}
	run, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID,
		poll.WithBackoff(poll.Constant(time.Millisecond)), // the default is RunBackoff()
		poll.WithNotify(func(a poll.Attempt) {
			if a.Changed {
				fmt.Printf("attempt %d: %s\n", a.N, a.Status)
			}
		}))
	if err != nil {
		fmt.Println("wait:", err)
		return
	}
	out, err := c.RunOutput(ctx, run.ID, "")
	if err != nil {
		fmt.Println("output:", err)
		return
	}
	var po struct {
		PONumber string  `json:"poNumber"`
		Total    float64 `json:"total"`
	}
	if err := out.Decode(&po); err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println(po.PONumber, po.Total)
	// Output:
	// attempt 1: queued
	// attempt 2: running
	// attempt 4: waiting ("review")
	// attempt 7: succeeded ("completed")
	// PO-1182 1250
}

// A trigger answered "held" has no run id: pass "" and WaitForRun follows
// the document until someone runs it, then follows that run.
func ExampleClient_WaitForRun_held() {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("manual-intake", ingestlytest.Script{Held: true, HeldPolls: 2})
	c := srv.Client()
	ctx := context.Background()

	trig, err := c.Trigger(ctx, "manual-intake", ingestly.TriggerRequest{Filename: "scan.png", File: []byte("\x89PNG")})
	if err != nil {
		fmt.Println("trigger:", err)
		return
	}
	fmt.Printf("trigger: %s, run id %q\n", trig.Status, trig.RunID)
	run, err := c.WaitForRun(ctx, trig.DocumentID, "",
		poll.WithBackoff(poll.Constant(time.Millisecond)),
		poll.WithNotify(func(a poll.Attempt) {
			if a.Changed {
				fmt.Printf("attempt %d: %s\n", a.N, a.Status)
			}
		}))
	if err != nil {
		fmt.Println("wait:", err)
		return
	}
	fmt.Println("run found:", run.ID != "", run.Status)
	// Output:
	// trigger: held, run id ""
	// attempt 1: waiting ("held")
	// attempt 3: queued
	// attempt 5: running
	// attempt 6: succeeded ("completed")
	// run found: true completed
}

// A run id that never comes to exist ends the wait once the grace period
// is over, with the document's status.
func ExampleClient_WaitForRun_notCreated() {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{NeverCreated: true, DocumentStatus: "cancelled"})
	c := srv.Client(ingestly.WithRunGracePeriod(10 * time.Millisecond))

	_, err := c.WaitForRun(context.Background(), trig.DocumentID, trig.RunID, poll.WithBackoff(poll.Constant(2*time.Millisecond)))
	var missing *ingestly.RunNotCreatedError
	if errors.As(err, &missing) {
		fmt.Println(errors.Is(err, ingestly.ErrRunNotCreated), missing.DocumentStatus)
	}
	// Output:
	// true cancelled
}

func ExampleRunStatus() {
	for _, run := range []*ingestly.Run{
		{Status: "awaiting_children"},
		{Status: "review"},
		{Status: "failed", Error: &ingestly.RunError{Code: "node_failed", Message: "OCR timed out"}},
		{Status: "cancelled", Error: &ingestly.RunError{Code: "cancelled_by_user"}},
		{Status: "some_new_word"},
	} {
		st := ingestly.RunStatus(run)
		line := fmt.Sprintf("%-17s -> %-9s final=%v", run.Status, st.State, st.State.Final())
		if st.Reason != "" {
			line += "  " + st.Reason
		}
		fmt.Println(line)
	}
	// Output:
	// awaiting_children -> running   final=false
	// review            -> waiting   final=false
	// failed            -> failed    final=true  node_failed: OCR timed out
	// cancelled         -> canceled  final=true  cancelled_by_user
	// some_new_word     -> unknown   final=false
}

func ExampleClient_RunOutput() {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	trig := srv.AddRun(ingestlytest.Script{
		Stages: []ingestlytest.Stage{{Status: "running", Polls: 1}, {Status: "completed"}},
		Outputs: []ingestlytest.Output{
			{NodeID: "csv", Text: "poNumber,total\nPO-1182,1250\n", ContentType: "text/csv", Filename: "po.csv"},
			{NodeID: "archive", TooLarge: true},
		},
	})
	c := srv.Client()
	ctx := context.Background()

	if _, err := c.RunOutput(ctx, trig.RunID, "csv"); errors.Is(err, ingestly.ErrOutputNotReady) {
		fmt.Println("not ready yet")
	}
	if _, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID, poll.WithBackoff(poll.Constant(time.Millisecond))); err != nil {
		fmt.Println("wait:", err)
		return
	}
	out, err := c.RunOutput(ctx, trig.RunID, "csv")
	if err != nil {
		fmt.Println("output:", err)
		return
	}
	text, _ := out.Text()
	fmt.Printf("%s (%s):\n%s", out.Filename, out.ContentType, text)
	if _, err := c.RunOutput(ctx, trig.RunID, "archive"); errors.Is(err, ingestly.ErrOutputTooLarge) {
		fmt.Println("archive: too large to return inline, download it from the dashboard")
	}
	// Output:
	// not ready yet
	// po.csv (text/csv):
	// poNumber,total
	// PO-1182,1250
	// archive: too large to return inline, download it from the dashboard
}

func ExampleClient_AllReviewTasks() {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	for i := range 150 {
		task := ingestly.ReviewTask{}
		if i%3 == 0 {
			task.Status, task.Decision = "completed", ingestly.DecisionApproved
		}
		srv.AddReviewTasks("run-1", task)
	}
	c := srv.Client()

	pending := 0
	for _, err := range c.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{RunID: "run-1", Status: ingestly.ReviewTaskPending}) {
		if err != nil {
			fmt.Println("review tasks:", err)
			return
		}
		pending++
	}
	fmt.Println("pending review tasks:", pending)
	// Output:
	// pending review tasks: 100
}

// Give your own idempotency key, stored with your record, to trigger again
// safely after a crash: the same key gets the first answer back.
func ExampleClient_Trigger() {
	srv := ingestlytest.NewServer()
	defer srv.Close()
	srv.SetWorkflow("invoice-parser", ingestlytest.Script{})
	c := srv.Client()
	req := ingestly.TriggerRequest{
		Filename: "po-1182.pdf", File: []byte("%PDF-1.4 ..."), Reference: "PO-1182",
		IdempotencyKey: "po-1182-upload-1",
	}
	first, _ := c.Trigger(context.Background(), "invoice-parser", req)
	again, _ := c.Trigger(context.Background(), "invoice-parser", req)
	fmt.Println(first.Status, first.DocumentID == again.DocumentID, len(srv.Uploads()))
	// Output:
	// queued true 1
}
