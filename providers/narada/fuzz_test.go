package narada_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

// FuzzTaskStatus decodes any answer of GET /remote-dispatch/responses/{id}
// and maps it both ways: never a panic, always a valid state, and a word
// other than the four documented ones never ends the wait.
func FuzzTaskStatus(f *testing.F) {
	for _, seed := range []string{
		`{"status":"pending","response":null,"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":null}`,
		`{"status":"success","response":{"text":"ok","structuredOutput":{"count":1}},"createdAt":"2024-12-19T00:00:00Z","completedAt":"2024-12-19T00:00:45Z"}`,
		`{"status":"error","response":{"text":"network timeout"}}`,
		`{"status":"input-required","response":{"text":"log in"}}`,
		`{"status":"Input-Required "}`, `{"status":"paused"}`, `{"status":null,"usage":null}`, `{}`,
		`{"status":"success","createdAt":"2024-12-19T00:00:00.000000"}`,
	} {
		f.Add([]byte(seed))
	}
	known := map[string]bool{"pending": true, "success": true, "error": true, "input-required": true}
	f.Fuzz(func(t *testing.T, body []byte) {
		var task narada.TaskResponse
		if json.Unmarshal(body, &task) != nil {
			return
		}
		for _, mapping := range []func(*narada.TaskResponse) poll.Status{narada.TaskStatus, narada.TaskStatusWaitThroughInputRequired} {
			st := mapping(&task)
			if st.State > poll.PartiallyFailed || math.IsNaN(st.Progress) {
				t.Fatalf("invalid status %+v", st)
			}
			if st.State.Final() && !known[strings.ToLower(strings.TrimSpace(task.Status))] {
				t.Fatalf("word %q ended the wait as %v", task.Status, st.State)
			}
		}
	})
}
