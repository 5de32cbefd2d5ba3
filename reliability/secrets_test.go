package reliability_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// secret is the key every client below is given. No fake server accepts
// it, and some echo it back, as a careless API might.
const secret = "sk-live-7f3a9c1e5b2d4f6a8c0e"

// lockedBuffer collects log output from concurrent waits.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// echoServer plays every provider at once: it refuses the key, and quotes
// it back in its error body, in the header a provider would read, and in
// a redirect target, in turn.
func echoServer(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		turn := n % 4
		mu.Unlock()
		key := r.Header.Get("X-API-Key")
		switch turn {
		case 0:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"detail":"invalid key ` + key + `","error":"` + key + `"}`))
		case 1:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"type":"https://errors/` + key + `","title":"Forbidden","detail":"key ` + key + ` lacks a scope"}`))
		case 2:
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`<html>your key is ` + key + `</html>`))
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(key))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// call is one client method, driven into an error.
type call struct {
	name string
	do   func(ctx context.Context, opts ...poll.Option) error
}

func calls(t *testing.T, base string) []call {
	dm, err := documind.New(secret, documind.WithBaseURL(base))
	require.NoError(t, err)
	na, err := narada.New(secret, narada.WithBaseURL(base))
	require.NoError(t, err)
	in, err := ingestly.New(secret, ingestly.WithBaseURL(base), ingestly.WithTriggerRetry(2, poll.Constant(time.Millisecond)), ingestly.WithRunGracePeriod(time.Millisecond))
	require.NoError(t, err)
	const doc = "550e8400-e29b-41d4-a716-446655440000"
	errOf := func(_ any, err error) error { return err }
	return []call{
		{"documind.Extract", func(ctx context.Context, _ ...poll.Option) error {
			return errOf(dm.Extract(ctx, doc, documind.ExtractRequest{Prompt: "x"}))
		}},
		{"documind.Extractions", func(ctx context.Context, _ ...poll.Option) error {
			return errOf(dm.Extractions(ctx, documind.ExtractionQuery{DocumentID: doc}))
		}},
		{"documind.StartBatch", func(ctx context.Context, _ ...poll.Option) error {
			return errOf(dm.StartBatch(ctx, documind.BatchRequest{DocumentIDs: []string{doc}}))
		}},
		{"documind.Batch", func(ctx context.Context, _ ...poll.Option) error { return errOf(dm.Batch(ctx, doc)) }},
		{"documind.WaitForReview", func(ctx context.Context, o ...poll.Option) error { return errOf(dm.WaitForReview(ctx, doc, o...)) }},
		{"documind.WaitForBatch", func(ctx context.Context, o ...poll.Option) error { return errOf(dm.WaitForBatch(ctx, doc, o...)) }},
		{"documind.WaitForReviews", func(ctx context.Context, o ...poll.Option) error {
			var errs []error
			for r := range dm.WaitForReviews(ctx, []string{doc, "../bad"}, o...) {
				errs = append(errs, r.Err)
			}
			return errors.Join(errs...)
		}},
		{"narada.Dispatch", func(ctx context.Context, _ ...poll.Option) error {
			return errOf(na.Dispatch(ctx, narada.DispatchRequest{Prompt: "x", BrowserWindowID: "w"}))
		}},
		{"narada.Task", func(ctx context.Context, _ ...poll.Option) error { return errOf(na.Task(ctx, "req_1")) }},
		{"narada.WaitForTask", func(ctx context.Context, o ...poll.Option) error { return errOf(na.WaitForTask(ctx, "req_1", o...)) }},
		{"narada.Run", func(ctx context.Context, o ...poll.Option) error {
			return errOf(na.Run(ctx, narada.DispatchRequest{Prompt: "x", BrowserWindowID: "w"}, o...))
		}},
		{"ingestly.Trigger", func(ctx context.Context, _ ...poll.Option) error {
			return errOf(in.Trigger(ctx, "wf_1", ingestly.TriggerRequest{Filename: "a.pdf", File: []byte("%PDF")}))
		}},
		{"ingestly.Run", func(ctx context.Context, _ ...poll.Option) error { return errOf(in.Run(ctx, "run_1")) }},
		{"ingestly.Document", func(ctx context.Context, _ ...poll.Option) error { return errOf(in.Document(ctx, doc)) }},
		{"ingestly.DocumentRuns", func(ctx context.Context, _ ...poll.Option) error { return errOf(in.DocumentRuns(ctx, doc)) }},
		{"ingestly.OriginalFile", func(ctx context.Context, _ ...poll.Option) error { return errOf(in.OriginalFile(ctx, doc)) }},
		{"ingestly.RunOutput", func(ctx context.Context, _ ...poll.Option) error { return errOf(in.RunOutput(ctx, "run_1", "node")) }},
		{"ingestly.ReviewTasks", func(ctx context.Context, _ ...poll.Option) error {
			return errOf(in.ReviewTasks(ctx, ingestly.ReviewTaskQuery{RunID: "run_1"}))
		}},
		{"ingestly.AllReviewTasks", func(ctx context.Context, _ ...poll.Option) error {
			for _, err := range in.AllReviewTasks(ctx, ingestly.ReviewTaskQuery{RunID: "run_1"}) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"ingestly.WaitForRun", func(ctx context.Context, o ...poll.Option) error {
			return errOf(in.WaitForRun(ctx, doc, "run_1", o...))
		}},
		{"ingestly.WaitForRun held", func(ctx context.Context, o ...poll.Option) error { return errOf(in.WaitForRun(ctx, doc, "", o...)) }},
	}
}

// TestKeyNeverInErrorsOrLogs drives every client method into every error
// path (refused key echoed back in JSON, in a problem, in an HTML page, in
// a 503 body; a server that is gone; a deadline) and scans every error
// text and every log line for the key.
func TestKeyNeverInErrorsOrLogs(t *testing.T) {
	echo := echoServer(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for _, base := range []string{echo.URL, gone.URL} {
		for _, c := range calls(t, base) {
			for round := range 4 { // each turn of the echo server
				ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
				err := c.do(ctx, poll.WithBackoff(poll.Constant(time.Millisecond)), poll.WithInitialDelay(0),
					poll.WithMaxErrors(3), poll.WithLogger(logger), poll.WithTimeout(150*time.Millisecond))
				cancel()
				require.Error(t, err, "%s round %d against %s", c.name, round, base)
				assert.NotContains(t, err.Error(), secret, "%s: the key in an error", c.name)
				var api *poll.APIError
				if errors.As(err, &api) {
					for _, field := range []string{api.URL, api.Code, api.Message} {
						assert.NotContains(t, field, secret, "%s: the key in an APIError field", c.name)
					}
				}
			}
		}
	}
	out := logs.String()
	require.NotEmpty(t, out, "the waits logged")
	assert.NotContains(t, out, secret, "the key in a log line")
	assert.True(t, strings.Contains(out, "[redacted]") || strings.Contains(out, "401"), "the logs do carry the errors")
}

// TestClientsRefuseUnsafeBaseURLs: a plain-http base URL to anything but
// loopback is refused before a request could carry the key.
func TestClientsRefuseUnsafeBaseURLs(t *testing.T) {
	for _, base := range []string{"http://api.example.com", "http://10.0.0.8:8080", "ftp://api.example.com", "https://user:pw@api.example.com"} {
		_, err := documind.New(secret, documind.WithBaseURL(base))
		assert.Error(t, err, base)
		_, err = narada.New(secret, narada.WithBaseURL(base))
		assert.Error(t, err, base)
		_, err = ingestly.New(secret, ingestly.WithBaseURL(base))
		assert.Error(t, err, base)
		if err != nil {
			assert.NotContains(t, err.Error(), secret)
		}
	}
	for _, base := range []string{"http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"} {
		_, err := documind.New(secret, documind.WithBaseURL(base))
		assert.NoError(t, err, "loopback is allowed for the fake servers: %s", base)
	}
}

// TestLargeResponsesAreCut: a response over the size limit is refused
// with a clear error naming the limit, not read into memory.
func TestLargeResponsesAreCut(t *testing.T) {
	huge := fakeapi.Fault{Body: `{"pad":"` + strings.Repeat("x", 64<<10) + `"}`, ContentType: "application/json"}
	const limit = 4096
	dm := documindtest.NewServer()
	defer dm.Close()
	dm.InjectFault(documindtest.RouteBatch, 1, huge)
	_, err := dm.Client(documind.WithMaxResponseBytes(limit)).Batch(t.Context(), "550e8400-e29b-41d4-a716-446655440000")
	require.ErrorContains(t, err, "over the 4096-byte limit")

	na := naradatest.NewServer()
	defer na.Close()
	na.InjectFault(naradatest.RouteTask, 1, huge)
	_, err = na.Client(narada.WithMaxResponseBytes(limit)).Task(t.Context(), "req_1")
	require.ErrorContains(t, err, "over the 4096-byte limit")

	in := ingestlytest.NewServer()
	defer in.Close()
	in.InjectFault(ingestlytest.RouteRun, 1, huge)
	_, err = in.Client(ingestly.WithMaxResponseBytes(limit)).Run(t.Context(), "run_1")
	require.ErrorContains(t, err, "over the 4096-byte limit")
}
