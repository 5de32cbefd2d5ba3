// Package ingestly waits for Ingestly workflow runs (https://ingestly.ai):
// submit a document with [Client.Trigger], follow its run through review
// with [Client.WaitForRun], then collect the result with
// [Client.RunOutput].
//
// Ingestly processes documents asynchronously: the trigger answers as soon
// as the document is stored, with a document id and a run id (none when the
// document is "held"), and the run then goes through queued, running,
// awaiting_children, review (a person checks the result) or waiting (a
// Wait node) to completed, failed or cancelled. A run in review or waiting
// can take hours, so WaitForRun backs off to one request every few minutes
// ([RunBackoff]) and waits up to 24 hours by default.
//
//	c, err := ingestly.New(os.Getenv("INGESTLY_API_KEY"))
//	if err != nil { ... }
//	trig, err := c.Trigger(ctx, workflowID, ingestly.TriggerRequest{
//		Filename: "po-1182.pdf", File: pdf, Reference: "PO-1182",
//	})
//	if err != nil { ... }
//	run, err := c.WaitForRun(ctx, trig.DocumentID, trig.RunID) // trig.RunID is "" when held
//	if err != nil { ... } // errors.Is(err, poll.ErrFailed), ErrRunNotCreated, ...
//	out, err := c.RunOutput(ctx, run.ID, "")
//	var po struct{ PONumber string `json:"poNumber"` }
//	err = out.Decode(&po)
//
// Errors from the API are RFC 7807 problems; they arrive as
// *poll.APIError with Code set to the problem's type and Message to its
// detail. Package ingestlytest is a fake Ingestly server for tests.
package ingestly
