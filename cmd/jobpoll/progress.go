package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jobpoll/poll"
)

// heartbeat is how often, at most, plain progress repeats an unchanged
// status: often enough that a CI system watching for silent jobs sees the
// wait is alive, rarely enough to keep the log short.
const heartbeat = time.Minute

// redrawEvery is how often the live line on a terminal refreshes its
// clocks.
const redrawEvery = time.Second

// progress reports a wait on stderr. On a terminal it keeps one live line
// (rewritten with \r) and prints a permanent line for each state change or
// error; elsewhere (a CI log, a file) it prints plain lines: state changes,
// errors, and a heartbeat when nothing changed for a minute. Quiet prints
// nothing. Its methods are safe for concurrent use: the live line's clock
// runs on its own goroutine, stopped by end.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	live   bool
	quiet  bool
	width  int
	now    func() time.Time
	redraw time.Duration

	start    time.Time
	last     poll.Attempt
	lastAt   time.Time // when the last attempt was reported
	seen     bool
	printed  time.Time // plain mode: when the last line was printed
	progress float64   // the last progress printed
	onScreen bool      // live mode: the live line is drawn

	stop chan struct{}
	done chan struct{}
}

// newProgress reports to w. live draws a live line (w is a terminal);
// width bounds that line so that \r can rewrite it.
func newProgress(w io.Writer, live, quiet bool, width int) *progress {
	if width <= 0 {
		width = 80
	}
	return &progress{w: w, live: live, quiet: quiet, width: width, now: time.Now, redraw: redrawEvery}
}

// isTerminal reports whether w is a terminal that can take a live line:
// a character device, and TERM is not "dumb".
func isTerminal(w io.Writer, getenv func(string) string) bool {
	f, ok := w.(*os.File)
	if !ok || getenv("TERM") == "dumb" {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// terminalWidth reads COLUMNS, as shells export it; 80 otherwise.
func terminalWidth(getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 80
}

// note prints a permanent line, e.g. "dispatched narada task req_1".
func (p *progress) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lineLocked(fmt.Sprintf(format, args...))
}

// begin starts a wait on what and says how it will go.
func (p *progress) begin(what, how string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start, p.seen = p.now(), false
	p.lineLocked(fmt.Sprintf("waiting for %s (%s)", what, how))
	if p.live && !p.quiet {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick(p.stop, p.done)
	}
}

// tick refreshes the live line's clocks until stop is closed.
func (p *progress) tick(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(p.redraw)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.drawLocked()
			p.mu.Unlock()
		}
	}
}

// notify is the wait's poll.WithNotify hook: it runs after every attempt.
func (p *progress) notify(a poll.Attempt) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.last, p.lastAt, p.seen = a, now, true
	final := a.Next == 0 && (a.Err != nil || a.Status.State.Final())
	switch {
	case a.Err != nil && final:
		// The command reports how the wait ended; no line twice.
	case a.Err != nil:
		p.lineLocked(fmt.Sprintf("attempt %d at %s failed, retrying: %v; next poll in %s", a.N, short(a.Elapsed), a.Err, short(a.Next)))
	case a.Changed, a.Status.Progress != p.progress,
		!p.live && now.Sub(p.printed) >= heartbeat:
		p.progress = a.Status.Progress
		p.lineLocked(attemptLine(a))
	}
	if !final {
		p.drawLocked()
	}
}

// attemptLine is one attempt in a permanent line.
func attemptLine(a poll.Attempt) string {
	line := fmt.Sprintf("attempt %d at %s: %s", a.N, short(a.Elapsed), a.Status)
	if a.Status.Progress > 0 {
		line += fmt.Sprintf(", %.0f%% done", 100*a.Status.Progress)
	}
	if a.Next > 0 {
		line += "; next poll in " + short(a.Next)
	}
	return line
}

// end stops the live line's clock and clears the line, so that what
// follows starts on a clean line.
func (p *progress) end() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

// lastAttempt returns the last attempt reported, if any.
func (p *progress) lastAttempt() (poll.Attempt, time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last, p.now().Sub(p.start), p.seen
}

// lineLocked prints a permanent line, above the live line.
func (p *progress) lineLocked(text string) {
	if p.quiet {
		return
	}
	p.clearLocked()
	fmt.Fprintf(p.w, "jobpoll: %s\n", text)
	p.printed = p.now()
}

// drawLocked (re)draws the live line: the status, the attempt, the time
// waited and a countdown to the next poll.
func (p *progress) drawLocked() {
	if !p.live || p.quiet || p.stop == nil {
		return
	}
	now := p.now()
	text := "waiting for the first answer"
	if p.seen {
		st := p.last.Status.State.String()
		if raw := p.last.Status.Raw; raw != "" && raw != st {
			st += fmt.Sprintf(" (%s)", raw)
		}
		text = fmt.Sprintf("%s · attempt %d", st, p.last.N)
		if p.last.Status.Progress > 0 {
			text += fmt.Sprintf(" · %.0f%%", 100*p.last.Status.Progress)
		}
	}
	text += " · " + short(now.Sub(p.start).Truncate(time.Second)) + " elapsed"
	if p.seen && p.last.Next > 0 {
		left := p.lastAt.Add(p.last.Next).Sub(now)
		text += " · next poll in " + short(max(left, 0).Round(time.Second))
	}
	fmt.Fprint(p.w, "\r\x1b[K"+clip("jobpoll: "+text, p.width-1))
	p.onScreen = true
}

// clearLocked erases the live line, if drawn.
func (p *progress) clearLocked() {
	if p.onScreen {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.onScreen = false
	}
}

// clip keeps a live line within the terminal's width: a line that wraps
// cannot be rewritten with \r.
func clip(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// short writes a duration for people: "12ms", "4.2s", "5m3s", "2h".
func short(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return human(d.Round(time.Second))
}

// plural writes "1 attempt", "3 attempts".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// oneLine keeps a multi-line reason (an agent's question) on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
