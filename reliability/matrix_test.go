package reliability_test

import (
	"errors"
	"flag"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the fault matrix in ../README.md")

// A fault is one row of the matrix: what the fake server does, what the
// wait must do, and the check that proves it for one waiter.
type fault struct {
	name    string
	outcome string
	only    string // a waiter's name when the row applies to it alone
	check   func(t *testing.T, w waiter)
}

func (f fault) applies(w waiter) bool { return f.only == "" || f.only == w.name }

// succeedsDespite injects each fault n times on the waiter's route, then
// expects the job's full result.
func succeedsDespite(n int, faults []fakeapi.Fault, opts ...poll.Option) func(t *testing.T, w waiter) {
	return func(t *testing.T, w waiter) {
		srv, wait := w.newJob(t, finishes)
		for _, f := range faults {
			srv.InjectFault(w.route, n, f)
		}
		result, _, err := wait(t.Context(), append(fast(10*time.Second), opts...)...)
		require.NoError(t, err)
		assert.Equal(t, want, result, "the full result")
		assert.Greater(t, srv.Requests(w.route), n*len(faults), "every fault was met and retried")
	}
}

// honoursRetryAfter answers 429 with a Retry-After and checks that the
// next attempt is scheduled at least that far away. A wake then cuts the
// sleep short, so the test itself does not sleep for it.
func honoursRetryAfter(header func() string, atLeast time.Duration) func(t *testing.T, w waiter) {
	return func(t *testing.T, w waiter) {
		srv, wait := w.newJob(t, finishes)
		srv.InjectFault(w.route, 1, fakeapi.Fault{Status: http.StatusTooManyRequests, RetryAfter: header()})
		wake := make(chan struct{}, 1)
		var next time.Duration
		notify := poll.WithNotify(func(a poll.Attempt) {
			var api *poll.APIError
			if errors.As(a.Err, &api) && api.StatusCode == http.StatusTooManyRequests {
				next = a.Next
				wake <- struct{}{}
			}
		})
		result, _, err := wait(t.Context(), append(fast(10*time.Second), notify, poll.WithWake(wake))...)
		require.NoError(t, err)
		assert.Equal(t, want, result)
		assert.GreaterOrEqual(t, next, atLeast, "the delay after the 429")
	}
}

// endsAtOnce injects f and expects a permanent error after one request,
// naming the status and never the key.
func endsAtOnce(f fakeapi.Fault, mention string) func(t *testing.T, w waiter) {
	return func(t *testing.T, w waiter) {
		srv, wait := w.newJob(t, finishes)
		srv.InjectFault(w.route, 5, f)
		start := time.Now()
		_, _, err := wait(t.Context(), fast(10*time.Second)...)
		require.Error(t, err)
		assert.NotErrorIs(t, err, poll.ErrTimeout)
		assert.Less(t, time.Since(start), 2*time.Second, "ends at once")
		assert.Equal(t, 1, srv.Requests(w.route), "not retried")
		assert.Contains(t, err.Error(), mention)
		for _, key := range []string{documindtest.APIKey, naradatest.APIKey, ingestlytest.APIKey} {
			assert.NotContains(t, err.Error(), key, "the API key never appears")
		}
	}
}

func faults() []fault {
	serverErrors := []fakeapi.Fault{{Status: 500}, {Status: 502}, {Status: 503}, {Status: 504}}
	return []fault{
		{name: "500, 502, 503, 504 (twice each), then recovery", outcome: "retried; full result",
			check: succeedsDespite(2, serverErrors)},
		{name: "429 with `Retry-After: 1`", outcome: "next attempt ≥ 1 s later; full result",
			check: honoursRetryAfter(func() string { return "1" }, time.Second)},
		{name: "429 with `Retry-After` as an HTTP date 3 s ahead", outcome: "next attempt ≥ 1 s later; full result",
			check: honoursRetryAfter(func() string { return time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat) }, time.Second)},
		{name: "connection reset", outcome: "retried; full result",
			check: succeedsDespite(2, []fakeapi.Fault{{CloseConnection: true}})},
		{name: "connection closed mid-body", outcome: "retried; full result",
			check: succeedsDespite(2, []fakeapi.Fault{{Truncate: true}})},
		{name: "answer slower than the attempt timeout", outcome: "retried; full result",
			check: succeedsDespite(1, []fakeapi.Fault{{Delay: 300 * time.Millisecond}}, poll.WithAttemptTimeout(50*time.Millisecond))},
		{name: "truncated JSON with 200", outcome: "transient: retried; full result",
			check: succeedsDespite(2, []fakeapi.Fault{{Body: `{"status": "pend`, ContentType: "application/json"}})},
		{name: "empty body with 200", outcome: "transient: retried; full result",
			check: succeedsDespite(2, []fakeapi.Fault{{Status: 200, ContentType: "application/json"}})},
		{name: "JSON served as `text/plain`", outcome: "accepted; full result",
			check: succeedsDespite(2, []fakeapi.Fault{{ContentType: "text/plain"}})},
		{name: "HTML page with 200", outcome: "permanent: ends at once, quoting the page",
			check: endsAtOnce(fakeapi.Fault{Body: "<html><body>Sign in to the proxy</body></html>", ContentType: "text/html"}, "Sign in to the proxy")},
		{name: "401", outcome: "permanent: ends at once, names 401, never the key",
			check: endsAtOnce(fakeapi.Fault{Status: 401}, "401")},
		{name: "403", outcome: "permanent: ends at once, names 403, never the key",
			check: endsAtOnce(fakeapi.Fault{Status: 403}, "403")},
		{name: "unknown status words", outcome: "not final: keeps polling; full result",
			check: func(t *testing.T, w waiter) {
				_, wait := w.newJob(t, unknownWordThenFinishes)
				var unknown int
				notify := poll.WithNotify(func(a poll.Attempt) {
					if a.Status.State == poll.Unknown && a.Err == nil {
						unknown++
					}
				})
				result, _, err := wait(t.Context(), append(fast(10*time.Second), notify)...)
				require.NoError(t, err)
				assert.Equal(t, want, result)
				assert.Positive(t, unknown, "an unknown word was seen and waited through")
			}},
		{name: "a job that never ends", outcome: "`ErrTimeout` with the last observation",
			check: func(t *testing.T, w waiter) {
				_, wait := w.newJob(t, neverFinishes)
				_, got, err := wait(t.Context(), append(fast(100*time.Millisecond), poll.WithStallTimeout(0))...)
				require.ErrorIs(t, err, poll.ErrTimeout)
				assert.NotNil(t, got, "the last observation comes with the error")
			}},
		{name: "404 for a moment after the trigger", outcome: "Queued (`not_created`), then full result", only: "ingestly run",
			check: succeedsDespite(2, []fakeapi.Fault{{Status: 404}})},
		{name: "a run that never appears", outcome: "`ErrRunNotCreated` naming the document's status", only: "ingestly run",
			check: func(t *testing.T, w waiter) {
				srv := ingestlytest.NewServer()
				t.Cleanup(srv.Close)
				trig := srv.AddRun(ingestlytest.Script{NeverCreated: true, DocumentStatus: ingestly.DocumentFailed})
				c := srv.Client(ingestly.WithRunGracePeriod(30 * time.Millisecond))
				_, err := c.WaitForRun(t.Context(), trig.DocumentID, trig.RunID, fast(10*time.Second)...)
				require.ErrorIs(t, err, ingestly.ErrRunNotCreated)
				assert.Contains(t, err.Error(), "failed")
			}},
		{name: "a batch stuck in `pending`", outcome: "`ErrStalled`", only: "documind batch",
			check: func(t *testing.T, w waiter) {
				_, wait := w.newJob(t, neverFinishes)
				_, got, err := wait(t.Context(), append(fast(10*time.Second), poll.WithStallTimeout(50*time.Millisecond))...)
				require.ErrorIs(t, err, poll.ErrStalled)
				assert.NotNil(t, got)
			}},
	}
}

// TestFaultMatrix runs every fault against every wait helper it applies
// to, and keeps the README's reliability table equal to the rows here.
func TestFaultMatrix(t *testing.T) {
	ws := waiters()
	for _, f := range faults() {
		for _, w := range ws {
			if !f.applies(w) {
				continue
			}
			t.Run(f.name+"/"+w.name, func(t *testing.T) {
				t.Parallel()
				f.check(t, w)
			})
		}
	}
	t.Run("README", func(t *testing.T) { checkReadme(t, matrix(ws)) })
}

func matrix(ws []waiter) string {
	var b strings.Builder
	b.WriteString("| fault (injected by the fake server) |")
	for _, w := range ws {
		b.WriteString(" " + w.name + " |")
	}
	b.WriteString("\n|---|")
	for range ws {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, f := range faults() {
		b.WriteString("| " + f.name + " |")
		for _, w := range ws {
			cell := "n/a"
			if f.applies(w) {
				cell = f.outcome
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

const (
	matrixStart = "<!-- fault-matrix:start (generated by reliability/matrix_test.go; go test ./reliability -run TestFaultMatrix -update-readme) -->\n"
	matrixEnd   = "<!-- fault-matrix:end -->"
)

func checkReadme(t *testing.T, table string) {
	const path = "../README.md"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	readme := string(data)
	start, end := strings.Index(readme, matrixStart), strings.Index(readme, matrixEnd)
	require.True(t, start >= 0 && end > start, "README.md has no fault-matrix markers")
	current := readme[start+len(matrixStart) : end]
	if *updateReadme {
		readme = readme[:start+len(matrixStart)] + table + readme[end:]
		require.NoError(t, os.WriteFile(path, []byte(readme), 0o644))
		return
	}
	assert.Equal(t, table, current, "the README's fault matrix has drifted: run go test ./reliability -run TestFaultMatrix -update-readme")
}
