package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

var ingestlyDefaults = defaults{
	timeout: ingestly.DefaultRunTimeout,
	polling: "Ingestly's schedule: at once, then every 10% of the time waited so far, between 10s and 10m",
}

// outputFlags choose what a finished run's output becomes.
type outputFlags struct {
	node string
	save string
}

func (o *outputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.node, "node", "", "the Download Output node")
	fs.StringVar(&o.save, "save", "", "write the output to this file")
}

const outputFlagsHelp = `  --node ID       the Download Output node whose capture to print, when the
                  workflow has several (default: the last one that ran)
  --save FILE     write the output to FILE instead of stdout (binary ones)`

var waitRunCmd = &command{
	path:     "wait ingestly run",
	args:     "<runId> --document <documentId>",
	summary:  "wait for an Ingestly workflow run, print its output",
	defaults: ingestlyDefaults,
	help: `Waits for an Ingestly workflow run, through human review and Wait nodes,
then prints what its Download Output node captured on stdout (JSON as JSON,
CSV or text as text, a binary file as is: use --save for those).

  completed                           exit 0, the output on stdout (nothing,
                                      with a note on stderr, when the run
                                      captured none)
  failed, cancelled                   exit 1
  the document failed without a run   exit 1
  the run id never appears            exit 4 (after a grace period of 30s:
                                      Ingestly answers 404 for a moment after
                                      the trigger)

Flags:
  --document ID   the run's document (required: it tells why a run is
                  missing, and finds the run of a held document)
  --held          the trigger answered "held" and gave no run id: wait until
                  someone runs the document, then for its run (same as
                  giving "" as the run id)
` + outputFlagsHelp + `

Examples:
  jobpoll wait ingestly run "$RUN_ID" --document "$DOCUMENT_ID" > result.json
  jobpoll wait ingestly run --held --document "$DOCUMENT_ID" --timeout 48h
  jobpoll wait ingestly run "$RUN_ID" --document "$DOCUMENT_ID" --save invoice.pdf --node export-pdf`,
	setup: func(fs *flag.FlagSet) execFunc {
		var (
			documentID string
			held       bool
			out        outputFlags
		)
		fs.StringVar(&documentID, "document", "", "the run's document id")
		fs.BoolVar(&held, "held", false, "the document is held: no run id yet")
		out.register(fs)
		return func(ctx context.Context, s *session, args []string) error {
			runID := ""
			switch {
			case len(args) > 1:
				return usagef("unexpected argument %q after the run id (flags start with --)", args[1])
			case len(args) == 1 && held && args[0] != "":
				return usagef("give either a run id or --held (for a document that has no run yet), not both")
			case len(args) == 1:
				runID = args[0]
			case !held:
				return usagef("missing the run id; for a held document with no run id yet, use --held")
			}
			if strings.TrimSpace(documentID) == "" {
				return usagef("--document is required: the id of the run's document, as the trigger answered it")
			}
			c, key, err := s.ingestlyClient()
			if err != nil {
				return err
			}
			return s.waitRun(ctx, c, key, documentID, runID, out, nil)
		}
	},
}

var triggerIngestlyCmd = &command{
	path:     "trigger ingestly",
	args:     "--workflow <workflowId> --file <path>",
	summary:  "submit a document to an Ingestly workflow, wait for its run, print the output",
	defaults: ingestlyDefaults,
	help: `Submits a document to an Ingestly workflow, waits for the run like
'jobpoll wait ingestly run', and prints the run's output on stdout. The
document and run ids go to stderr as soon as Ingestly answers, so an
interrupted wait can be resumed.

Flags:
  --workflow ID          the workflow to run (required)
  --file PATH            the document to submit (required; "-" reads stdin,
                         then give --filename)
  --filename NAME        the file name Ingestly sees (default: the file's);
                         its extension sets the content type
  --reference TEXT       your own id for the document, echoed back
  --idempotency-key KEY  a trigger repeated with the same key is not stored
                         twice (default: a new random key, shown on stderr
                         if the trigger fails)
` + outputFlagsHelp + `

Transient failures of the trigger (429, 5xx, network) are retried with the
same idempotency key, so the document is never stored twice.

Examples:
  jobpoll trigger ingestly --workflow invoices --file po-1182.pdf --reference PO-1182 > po.json
  curl -s "$URL" | jobpoll trigger ingestly --workflow invoices --file - --filename scan.pdf --json`,
	setup: func(fs *flag.FlagSet) execFunc {
		var (
			workflow, file, filename, reference, idemKey string
			out                                          outputFlags
		)
		fs.StringVar(&workflow, "workflow", "", "the workflow id")
		fs.StringVar(&file, "file", "", "the document to submit")
		fs.StringVar(&filename, "filename", "", "the file name Ingestly sees")
		fs.StringVar(&reference, "reference", "", "your own id for the document")
		fs.StringVar(&idemKey, "idempotency-key", "", "the trigger's idempotency key")
		out.register(fs)
		return func(ctx context.Context, s *session, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q: give the document with --file %s", args[0], args[0])
			}
			req, err := s.triggerRequest(workflow, file, filename, reference, idemKey)
			if err != nil {
				return err
			}
			c, key, err := s.ingestlyClient()
			if err != nil {
				return err
			}
			trig, err := c.Trigger(ctx, workflow, req)
			if err != nil {
				return &failure{
					subject: fmt.Sprintf("submitting %s to workflow %s", req.Filename, workflow),
					key:     key, err: err,
					hint: "To try again without storing the document twice, add --idempotency-key " + req.IdempotencyKey,
				}
			}
			if trig.Held() {
				s.progress.note("submitted %s: document %s is held until someone runs it in Ingestly", req.Filename, trig.DocumentID)
			} else {
				s.progress.note("submitted %s: document %s, run %s", req.Filename, trig.DocumentID, trig.RunID)
			}
			return s.waitRun(ctx, c, key, trig.DocumentID, trig.RunID, out, trig)
		}
	},
}

// triggerRequest checks the flags of trigger ingestly and reads the file.
func (s *session) triggerRequest(workflow, file, filename, reference, idemKey string) (ingestly.TriggerRequest, error) {
	req := ingestly.TriggerRequest{Filename: filename, Reference: reference, IdempotencyKey: idemKey}
	switch {
	case strings.TrimSpace(workflow) == "":
		return req, usagef("--workflow is required: the id of the Ingestly workflow to run")
	case file == "":
		return req, usagef("--file is required: the document to submit (\"-\" reads stdin)")
	case file == "-" && filename == "":
		return req, usagef("--file - needs --filename: Ingestly wants the file's name, and its extension sets the content type")
	}
	if req.Filename == "" {
		req.Filename = filepath.Base(file)
	}
	data, err := s.readAll(file, "--file")
	if err != nil {
		return req, err
	}
	if len(data) == 0 {
		return req, usagef("--file %s is empty", file)
	}
	req.File = data
	if req.IdempotencyKey == "" {
		// Chosen here rather than by the library, so that a failed trigger
		// can name it for a safe retry.
		req.IdempotencyKey = uuid.NewString()
	}
	return req, nil
}

// ingestlyClient builds a client from the key and the flags.
func (s *session) ingestlyClient() (*ingestly.Client, string, error) {
	key, source, err := s.apiKey(ingestlyProvider)
	if err != nil {
		return nil, "", err
	}
	opts := []ingestly.Option{ingestly.WithHTTPClient(s.http), ingestly.WithUserAgent(userAgent())}
	if s.opts.baseURL != "" {
		opts = append(opts, ingestly.WithBaseURL(s.opts.baseURL))
	}
	c, err := ingestly.New(key, opts...)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return c, source, nil
}

// ingestlyResult is the --json output of the ingestly commands: the
// trigger's answer (trigger only), the last run observed, and the output
// (null unless the run completed and captured one).
type ingestlyResult struct {
	Trigger *ingestly.TriggerResponse `json:"trigger,omitempty"`
	Run     *ingestly.Run             `json:"run"`
	Output  *ingestly.RunOutput       `json:"output"`
}

// waitRun waits for a run (runID "" for a held document), fetches its
// output and prints it.
func (s *session) waitRun(ctx context.Context, c *ingestly.Client, key, documentID, runID string, out outputFlags, trig *ingestly.TriggerResponse) error {
	subject, again := "ingestly run "+runID, s.again("wait", "ingestly", "run", runID, "--document", documentID)
	if runID == "" {
		subject, again = "a run of held ingestly document "+documentID, s.again("wait", "ingestly", "run", "--held", "--document", documentID)
	}
	run, err := await(ctx, s, job[*ingestly.Run]{
		subject: subject, again: again, key: key,
		wait: func(ctx context.Context, opts ...poll.Option) (*ingestly.Run, error) {
			return c.WaitForRun(ctx, documentID, runID, opts...)
		},
	})
	result := ingestlyResult{Trigger: trig, Run: run}
	if err == nil {
		result.Output, err = s.runOutput(ctx, c, key, run, out.node)
	}
	if err == nil && result.Output != nil && out.save != "" {
		err = saveOutput(s, result.Output, out.save)
	}
	return s.finish(run != nil, result, func(w io.Writer) error {
		if result.Output == nil || out.save != "" {
			return nil
		}
		return writeOutput(w, result.Output)
	}, err)
}

// runOutput reads a completed run's output; nil, with a note, when the run
// captured none.
func (s *session) runOutput(ctx context.Context, c *ingestly.Client, key string, run *ingestly.Run, node string) (*ingestly.RunOutput, error) {
	o, err := c.RunOutput(ctx, run.ID, node)
	switch {
	case errors.Is(err, ingestly.ErrOutputNotReady):
		s.progress.note("run %s completed without capturing an output (no Download Output node ran)", run.ID)
		return nil, nil
	case errors.Is(err, ingestly.ErrOutputTooLarge):
		return nil, &failure{subject: "reading the output of run " + run.ID, key: key, err: err,
			hint: "The output is over the 10 MB Ingestly returns inline: download it from the run in the Ingestly dashboard."}
	case err != nil:
		return nil, &failure{subject: "reading the output of run " + run.ID, key: key, err: err}
	}
	return o, nil
}

// writeOutput writes an output's content: binary as is, text with one
// final newline.
func writeOutput(w io.Writer, o *ingestly.RunOutput) error {
	data, err := o.Bytes()
	if err != nil {
		return err
	}
	if o.IsBase64 {
		_, err = w.Write(data)
		return err
	}
	return writeLine(w, string(data))
}

// saveOutput writes an output's content, exactly, to a file.
func saveOutput(s *session, o *ingestly.RunOutput, path string) error {
	data, err := o.Bytes()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	s.progress.note("saved the output %s (%s, %d bytes) to %s", o.Filename, o.ContentType, len(data), path)
	return nil
}
