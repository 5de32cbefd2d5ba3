package reliability_test

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// TestLoad1000Waits runs 1,000 waits at once against one fake server that
// answers a quarter of the requests with a random fault (5xx, 429, a
// reset, a cut body, a slow answer), and checks that every wait ends
// with its own full result, exactly once, within a bounded number of
// requests.
func TestLoad1000Waits(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const (
		waits       = 1000
		pollsPerJob = 3 // queued, running, completed
		faults      = waits * pollsPerJob / 4
	)
	srv := ingestlytest.NewServer()
	defer srv.Close()
	r := rand.New(rand.NewPCG(7, 7))
	kinds := []fakeapi.Fault{
		{Status: http.StatusInternalServerError}, {Status: http.StatusBadGateway}, {Status: http.StatusServiceUnavailable},
		{Status: http.StatusTooManyRequests, RetryAfter: "0"}, {CloseConnection: true}, {Truncate: true},
		{Delay: 20 * time.Millisecond},
	}
	for range faults {
		srv.InjectFault(ingestlytest.RouteRun, 1, kinds[r.IntN(len(kinds))])
	}
	client := srv.Client()
	runs := make([]ingestly.TriggerResponse, waits)
	pollers := make([]*poll.Poller[*ingestly.Run], waits)
	for i := range runs {
		runs[i] = srv.AddRun(ingestlytest.Script{Stages: []ingestlytest.Stage{
			{Status: ingestly.RunQueued, Polls: 1}, {Status: ingestly.RunRunning, Polls: 1}, {Status: ingestly.RunCompleted},
		}})
		pollers[i] = client.RunPoller(runs[i].DocumentID, runs[i].RunID,
			poll.WithBackoff(poll.Exponential(5*time.Millisecond, 50*time.Millisecond)), poll.WithTimeout(time.Minute))
	}
	start := time.Now()
	seen := make([]int, waits)
	for res := range poll.Each(t.Context(), pollers, poll.WithMaxInFlight(64)) {
		require.NoError(t, res.Err, "wait %d", res.Index)
		require.NotNil(t, res.Value)
		assert.Equal(t, runs[res.Index].RunID, res.Value.ID, "wait %d got its own run", res.Index)
		assert.Equal(t, ingestly.RunCompleted, res.Value.Status)
		seen[res.Index]++
	}
	for i, n := range seen {
		require.Equal(t, 1, n, "wait %d reported %d times", i, n)
	}
	requests := srv.Requests(ingestlytest.RouteRun)
	t.Logf("%d waits, %d requests (%d faults) in %v", waits, requests, faults, time.Since(start).Round(time.Millisecond))
	// Each job needs its polls, plus one per fault it met. Truncate and
	// slow faults run the real handler, so they may also advance a job.
	assert.LessOrEqual(t, requests, waits*pollsPerJob+faults, "requests are bounded")
	assert.GreaterOrEqual(t, requests, waits*pollsPerJob, "every job was seen to the end")
}
