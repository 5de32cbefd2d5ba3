package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/jobpoll/poll"
)

// job is one wait, as the commands describe it.
type job[T any] struct {
	// subject names the job in messages: "narada task req_1".
	subject string
	// again resumes the wait, for messages: "jobpoll wait narada req_1".
	again string
	// key says where the API key came from, for a 401.
	key string
	// extra are options of the command's own, before the flags'.
	extra []poll.Option
	// wait is the provider's wait helper.
	wait func(ctx context.Context, opts ...poll.Option) (T, error)
}

// await runs a wait with the flags' options and the progress report. It
// returns the last value observed and, when the job did not succeed, a
// *failure that says how to go on.
func await[T any](ctx context.Context, s *session, j job[T]) (T, error) {
	opts := append(append([]poll.Option{}, j.extra...), s.opts.pollOptions()...)
	opts = append(opts, poll.WithNotify(s.progress.notify))
	s.progress.begin(j.subject, s.opts.describe(s.cmd.defaults))
	v, err := j.wait(ctx, opts...)
	s.progress.end()
	if err != nil {
		return v, &failure{wait: true, subject: j.subject, again: j.again, key: j.key, err: err}
	}
	return v, nil
}

// finish writes a wait's outcome to stdout and returns the command's
// error: with --json the last observation, whenever there is one; without
// it the result, only when the job succeeded.
func (s *session) finish(observed bool, value any, text func(w io.Writer) error, err error) error {
	var werr error
	switch {
	case s.opts.json && observed:
		werr = s.writeJSON(value)
	case !s.opts.json && err == nil && text != nil:
		werr = text(s.stdout)
	}
	if err != nil {
		return err
	}
	if werr != nil {
		return fmt.Errorf("writing the result to stdout: %w", werr)
	}
	return nil
}

// writeJSON writes v to stdout as indented JSON.
func (s *session) writeJSON(v any) error {
	enc := json.NewEncoder(s.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeLine writes text with exactly one final newline; nothing for "".
func writeLine(w io.Writer, text string) error {
	if text == "" {
		return nil
	}
	if text[len(text)-1] == '\n' {
		_, err := io.WriteString(w, text)
		return err
	}
	_, err := io.WriteString(w, text+"\n")
	return err
}
