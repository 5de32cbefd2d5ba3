package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

// clock is a settable time for the progress printer.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func running(raw string) poll.Status { return poll.Status{State: poll.Running, Raw: raw} }

func TestProgressPlainLines(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	p := newProgress(&buf, false, false, 80)
	p.now = c.now
	p.begin("narada task req_1", "timeout 15m")

	p.notify(poll.Attempt{N: 1, Elapsed: 2 * time.Millisecond, Status: running("pending"), Changed: true, Next: 10 * time.Second})
	c.advance(10 * time.Second)
	p.notify(poll.Attempt{N: 2, Elapsed: 10 * time.Second, Status: running("pending"), Next: 20 * time.Second})
	c.advance(20 * time.Second)
	p.notify(poll.Attempt{N: 3, Elapsed: 30 * time.Second, Status: running("pending"), Err: errors.New("GET /x: 503 Service Unavailable"), Next: 40 * time.Second})
	c.advance(70 * time.Second)
	p.notify(poll.Attempt{N: 4, Elapsed: 100 * time.Second, Status: running("pending"), Next: time.Minute})
	c.advance(time.Minute)
	p.notify(poll.Attempt{N: 5, Elapsed: 160 * time.Second, Status: poll.Status{State: poll.Succeeded, Raw: "success"}, Changed: true})
	p.end()

	assert.Equal(t, `jobpoll: waiting for narada task req_1 (timeout 15m)
jobpoll: attempt 1 at 2ms: running ("pending"); next poll in 10s
jobpoll: attempt 3 at 30s failed, retrying: GET /x: 503 Service Unavailable; next poll in 40s
jobpoll: attempt 4 at 1m40s: running ("pending"); next poll in 1m
jobpoll: attempt 5 at 2m40s: succeeded ("success")
`, buf.String(), "attempt 2 changes nothing and is not printed; attempt 4 is the heartbeat")
	assert.NotContains(t, buf.String(), "\r", "no live line outside a terminal")
}

func TestProgressPlainShowsProgressAndSkipsTheFinalError(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newProgress(&buf, false, false, 80)
	p.begin("documind batch b", "timeout 1h")
	p.notify(poll.Attempt{N: 1, Status: poll.Status{State: poll.Running, Raw: "pending", Progress: 0.25}, Changed: true, Next: time.Second})
	p.notify(poll.Attempt{N: 2, Status: poll.Status{State: poll.Running, Raw: "pending", Progress: 0.5}, Next: time.Second})
	p.notify(poll.Attempt{N: 3, Status: poll.Status{State: poll.Failed, Raw: "failed"}, Changed: true, Err: errors.New("poll: job ended failed")})
	p.end()
	out := buf.String()
	assert.Contains(t, out, "25% done")
	assert.Contains(t, out, "50% done", "progress counts as news")
	assert.NotContains(t, out, "job ended failed", "the command reports how the wait ended, once")
}

func TestProgressLiveLine(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	p := newProgress(&buf, true, false, 60)
	p.redraw = 5 * time.Millisecond
	p.begin("ingestly run r1", "timeout 24h")
	p.notify(poll.Attempt{N: 1, Status: poll.Status{State: poll.Waiting, Raw: "review-by-a-person-with-a-very-long-status-word"}, Changed: true, Next: time.Hour})
	time.Sleep(30 * time.Millisecond) // a few redraws of the clock
	p.notify(poll.Attempt{N: 2, Status: poll.Status{State: poll.Succeeded, Raw: "completed"}, Changed: true})
	p.end()
	out := buf.String()

	assert.Contains(t, out, "jobpoll: waiting for ingestly run r1 (timeout 24h)\n")
	assert.Contains(t, out, "jobpoll: attempt 1 at 0s: waiting (\"review-by-a-person-with-a-very-long-status-word\"); next poll in 1h\n",
		"a state change stays on screen as a permanent line")
	assert.Contains(t, out, "\r\x1b[Kjobpoll: waiting (review-by", "the live line is rewritten in place")
	assert.Contains(t, out, "…", "a live line longer than the terminal is clipped")
	assert.Greater(t, strings.Count(out, "\r\x1b[Kjobpoll: waiting (review"), 2, "the clock redraws the line")
	for _, line := range strings.Split(out, "\r\x1b[K") {
		first, _, _ := strings.Cut(line, "\n")
		assert.LessOrEqual(t, len([]rune(first)), 59, "a live line fits the terminal: %q", first)
	}
	assert.True(t, strings.HasSuffix(out, "jobpoll: attempt 2 at 0s: succeeded (\"completed\")\n"),
		"the final state is the last line, with no live line after it: %q", out[max(0, len(out)-60):])

	before := buf.String()
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, before, buf.String(), "the clock stops with end")
}

func TestProgressLiveLineClearedWhenInterrupted(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	p := newProgress(&buf, true, false, 80)
	p.begin("narada task req_1", "timeout 15m")
	p.notify(poll.Attempt{N: 1, Status: running("pending"), Changed: true, Next: time.Minute})
	p.end() // as when Ctrl-C ends the wait during a sleep
	out := buf.String()
	assert.True(t, strings.HasSuffix(out, "\r\x1b[K"),
		"end erases the live line, so the message that follows starts on a clean line: %q", out)
	assert.Contains(t, out, "\r\x1b[Kjobpoll: running (pending) · attempt 1 · 0s elapsed · next poll in 1m")
}

func TestProgressQuiet(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newProgress(&buf, true, true, 80)
	p.begin("narada task req_1", "timeout 15m")
	p.note("dispatched")
	p.notify(poll.Attempt{N: 1, Status: running("pending"), Changed: true, Next: time.Second})
	p.notify(poll.Attempt{N: 2, Status: running("pending"), Err: errors.New("503"), Next: time.Second})
	p.end()
	assert.Empty(t, buf.String())
	last, _, ok := p.lastAttempt()
	require.True(t, ok)
	assert.Equal(t, 2, last.N, "the last attempt is kept for the final message")
}

func TestIsTerminal(t *testing.T) {
	t.Parallel()
	env := func(term string) func(string) string {
		return func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}
	}
	assert.False(t, isTerminal(&bytes.Buffer{}, env("xterm")))
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f, env("xterm")), "a regular file gets plain lines")
	if runtime.GOOS == "windows" {
		return
	}
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer dev.Close()
	assert.True(t, isTerminal(dev, env("xterm")), "a character device")
	assert.False(t, isTerminal(dev, env("dumb")), "TERM=dumb asks for plain lines")
}

func TestShortAndHuman(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0:                                   "0s",
		1500 * time.Microsecond:             "2ms",
		12340 * time.Millisecond:            "12.3s",
		5*time.Minute + 3*time.Second:       "5m3s",
		2 * time.Hour:                       "2h",
		90 * time.Minute:                    "1h30m",
		time.Hour + 30*time.Second:          "1h0m30s",
		-time.Second:                        "0s",
		10 * time.Minute:                    "10m",
		24*time.Hour + 400*time.Millisecond: "24h",
	} {
		assert.Equal(t, want, short(d), "short(%v)", d)
	}
	assert.Equal(t, "15m", human(15*time.Minute))
	assert.Equal(t, "10ms", human(10*time.Millisecond))
}
