package poll_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jobpoll/poll"
)

func TestState(t *testing.T) {
	tests := []struct {
		state poll.State
		name  string
		final bool
	}{
		{poll.Unknown, "unknown", false},
		{poll.Queued, "queued", false},
		{poll.Running, "running", false},
		{poll.Waiting, "waiting", false},
		{poll.Succeeded, "succeeded", true},
		{poll.Failed, "failed", true},
		{poll.Canceled, "canceled", true},
		{poll.InputRequired, "input_required", true},
		{poll.PartiallyFailed, "partially_failed", true},
		{poll.State(200), "State(200)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.name, tt.state.String())
			assert.Equal(t, tt.final, tt.state.Final())
		})
	}
	assert.Equal(t, poll.State(0), poll.Unknown, "the zero State is Unknown, never final")
}

func TestStatusString(t *testing.T) {
	tests := []struct {
		st   poll.Status
		want string
	}{
		{poll.Status{State: poll.Running, Raw: "awaiting_children"}, `running ("awaiting_children")`},
		{poll.Status{State: poll.Running, Raw: "running"}, `running`},
		{poll.Status{State: poll.Failed, Raw: "failed", Reason: "OCR_TIMEOUT: page 3"}, `failed: OCR_TIMEOUT: page 3`},
		{poll.Status{}, `unknown`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.st.String())
	}
}
