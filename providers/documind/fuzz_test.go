package documind_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
)

func validStatus(t *testing.T, st poll.Status) {
	t.Helper()
	if st.State > poll.PartiallyFailed {
		t.Fatalf("state %d is not a poll.State value", st.State)
	}
	if math.IsNaN(st.Progress) || st.Progress < 0 || st.Progress > 1 {
		t.Fatalf("progress %v outside 0..1", st.Progress)
	}
}

// FuzzReviewStatus decodes any answer of GET /data/extractions and maps its
// first item: never a panic, always a valid state, and an unknown status
// word is Unknown.
func FuzzReviewStatus(f *testing.F) {
	for _, seed := range []string{
		`{"items":[{"id":"x","document_id":"d","status":"completed","needs_review":true,"is_reviewed":false}],"total":1,"skip":0,"limit":1}`,
		`{"items":[{"status":"completed","needs_review":true,"is_reviewed":true,"reviewed_results":{"a":1},"reviewed_at":"2024-01-15T10:00:00Z"}]}`,
		`{"items":[{"status":"failed","error_message":"boom","created_at":"2024-01-15 10:00:00.123"}]}`,
		`{"items":[{"status":"processing"}]}`,
		`{"items":[{"status":"archived_by_admin"}]}`,
		`{"items":[]}`, `{}`, `{"items":null}`, `{"items":[{"status":null,"needs_review":null}]}`,
	} {
		f.Add([]byte(seed))
	}
	known := map[string]bool{"pending": true, "processing": true, "completed": true, "failed": true, "": true}
	f.Fuzz(func(t *testing.T, body []byte) {
		var page documind.ExtractionPage
		if json.Unmarshal(body, &page) != nil {
			return
		}
		var x *documind.Extraction
		if len(page.Items) > 0 {
			x = &page.Items[0]
		}
		st := documind.ReviewStatus(x)
		validStatus(t, st)
		if x != nil && !x.IsReviewed && !known[x.Status] && st.State != poll.Unknown {
			t.Fatalf("unknown word %q mapped to %v", x.Status, st.State)
		}
	})
}

// FuzzBatchStatus decodes any answer of GET /batch/{id}: never a panic, a
// valid state, progress within 0..1 whatever the counts, and an unknown
// aggregate word is Unknown.
func FuzzBatchStatus(f *testing.F) {
	for _, seed := range []string{
		`{"batch_id":"b","status":"pending","total":2,"pending":1,"completed":1,"failed":0,"items":[]}`,
		`{"status":"partial_failed","total":2,"completed":1,"failed":1,"items":[{"status":"failed","error_message":"x"}]}`,
		`{"status":"pending","total":0}`,
		`{"status":"pending","total":-3,"completed":7,"failed":-9}`,
		`{"status":"completed","total":1,"completed":5}`,
		`{"status":"exploded"}`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	known := map[string]bool{"pending": true, "completed": true, "failed": true, "partial_failed": true}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b documind.Batch
		if json.Unmarshal(body, &b) != nil {
			return
		}
		st := documind.BatchStatus(&b)
		validStatus(t, st)
		if !known[b.Status] && st.State != poll.Unknown {
			t.Fatalf("unknown word %q mapped to %v", b.Status, st.State)
		}
	})
}
