package narada_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

func TestTaskStatus(t *testing.T) {
	text := func(s string) *narada.TaskResult { return &narada.TaskResult{Text: s} }
	tests := []struct {
		name      string
		task      *narada.TaskResponse
		want      poll.Status
		wantFinal bool
		// wantThrough is the mapping with WithWaitThroughInputRequired.
		wantThrough poll.State
	}{
		{"nil", nil, poll.Status{State: poll.Unknown}, false, poll.Unknown},
		{"pending", &narada.TaskResponse{Status: "pending"}, poll.Status{State: poll.Running, Raw: "pending"}, false, poll.Running},
		{"success", &narada.TaskResponse{Status: "success", Response: text("done")}, poll.Status{State: poll.Succeeded, Raw: "success"}, true, poll.Succeeded},
		{"error with its text as reason", &narada.TaskResponse{Status: "error", Response: text(" network timeout\n")}, poll.Status{State: poll.Failed, Raw: "error", Reason: "network timeout"}, true, poll.Failed},
		{"error without a response", &narada.TaskResponse{Status: "error"}, poll.Status{State: poll.Failed, Raw: "error"}, true, poll.Failed},
		{"input-required with the question as reason", &narada.TaskResponse{Status: "input-required", Response: text("Please log in.")}, poll.Status{State: poll.InputRequired, Raw: "input-required", Reason: "Please log in."}, true, poll.Waiting},
		{"case and space do not matter", &narada.TaskResponse{Status: " Success "}, poll.Status{State: poll.Succeeded, Raw: " Success "}, true, poll.Succeeded},
		{"an unknown word", &narada.TaskResponse{Status: "paused"}, poll.Status{State: poll.Unknown, Raw: "paused"}, false, poll.Unknown},
		{"an empty word", &narada.TaskResponse{}, poll.Status{State: poll.Unknown}, false, poll.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := narada.TaskStatus(tt.task)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantFinal, got.State.Final())

			through := narada.TaskStatusWaitThroughInputRequired(tt.task)
			assert.Equal(t, tt.wantThrough, through.State)
			assert.Equal(t, got.Raw, through.Raw)
			assert.Equal(t, got.Reason, through.Reason, "the question stays in Reason for the notify hook")
		})
	}
}
