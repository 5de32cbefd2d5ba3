// Package documind waits for Documind (https://documind.cloud) document
// extractions: a person's review of an extraction, and batch extractions.
//
// Documind extracts fields from uploaded documents. POST /extract is
// synchronous, but its answer may say needs_review: then a person corrects
// the fields in the Documind dashboard, and automation must poll
// GET /data/extractions until is_reviewed turns true and use
// reviewed_results. POST /batch/extract is asynchronous: it answers 202
// with a batch id to poll at GET /batch/{batch_id}.
//
//	c, err := documind.New(os.Getenv("DOCUMIND_API_KEY"))
//	if err != nil { ... }
//	res, err := c.Extract(ctx, documentID, documind.ExtractRequest{Schema: schema})
//	if err != nil { ... }
//	if res.NeedsReview {
//		x, err := c.WaitForReview(ctx, documentID) // polls until a person reviewed it
//		if err != nil { ... }
//		use(x.FinalResults())
//	}
//
// The wait helpers ([Client.WaitForReview], [Client.WaitForBatch]) run a
// poll.Poller with this package's defaults ([ReviewBackoff],
// [BatchBackoff], [ReviewTimeout], [BatchTimeout], [BatchStallTimeout]);
// any poll.Option passed to them overrides those. [ReviewStatus] and
// [BatchStatus] map Documind's flags and words onto poll.Status.
//
// Package documindtest is a fake Documind server for tests.
package documind
