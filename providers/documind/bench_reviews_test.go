package documind_test

import (
	"context"
	"testing"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
)

// BenchmarkReviewCycle1000 measures one polling cycle over 1,000 documents
// waiting for a person's review, against the fake server: coalesced
// (WaitForReviews, paging the pending list) and one by one (a
// ReviewPoller per document through poll.Each). It reports the requests a
// cycle costs.
func BenchmarkReviewCycle1000(b *testing.B) {
	srv := documindtest.NewServer()
	defer srv.Close()
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = srv.AddDocument(documindtest.Document{NeedsReview: true})
		srv.AddExtraction(ids[i], documindtest.Extraction{NeedsReview: true})
	}
	c := srv.Client()
	oneCycle := poll.WithMaxAttempts(1)

	b.Run("coalesced", func(b *testing.B) {
		before := srv.Requests(documindtest.RouteExtractions)
		for b.Loop() {
			for range c.WaitForReviews(context.Background(), ids, oneCycle) {
			}
		}
		b.ReportMetric(float64(srv.Requests(documindtest.RouteExtractions)-before)/float64(b.N), "requests/cycle")
	})
	b.Run("one-by-one", func(b *testing.B) {
		pollers := make([]*poll.Poller[*documind.Extraction], len(ids))
		for i, id := range ids {
			pollers[i] = c.ReviewPoller(id, oneCycle)
		}
		before := srv.Requests(documindtest.RouteExtractions)
		for b.Loop() {
			for range poll.Each(context.Background(), pollers) {
			}
		}
		b.ReportMetric(float64(srv.Requests(documindtest.RouteExtractions)-before)/float64(b.N), "requests/cycle")
	})
}
