package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

// usageError is a mistake in the command line: exit 4, with a pointer to
// the help.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failure is a step of a command that went wrong, with what a message
// needs to be useful: what the step was about and how to go on.
type failure struct {
	// wait is true for a wait (subject names the job: "narada task
	// req_1") and false for another step (subject says what it was doing:
	// "dispatching the narada task").
	wait    bool
	subject string
	// again is a command line that resumes the wait, "" when none can.
	again string
	// hint is said when the step was interrupted or failed outright.
	hint string
	// key names where the API key came from, for a 401 or 403.
	key string
	err error
}

func (f *failure) Error() string { return f.subject + ": " + f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// report writes why the command failed to stderr, in words that say what
// to do next. It never prints the API key: the key is in no error value.
func (s *session) report(ctx context.Context, err error) {
	var (
		usage *usageError
		f     *failure
	)
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(s.stderr, "jobpoll %s: %s\nRun 'jobpoll help %s' for usage.\n", s.cmd.path, usage.msg, s.cmd.path)
		return
	case !errors.As(err, &f):
		fmt.Fprintf(s.stderr, "jobpoll: %v\n", err)
		return
	}
	var lines []string
	switch code := exitCode(ctx, err); {
	case code == exitInterrupted && f.wait:
		lines = append(lines, "interrupted: stopped waiting for "+f.subject+s.attempts()+".")
		lines = append(lines, f.goesOn()...)
	case code == exitInterrupted:
		lines = append(lines, "interrupted while "+f.subject+".")
		if f.hint != "" {
			lines = append(lines, f.hint)
		}
	case code == exitTimeout:
		lines = append(lines, "gave up waiting for "+f.subject+": "+trimPoll(f.err)+".")
		lines = append(lines, f.goesOn()...)
	case code == exitInput:
		st := jobStatus(err)
		lines = append(lines, fmt.Sprintf("%s needs input: %s", f.subject, oneLine(st.Reason)))
		if f.again != "" {
			lines = append(lines, "Answer it, then wait again with: "+f.again)
		}
	case code == exitJobFailed && jobStatus(err).State != poll.Unknown:
		lines = append(lines, f.subject+" ended "+oneLine(jobStatus(err).String()))
	default:
		lines = append(lines, s.permanent(f)...)
	}
	for _, line := range lines {
		fmt.Fprintln(s.stderr, "jobpoll: "+line)
	}
}

// permanent explains an error that waiting could not fix.
func (s *session) permanent(f *failure) []string {
	var notCreated *ingestly.RunNotCreatedError
	if errors.As(f.err, &notCreated) {
		return []string{notCreated.Error()}
	}
	var api *poll.APIError
	if !errors.As(f.err, &api) {
		lines := []string{f.subject + ": " + trimPoll(f.err)}
		if f.hint != "" {
			lines = append(lines, f.hint)
		}
		return lines
	}
	verb := "the API answered "
	if f.wait {
		verb = "waiting for " + f.subject + ", " + verb
	} else {
		verb = f.subject + ": " + verb
	}
	lines := []string{verb + api.Error()}
	switch api.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		lines = append(lines, "The API refused the key: check "+f.key+".")
	case http.StatusNotFound:
		lines = append(lines, "Check the id, and that the key belongs to the account that owns the job.")
	default:
		if f.hint != "" {
			lines = append(lines, f.hint)
		}
	}
	return lines
}

// goesOn says that the job itself was not stopped, and how to resume.
func (f *failure) goesOn() []string {
	if f.again == "" {
		return []string{"The job itself goes on."}
	}
	return []string{"The job itself goes on; to wait again: " + f.again}
}

// attempts says how far the wait went: " after 3 attempts in 1.2s (last
// status running)".
func (s *session) attempts() string {
	last, elapsed, ok := s.progress.lastAttempt()
	if !ok {
		return " before any answer, after " + short(elapsed)
	}
	return fmt.Sprintf(" after %s in %s (last status %s)", plural(last.N, "attempt"), short(elapsed), oneLine(last.Status.String()))
}

// jobStatus is the final status of a job that did not succeed.
func jobStatus(err error) poll.Status {
	var je *poll.JobError
	if errors.As(err, &je) {
		return je.Status
	}
	return poll.Status{}
}

// trimPoll drops the library's "poll: " prefix, which means nothing to
// someone at a shell.
func trimPoll(err error) string {
	return strings.TrimPrefix(err.Error(), "poll: ")
}
