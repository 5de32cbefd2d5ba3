package main

import (
	"context"
	"errors"
	"strings"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

// Exit statuses. Scripts test them, so each keeps its meaning for good.
const (
	exitOK          = 0   // the job succeeded
	exitJobFailed   = 1   // the job ended failed, canceled or partially failed
	exitInput       = 2   // the job cannot go on without input
	exitTimeout     = 3   // the wait timed out or the job stalled
	exitUsage       = 4   // bad usage, a missing key, or a permanent API error
	exitInterrupted = 130 // Ctrl-C (SIGINT) or SIGTERM stopped the wait
)

// exitTable documents the statuses in every help text.
const exitTable = `Exit status:
  0    the job succeeded
  1    the job ended failed, canceled or partially failed
  2    the job needs input (a Narada agent asked a question)
  3    the wait timed out (--timeout) or the job stalled (--stall-timeout);
       the job itself goes on
  4    bad usage, a missing API key, or an API error that waiting cannot fix
       (401 wrong key, 404 unknown id, an id in the wrong format)
  130  interrupted (Ctrl-C); the job itself goes on
`

// exitCode classifies the error a command ended with. ctx is the command's:
// a cancellation counts as an interruption only when ctx was canceled.
func exitCode(ctx context.Context, err error) int {
	var (
		usage      *usageError
		step       *failure
		notCreated *ingestly.RunNotCreatedError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &step) && !step.wait:
		// A step around the wait failed (a dispatch, a trigger whose
		// retries ran out, reading an output): the API refused or kept
		// failing, whatever the error's kind.
		return exitUsage
	case errors.Is(err, poll.ErrInputRequired):
		return exitInput
	case errors.Is(err, poll.ErrFailed), errors.Is(err, poll.ErrCanceled), errors.Is(err, poll.ErrPartiallyFailed):
		return exitJobFailed
	case errors.Is(err, poll.ErrTimeout), errors.Is(err, poll.ErrStalled), errors.Is(err, poll.ErrExhausted):
		return exitTimeout
	case errors.As(err, &notCreated):
		// A document that failed or was cancelled before it got a run is a
		// job that ended failed; a run id that never appears is a wrong id.
		switch strings.ToLower(notCreated.DocumentStatus) {
		case ingestly.DocumentFailed, ingestly.DocumentCancelled:
			return exitJobFailed
		}
		return exitUsage
	}
	// Everything else is permanent: an API error other than 408, 425, 429
	// and 5xx (those are retried until the deadline), an id the client
	// refuses, a file that cannot be read.
	return exitUsage
}
