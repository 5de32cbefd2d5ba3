package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

var waitReviewCmd = &command{
	path:    "wait documind review",
	args:    "<documentId>",
	summary: "wait until a person reviewed a Documind extraction, print the fields",
	defaults: defaults{
		timeout: documind.ReviewTimeout,
		polling: "Documind's schedule: at once, then every 10% of the time waited so far, between 10s and 10m",
	},
	help: `Waits until the newest extraction of a document can be used: a person
reviewed it in the Documind dashboard, or it needed no review. Prints the
fields as JSON on stdout: the reviewed results when there was a review,
else the extraction's own.

  reviewed, or no review needed   exit 0, the fields on stdout
  the extraction failed           exit 1

The document id is a UUID. An extraction not listed yet keeps the wait going.

Examples:
  jobpoll wait documind review 550e8400-e29b-41d4-a716-446655440000 > fields.json
  jobpoll wait documind review "$DOC" --timeout 8h --json | jq .reviewed_by`,
	setup: func(fs *flag.FlagSet) execFunc {
		return func(ctx context.Context, s *session, args []string) error {
			if err := s.wantArgs(args, "the document id"); err != nil {
				return err
			}
			c, key, err := s.documindClient()
			if err != nil {
				return err
			}
			id := args[0]
			x, err := await(ctx, s, job[*documind.Extraction]{
				subject: "documind review of document " + id,
				again:   s.again("wait", "documind", "review", id),
				key:     key,
				wait: func(ctx context.Context, opts ...poll.Option) (*documind.Extraction, error) {
					return c.WaitForReview(ctx, id, opts...)
				},
			})
			return s.finish(x != nil, x, func(w io.Writer) error {
				return writeJSONText(w, x.FinalResults())
			}, err)
		}
	},
}

var waitBatchCmd = &command{
	path:    "wait documind batch",
	args:    "<batchId>",
	summary: "wait for a Documind batch extraction, print each document's fields",
	defaults: defaults{
		timeout: documind.BatchTimeout,
		polling: "Documind's schedule: at once, then every 10% of the time waited so far, between 10s and 5m",
		stall:   documind.BatchStallTimeout,
	},
	help: `Waits for a batch extraction (the batch_id that POST /batch/extract
answered) to finish, and prints one JSON object per line on stdout, one per
document: {"document_id", "extraction_id", "results"}.

  completed                        exit 0, the items on stdout
  failed, partial_failed           exit 1 (--json shows which items failed)
  no change for --stall-timeout    exit 3: items can stay pending for ever
                                   when Documind restarts

The batch id is a UUID. The first poll runs at once, since the batch may have
been started long ago.

Examples:
  jobpoll wait documind batch 7c9e6679-7425-40de-944b-e07fc1f90ae7 > items.jsonl
  jobpoll wait documind batch "$BATCH" --json | jq '.items[] | select(.status == "failed")'`,
	setup: func(fs *flag.FlagSet) execFunc {
		return func(ctx context.Context, s *session, args []string) error {
			if err := s.wantArgs(args, "the batch id"); err != nil {
				return err
			}
			c, key, err := s.documindClient()
			if err != nil {
				return err
			}
			id := args[0]
			b, err := await(ctx, s, job[*documind.Batch]{
				subject: "documind batch " + id,
				again:   s.again("wait", "documind", "batch", id),
				key:     key,
				// The library waits 10s before the first poll of a batch it
				// has just started; this one may be old, or done already.
				extra: []poll.Option{poll.WithInitialDelay(0)},
				wait: func(ctx context.Context, opts ...poll.Option) (*documind.Batch, error) {
					return c.WaitForBatch(ctx, id, opts...)
				},
			})
			return s.finish(b != nil, b, func(w io.Writer) error {
				return writeBatchItems(w, b)
			}, err)
		}
	},
}

// documindClient builds a client from the key and the flags.
func (s *session) documindClient() (*documind.Client, string, error) {
	key, source, err := s.apiKey(documindProvider)
	if err != nil {
		return nil, "", err
	}
	opts := []documind.Option{documind.WithHTTPClient(s.http), documind.WithUserAgent(userAgent())}
	if s.opts.baseURL != "" {
		opts = append(opts, documind.WithBaseURL(s.opts.baseURL))
	}
	c, err := documind.New(key, opts...)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return c, source, nil
}

// writeJSONText writes a JSON value indented, "{}" for none.
func writeJSONText(w io.Writer, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// batchLine is one document of a batch, as a line of JSON on stdout.
type batchLine struct {
	DocumentID   string          `json:"document_id"`
	ExtractionID string          `json:"extraction_id"`
	Results      json.RawMessage `json:"results"`
}

// writeBatchItems writes one JSON object per item (JSON Lines).
func writeBatchItems(w io.Writer, b *documind.Batch) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, item := range b.Items {
		results := item.Results
		if len(results) == 0 {
			results = json.RawMessage("{}")
		}
		if err := enc.Encode(batchLine{DocumentID: item.DocumentID, ExtractionID: item.ExtractionID, Results: results}); err != nil {
			return err
		}
	}
	return nil
}
