package ingestly_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

// FuzzRunStatus decodes any answer of GET /runs/{id} and maps it: never a
// panic, always a valid state, and an unknown status word is Unknown (not
// final), as Ingestly asks.
func FuzzRunStatus(f *testing.F) {
	for _, seed := range []string{
		`{"id":"r","status":"completed"}`,
		`{"id":"r","status":"failed","error":{"code":"node_failed","message":"OCR"}}`,
		`{"status":"cancelled","error":{"code":"cancelled_by_user"}}`,
		`{"status":"awaiting_children"}`, `{"status":"Awaiting Sub-runs"}`, `{"status":" REVIEW "}`,
		`{"status":"paused_for_audit"}`, `{"status":null,"error":null}`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	known := map[string]bool{"queued": true, "running": true, "awaiting_children": true, "review": true,
		"waiting": true, "completed": true, "failed": true, "cancelled": true}
	f.Fuzz(func(t *testing.T, body []byte) {
		var run ingestly.Run
		if json.Unmarshal(body, &run) != nil {
			return
		}
		st := ingestly.RunStatus(&run)
		if st.State > poll.PartiallyFailed || math.IsNaN(st.Progress) {
			t.Fatalf("invalid status %+v", st)
		}
		word := strings.ToLower(strings.TrimSpace(run.Status))
		if st.State.Final() && !known[word] {
			t.Fatalf("word %q ended the wait as %v", run.Status, st.State)
		}
	})
}
