package ingestlytest

import (
	"time"

	"github.com/jobpoll/poll/providers/ingestly"
)

// Script is the life of one submitted document and its run. The zero
// Script is a run that is queued for one poll, running for one poll, then
// completed without output.
type Script struct {
	// Stages are the run's statuses in order. Each is shown until it has
	// been seen by Polls polls (GET /runs/{runId}) and For has passed since
	// it began; then the next one begins. A stage with Polls ends at the
	// next poll; one with only For ends when For has passed, whatever is
	// read. The last stage stays. Any word can be used, including ones the
	// client does not know.
	Stages []Stage
	// Error is sent with a failed or cancelled status. Default: a code
	// naming the status ("node_failed", "cancelled_by_user").
	Error *ingestly.RunError
	// Outputs are what GET /runs/{runId}/output serves once the run is
	// completed; without a nodeId the last one answers. None: 409.
	Outputs []Output

	// The run answers 404 (and is not listed for its document) until it
	// has been polled NotFoundPolls times and NotFoundFor has passed since
	// the trigger, as Ingestly does "for a moment" before it creates the
	// run. The stages' clock starts when the run appears.
	NotFoundPolls int
	NotFoundFor   time.Duration

	// NeverCreated hands out a run id whose run never appears (404 for
	// ever); the document then shows DocumentStatus (default "failed").
	NeverCreated   bool
	DocumentStatus string

	// Held answers the trigger with status "held" and no run id. The
	// document gets its run (following Stages) once it has been read
	// HeldPolls times (GET /documents/{documentId}) and HeldFor has
	// passed; with both 0 it stays held until [Server.Release].
	Held      bool
	HeldPolls int
	HeldFor   time.Duration
}

// Stage is one status of a run and how long it is shown.
type Stage struct {
	// Status is the word GET /runs/{runId} answers, e.g. "review".
	Status string
	// Polls is how many polls see this stage before it can end.
	Polls int
	// For is how long this stage lasts at least, from when it began.
	For time.Duration
	// ReviewTasks is how many pending review tasks a "review" stage opens
	// when it begins. Default 1.
	ReviewTasks int
	// Decision is given to this stage's review tasks when it ends; they
	// then have status "completed". Default "approved".
	Decision string
}

// Output is one Download Output node's capture. Set exactly one of JSON,
// Text and Binary, which are served as Ingestly does: a JSON value, a JSON
// string, or a base64 string with isBase64 true.
type Output struct {
	// NodeID is the Download Output node; ?nodeId= picks it.
	NodeID string
	// ContentType defaults to application/json, text/plain or
	// application/octet-stream, by the field that is set.
	ContentType string
	// Filename defaults to "output" with an extension by content.
	Filename string
	JSON     any
	Text     string
	Binary   []byte
	// TooLarge answers 413, as for an output over the 10 MB that can be
	// returned inline, without building one. A real output over
	// MaxInlineOutput gets 413 too.
	TooLarge bool
}

// MaxInlineOutput is the largest output the fake returns inline (10 MB).
const MaxInlineOutput = 10 << 20

// ReviewTaskCompleted is the status the fake gives a review task when its
// stage ends. The docs name only "pending"; this word is the fake's own.
const ReviewTaskCompleted = "completed"

// Upload is one document received by the trigger endpoint, as parsed.
type Upload struct {
	WorkflowID     string
	DocumentID     string
	IdempotencyKey string
	Filename       string
	ContentType    string
	Content        []byte
	Reference      string
}
