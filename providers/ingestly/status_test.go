package ingestly_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

func TestRunStatus(t *testing.T) {
	failure := &ingestly.RunError{Code: "node_failed", Message: "OCR node timed out"}
	tests := []struct {
		name string
		run  *ingestly.Run
		want poll.Status
	}{
		{name: "nil", run: nil, want: poll.Status{}},
		{name: "queued", run: &ingestly.Run{Status: "queued"}, want: poll.Status{State: poll.Queued, Raw: "queued"}},
		{name: "running", run: &ingestly.Run{Status: "running"}, want: poll.Status{State: poll.Running, Raw: "running"}},
		{name: "awaiting_children", run: &ingestly.Run{Status: "awaiting_children"}, want: poll.Status{State: poll.Running, Raw: "awaiting_children"}},
		{name: "review", run: &ingestly.Run{Status: "review"}, want: poll.Status{State: poll.Waiting, Raw: "review"}},
		{name: "waiting", run: &ingestly.Run{Status: "waiting"}, want: poll.Status{State: poll.Waiting, Raw: "waiting"}},
		{name: "completed", run: &ingestly.Run{Status: "completed"}, want: poll.Status{State: poll.Succeeded, Raw: "completed"}},
		{name: "failed with code and message", run: &ingestly.Run{Status: "failed", Error: failure}, want: poll.Status{State: poll.Failed, Raw: "failed", Reason: "node_failed: OCR node timed out"}},
		{name: "failed with code only", run: &ingestly.Run{Status: "failed", Error: &ingestly.RunError{Code: "timeout"}}, want: poll.Status{State: poll.Failed, Raw: "failed", Reason: "timeout"}},
		{name: "failed with message only", run: &ingestly.Run{Status: "failed", Error: &ingestly.RunError{Message: "boom"}}, want: poll.Status{State: poll.Failed, Raw: "failed", Reason: "boom"}},
		{name: "failed without error", run: &ingestly.Run{Status: "failed"}, want: poll.Status{State: poll.Failed, Raw: "failed"}},
		{name: "cancelled names the code", run: &ingestly.Run{Status: "cancelled", Error: &ingestly.RunError{Code: "cancelled_by_user", Message: "Ana cancelled it"}}, want: poll.Status{State: poll.Canceled, Raw: "cancelled", Reason: "cancelled_by_user"}},
		{name: "cancelled without code falls back to the message", run: &ingestly.Run{Status: "cancelled", Error: &ingestly.RunError{Message: "workflow disabled"}}, want: poll.Status{State: poll.Canceled, Raw: "cancelled", Reason: "workflow disabled"}},
		{name: "cancelled without error", run: &ingestly.Run{Status: "cancelled"}, want: poll.Status{State: poll.Canceled, Raw: "cancelled"}},
		{name: "not_created (this package's word)", run: &ingestly.Run{Status: ingestly.RunNotCreated}, want: poll.Status{State: poll.Queued, Raw: "not_created"}},
		{name: "held (this package's word)", run: &ingestly.Run{Status: ingestly.RunHeld}, want: poll.Status{State: poll.Waiting, Raw: "held"}},
		{name: "case and space are ignored, Raw kept", run: &ingestly.Run{Status: " Completed "}, want: poll.Status{State: poll.Succeeded, Raw: " Completed "}},
		{name: "unknown word", run: &ingestly.Run{Status: "awaiting_sub_runs"}, want: poll.Status{State: poll.Unknown, Raw: "awaiting_sub_runs"}},
		{name: "empty word", run: &ingestly.Run{}, want: poll.Status{State: poll.Unknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ingestly.RunStatus(tt.run)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want.State.Final(), got.State.Final())
		})
	}
}

func TestUnknownRunStatusIsNeverFinal(t *testing.T) {
	for _, word := range []string{"paused", "archived", "awaiting_sub_runs", "COMPLETED_WITH_WARNINGS"} {
		assert.False(t, ingestly.RunStatus(&ingestly.Run{Status: word}).State.Final(), word)
	}
}
