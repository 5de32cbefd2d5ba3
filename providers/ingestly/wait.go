package ingestly

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jobpoll/poll"
)

// DefaultRunTimeout is WaitForRun's own deadline when no poll.WithTimeout
// is given. A run can sit in review or on a Wait node for hours (a review
// takes 2 hours at the median), so the core's 10 minutes would cut most
// reviewed runs short; 24 hours covers a review left overnight. Pass
// poll.WithTimeout(0) to let only ctx bound the wait.
const DefaultRunTimeout = 24 * time.Hour

// RunBackoff is WaitForRun's default strategy:
// poll.Proportional(0.1, 10s, 10min): wait 10% of the time waited so far,
// at least 10 s and at most 10 minutes, jittered down by up to 10%.
//
// Why: about 70% of runs are automated and end in about 20 s (median); the
// other 30% go through a review that takes about 2 hours (median), and
// polling counts against the plan's read limit. Spacing polls in
// proportion to the time waited sees every run at most max(10 s, 10% of
// its duration) after it ended, and the requests grow with the logarithm
// of the duration: in the simulation of that mix (BENCHMARKS.md) about 22
// requests per run where the docs' "every few seconds" (5 s) makes about
// 600, and no run seen late. The 10 s floor also gives a run that answers
// 404 right after the trigger three looks within the grace period.
func RunBackoff() poll.Strategy {
	return poll.Proportional(0.1, 10*time.Second, 10*time.Minute)
}

// WaitForRun follows a run until it is completed (nil error), failed
// (poll.ErrFailed, Reason "error.code: error.message") or cancelled
// (poll.ErrCanceled, Reason error.code), and returns the last Run it saw.
// Defaults: [RunBackoff] and [DefaultRunTimeout] (24 hours); opts override
// them. Unknown status words keep the wait going.
//
// Pass the ids Trigger returned. A run id can answer 404 for a moment
// before Ingestly creates the run: within the client's grace period
// ([DefaultRunGracePeriod], see [WithRunGracePeriod]) that shows as Queued
// with Raw [RunNotCreated]; after it, WaitForRun reads the document and
// ends with a [*RunNotCreatedError] (errors.Is ErrRunNotCreated) naming the
// document's status, such as failed, cancelled or held.
//
// For a trigger answered "held" (no run id), pass runID "": WaitForRun then
// reads the document, shown as Waiting with Raw [RunHeld] while it is
// held; once someone runs it, it takes the newest of the document's runs
// and follows that run. A document that ends failed or cancelled without a
// run ends the wait at once with a *RunNotCreatedError; one that is no
// longer held but shows no run gets the grace period like a 404.
func (c *Client) WaitForRun(ctx context.Context, documentID, runID string, opts ...poll.Option) (*Run, error) {
	return c.RunPoller(documentID, runID, opts...).Wait(ctx)
}

// RunPoller returns the poller WaitForRun uses, for poll.Each, poll.WaitAll
// or a single Poll. Its defaults and opts are WaitForRun's. An empty
// documentID makes its first attempt fail with a permanent error.
//
// The poller remembers the run it found for a held document and since when
// the run has been missing, so a later Wait goes on from there.
func (c *Client) RunPoller(documentID, runID string, opts ...poll.Option) *poll.Poller[*Run] {
	w := &runWatch{c: c, documentID: documentID, runID: runID}
	defaults := []poll.Option{poll.WithBackoff(RunBackoff()), poll.WithTimeout(DefaultRunTimeout)}
	return poll.New(w.fetch, RunStatus, append(defaults, opts...)...)
}

// runWatch observes one run, or a held document until it has one.
type runWatch struct {
	c          *Client
	documentID string

	mu    sync.Mutex
	runID string
	// missingSince is when the current spell without a run to read began;
	// zero while the run is seen.
	missingSince time.Time
}

func (w *runWatch) fetch(ctx context.Context) (*Run, error) {
	if err := requireID("WaitForRun", "document id", w.documentID); err != nil {
		return nil, err
	}
	w.mu.Lock()
	runID := w.runID
	w.mu.Unlock()
	if runID == "" {
		return w.findRun(ctx)
	}
	run, err := w.c.Run(ctx, runID)
	if err == nil {
		w.found(runID)
		return run, nil
	}
	if !isNotFound(err) {
		return nil, err
	}
	missing, expired := w.missing()
	if !expired {
		return &Run{ID: runID, DocumentID: w.documentID, Status: RunNotCreated}, nil
	}
	doc, docErr := w.c.Document(ctx, w.documentID)
	if docErr != nil {
		// Only the document's error, so that a transient one is retried.
		return nil, fmt.Errorf("ingestly: run %q still answers 404 Not Found %v after the first 404, and reading its document to learn why failed: %w", runID, missing, docErr)
	}
	return nil, &RunNotCreatedError{DocumentID: w.documentID, RunID: runID, DocumentStatus: doc.Status, Missing: missing, Err: err}
}

// findRun follows a held document until it has a run.
func (w *runWatch) findRun(ctx context.Context) (*Run, error) {
	doc, err := w.c.Document(ctx, w.documentID)
	if err != nil {
		return nil, err
	}
	held := &Run{DocumentID: w.documentID, Status: RunHeld}
	if strings.EqualFold(doc.Status, DocumentHeld) {
		w.found("")
		return held, nil
	}
	runs, err := w.c.DocumentRuns(ctx, w.documentID)
	if err != nil {
		return nil, err
	}
	if len(runs) > 0 && runs[0].ID != "" {
		newest := runs[0]
		w.found(newest.ID)
		return &newest, nil
	}
	switch strings.ToLower(doc.Status) {
	case DocumentFailed, DocumentCancelled:
		return nil, &RunNotCreatedError{DocumentID: w.documentID, DocumentStatus: doc.Status}
	}
	missing, expired := w.missing()
	if expired {
		return nil, &RunNotCreatedError{DocumentID: w.documentID, DocumentStatus: doc.Status, Missing: missing}
	}
	held.Status = RunNotCreated
	return held, nil
}

// found records the run being followed and that it is not missing.
func (w *runWatch) found(runID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if runID != "" {
		w.runID = runID
	}
	w.missingSince = time.Time{}
}

// missing records one more observation without a run. It reports how long
// the run has been missing and whether that is past the grace period.
func (w *runWatch) missing() (time.Duration, bool) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.missingSince.IsZero() {
		w.missingSince = now
	}
	d := now.Sub(w.missingSince)
	return d, d >= w.c.runGrace
}

func isNotFound(err error) bool {
	var apiErr *poll.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound
}
