package durable

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// finishCounter sits between workers and the Ingestly fake and counts, per
// run, the answers of GET /runs/{id} that report it finished (completed,
// failed or cancelled) and the polls, so a test can tell that a job was
// reported finished exactly once.
type finishCounter struct {
	*httptest.Server

	mu       sync.Mutex
	finished map[string]int
	polls    map[string]int
}

func newFinishCounter(t *testing.T, upstream string) *finishCounter {
	t.Helper()
	target, err := url.Parse(upstream)
	require.NoError(t, err)
	f := &finishCounter{finished: map[string]int{}, polls: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = f.inspect
	f.Server = httptest.NewServer(proxy)
	t.Cleanup(f.Close)
	return f
}

func (f *finishCounter) inspect(resp *http.Response) error {
	parts := strings.Split(strings.Trim(resp.Request.URL.Path, "/"), "/")
	if resp.Request.Method != http.MethodGet || len(parts) != 2 || parts[0] != "runs" {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var run struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(body, &run)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls[parts[1]]++
	switch run.Status {
	case "completed", "failed", "cancelled":
		f.finished[parts[1]]++
	}
	return nil
}

// counts returns the finished answers and the polls of a run.
func (f *finishCounter) counts(runID string) (finished, polls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finished[runID], f.polls[runID]
}

// finishedRuns returns how many runs were reported finished, and how many
// more than once.
func (f *finishCounter) finishedRuns() (runs, repeated int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.finished {
		runs++
		if n > 1 {
			repeated++
		}
	}
	return runs, repeated
}
