package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

// testConfig is a Config for tests: fast polling, quick rescue, logs at
// Warn into the test's output.
func testConfig(t testing.TB, kinds ...Kind) Config {
	return Config{
		Kinds:        kinds,
		PollInterval: 50 * time.Millisecond,
		JobTimeout:   5 * time.Second,
		RescueAfter:  10 * time.Second,
		Logger:       testLogger(t),
	}
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// tempDB is a fresh SQLite file in the test's temp dir.
func tempDB(t testing.TB) string {
	return filepath.Join(t.TempDir(), "waits.db")
}

// openClient opens a client, closed at the end of the test.
func openClient(t testing.TB, dsn string, cfg Config) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Open(ctx, dsn, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// startClient opens a client and starts it working waits.
func startClient(t testing.TB, dsn string, cfg Config) *Client {
	t.Helper()
	c := openClient(t, dsn, cfg)
	require.NoError(t, c.Start(context.Background()))
	return c
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// fakeJobs is an in-memory API for a custom kind "fake/job": each job
// follows a script of statuses, one per poll, the last one repeating.
type fakeJobs struct {
	mu      sync.Mutex
	scripts map[string][]fakeAnswer
	polls   map[string]int
}

type fakeAnswer struct {
	Status string `json:"status"`
	err    error
}

func newFakeJobs() *fakeJobs {
	return &fakeJobs{scripts: map[string][]fakeAnswer{}, polls: map[string]int{}}
}

func (f *fakeJobs) add(id string, answers ...fakeAnswer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripts[id] = answers
}

func (f *fakeJobs) pollsOf(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls[id]
}

func (f *fakeJobs) get(_ context.Context, id string) (*fakeAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	script, ok := f.scripts[id]
	if !ok {
		return nil, &poll.APIError{StatusCode: 404, Method: "GET", URL: "fake://jobs/" + id, Message: "no such job"}
	}
	n := f.polls[id]
	f.polls[id]++
	a := script[min(n, len(script)-1)]
	if a.err != nil {
		return nil, a.err
	}
	return &a, nil
}

func fakeStatus(a *fakeAnswer) poll.Status {
	switch a.Status {
	case "done":
		return poll.Status{State: poll.Succeeded, Raw: a.Status}
	case "failed":
		return poll.Status{State: poll.Failed, Raw: a.Status, Reason: "it broke"}
	case "queued":
		return poll.Status{State: poll.Queued, Raw: a.Status}
	}
	return poll.Status{State: poll.Running, Raw: a.Status}
}

// kind registers the fake as the custom kind "fake/job", ids {"id"}.
func (f *fakeJobs) kind(defaults Options) Kind {
	return NewKind("fake", "job", func(t Target, opts ...poll.Option) (*poll.Poller[*fakeAnswer], error) {
		id := t.ID("id")
		return poll.New(func(ctx context.Context) (*fakeAnswer, error) { return f.get(ctx, id) }, fakeStatus, opts...), nil
	}, KindConfig{IDs: []string{"id"}, Defaults: defaults})
}

func fakeTarget(id string) Target {
	return Target{Provider: "fake", Kind: "job", IDs: map[string]string{"id": id}}
}

func answers(words ...string) []fakeAnswer {
	out := make([]fakeAnswer, len(words))
	for i, w := range words {
		out[i] = fakeAnswer{Status: w}
	}
	return out
}

func fast() Options {
	return Options{Strategy: new(ConstantSpec(10 * time.Millisecond)), Timeout: time.Minute}
}

func fmtID(prefix string, i int) string { return fmt.Sprintf("%s-%03d", prefix, i) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
