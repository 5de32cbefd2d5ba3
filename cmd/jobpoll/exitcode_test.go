package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	job := func(s poll.State) error {
		return fmt.Errorf("wrapped: %w", &poll.JobError{Status: poll.Status{State: s}})
	}
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"success", live, nil, exitOK},
		{"failed", live, job(poll.Failed), exitJobFailed},
		{"canceled job", live, job(poll.Canceled), exitJobFailed},
		{"partially failed", live, job(poll.PartiallyFailed), exitJobFailed},
		{"input required", live, job(poll.InputRequired), exitInput},
		{"timeout", live, fmt.Errorf("x: %w", poll.ErrTimeout), exitTimeout},
		{"timeout after 503s", live, errors.Join(poll.ErrTimeout, &poll.APIError{StatusCode: 503}), exitTimeout},
		{"stalled", live, poll.ErrStalled, exitTimeout},
		{"exhausted", live, poll.ErrExhausted, exitTimeout},
		{"usage", live, usagef("bad"), exitUsage},
		{"401", live, &poll.APIError{StatusCode: 401}, exitUsage},
		{"anything else", live, errors.New("no such host"), exitUsage},
		{"interrupted", canceled, fmt.Errorf("poll: canceled: %w", context.Canceled), exitInterrupted},
		{"a cancellation that is not ours", live, context.Canceled, exitUsage},
		{"a step that ran out of retries", live, &failure{err: poll.ErrExhausted}, exitUsage},
		{"a wait that ran out of time", live, &failure{wait: true, err: poll.ErrTimeout}, exitTimeout},
		{"a step interrupted", canceled, &failure{err: context.Canceled}, exitInterrupted},
		{"document failed without a run", live, &ingestly.RunNotCreatedError{DocumentStatus: "failed"}, exitJobFailed},
		{"document cancelled without a run", live, &ingestly.RunNotCreatedError{DocumentStatus: "Cancelled"}, exitJobFailed},
		{"run id that never appears", live, &ingestly.RunNotCreatedError{RunID: "r", DocumentStatus: "completed", Err: &poll.APIError{StatusCode: 404}}, exitUsage},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, exitCode(tt.ctx, tt.err), tt.name)
	}
}
