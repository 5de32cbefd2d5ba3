// Command narada-task dispatches a Narada browser task and waits for it,
// twice: (1) by polling alone, (2) with a webhook receiver that wakes the
// wait the moment the task is done, so the result arrives before the next
// scheduled poll and with fewer polls.
//
// It runs against the in-process fake server (naradatest) by default, with
// delays scaled down so it finishes in a few seconds. With NARADA_API_KEY
// set it runs against the real API:
//
//	NARADA_API_KEY            the API key (x-api-key)
//	NARADA_BROWSER_WINDOW_ID  the browser window to run in (client mode)
//	NARADA_EXECUTION_MODE     client (default), cloud or cloud_browser
//	NARADA_PROMPT             default "/Operator search for software engineering jobs"
//	NARADA_CALLBACK_URL       a public HTTPS URL that reaches this program's
//	                          receiver; without it the webhook variant is skipped
//	NARADA_WEBHOOK_ADDR       where the receiver listens, default ":8080"
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "narada-task:", err)
		os.Exit(1)
	}
}

// setup is what differs between the fake and the real API.
type setup struct {
	name     string
	client   func(opts ...narada.Option) (*narada.Client, error)
	request  narada.DispatchRequest
	polling  []poll.Option // variant 1
	fallback []poll.Option // variant 2: webhooks first, polling behind
	// fallbackText says how often variant 2 polls.
	fallbackText string
	// listen and callbackURL place the webhook receiver; callbackURL is
	// nil when the webhook variant cannot run.
	listen      string
	callbackURL func(addr string) string
	close       func()
}

func run(ctx context.Context, out io.Writer) error {
	s := configure()
	defer s.close()
	fmt.Fprintf(out, "narada-task against %s\n", s.name)

	fmt.Fprintln(out, "\n1. dispatch, then poll until the task is done")
	c, err := s.client()
	if err != nil {
		return err
	}
	polled, err := wait(ctx, out, c, s.request, s.polling...)
	if err != nil {
		return err
	}

	fmt.Fprintf(out, "\n2. dispatch with a callbackUrl: the webhook wakes the wait; polling %s is the fallback\n", s.fallbackText)
	if s.callbackURL == nil {
		fmt.Fprintln(out, "   skipped: set NARADA_CALLBACK_URL to a public HTTPS URL that reaches NARADA_WEBHOOK_ADDR")
		return nil
	}
	secret := rand.Text() // echoed back by Narada inside the payload
	hooks, err := narada.NewWebhooks(secret, narada.OnWebhook(func(_ context.Context, p *narada.WebhookPayload) error {
		fmt.Fprintf(out, "   webhook: %s is %s, waking the wait\n", p.RequestID, p.Status)
		return nil
	}))
	if err != nil {
		return err
	}
	addr, shutdown, err := serve(s.listen, hooks)
	if err != nil {
		return err
	}
	defer shutdown()

	req := s.request
	req.CallbackURL, req.CallbackSecret = s.callbackURL(addr), secret
	c, err = s.client(narada.WithWebhooks(hooks))
	if err != nil {
		return err
	}
	woken, err := wait(ctx, out, c, req, s.fallback...)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\npolling alone: %s, %.2fs; with the webhook: %s, %.2fs\n",
		polls(polled.polls), polled.elapsed.Seconds(), polls(woken.polls), woken.elapsed.Seconds())
	return nil
}

type outcome struct {
	polls   int
	elapsed time.Duration
}

// wait runs one task and prints every attempt.
func wait(ctx context.Context, out io.Writer, c *narada.Client, req narada.DispatchRequest, opts ...poll.Option) (outcome, error) {
	var o outcome
	notify := poll.WithNotify(func(a poll.Attempt) {
		o.polls, o.elapsed = a.N, a.Elapsed
		line := fmt.Sprintf("   attempt %2d  +%5.2fs  %-28s", a.N, a.Elapsed.Seconds(), a.Status)
		switch {
		case a.Err != nil && a.Next > 0:
			line += "  error (will retry): " + a.Err.Error()
		case a.Changed:
			line += "  <- state changed"
		}
		if a.Next > 0 {
			line += fmt.Sprintf("  next poll in %v", a.Next.Round(time.Millisecond))
		}
		fmt.Fprintln(out, line)
	})
	task, err := c.Run(ctx, req, append(opts, notify)...)
	switch {
	case errors.Is(err, poll.ErrInputRequired):
		fmt.Fprintf(out, "   %s needs input: %s\n", task.RequestID, text(task))
		return o, nil
	case err != nil:
		return o, err
	}
	fmt.Fprintf(out, "   %s finished in %.2fs after %s: %s\n", task.RequestID, o.elapsed.Seconds(), polls(o.polls), text(task))
	return o, nil
}

func polls(n int) string {
	if n == 1 {
		return "1 poll"
	}
	return fmt.Sprintf("%d polls", n)
}

// text is the task's answer, or a placeholder when it came without one.
func text(t *narada.TaskResponse) string {
	if t.Response == nil {
		return "(no response text)"
	}
	return t.Response.Text
}

// serve starts the webhook receiver and returns its address.
func serve(listen string, hooks http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return "", nil, fmt.Errorf("webhook receiver: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/narada", hooks)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

func configure() *setup {
	if key := os.Getenv("NARADA_API_KEY"); key != "" {
		return realAPI(key)
	}
	return fakeAPI()
}

// fakeAPI scripts a task that runs 1.5 s and scales the real defaults
// down 25 times: the first poll after 400 ms instead of 10 s, then every
// 10% of the time waited, at least 400 ms.
func fakeAPI() *setup {
	srv := naradatest.NewServer()
	srv.SetDispatchSteps(
		naradatest.Step{Status: narada.StatusSuccess, Text: "Found 1,234 software engineering job listings.", After: 1500 * time.Millisecond},
	)
	const first = narada.TaskFirstPoll / 25
	return &setup{
		name:   "the in-process fake server (set NARADA_API_KEY for the real API)",
		client: func(opts ...narada.Option) (*narada.Client, error) { return srv.Client(opts...), nil },
		request: narada.DispatchRequest{
			Prompt:          "/Operator search for software engineering jobs",
			BrowserWindowID: "fake-window",
		},
		polling: []poll.Option{
			poll.WithInitialDelay(first),
			poll.WithBackoff(poll.ProportionalFrom(first, 0.1, first, time.Minute/25)),
			poll.WithTimeout(30 * time.Second),
		},
		fallbackText: "every 5 s",
		fallback: []poll.Option{
			poll.WithInitialDelay(5 * time.Second),
			poll.WithBackoff(poll.Constant(5 * time.Second)),
			poll.WithTimeout(30 * time.Second),
		},
		listen:      "127.0.0.1:0",
		callbackURL: func(addr string) string { return "http://" + addr + "/hooks/narada" },
		close:       srv.Close,
	}
}

// realAPI reads the task and the receiver from the environment and uses
// the provider's defaults.
func realAPI(key string) *setup {
	req := narada.DispatchRequest{
		Prompt:          os.Getenv("NARADA_PROMPT"),
		BrowserWindowID: os.Getenv("NARADA_BROWSER_WINDOW_ID"),
		ExecutionMode:   narada.ExecutionMode(os.Getenv("NARADA_EXECUTION_MODE")),
	}
	if req.Prompt == "" {
		req.Prompt = "/Operator search for software engineering jobs"
	}
	s := &setup{
		name: narada.DefaultBaseURL,
		client: func(opts ...narada.Option) (*narada.Client, error) {
			return narada.New(key, append([]narada.Option{narada.WithUserAgent("narada-task-example")}, opts...)...)
		},
		request:      req,
		polling:      nil, // the provider's defaults: TaskFirstPoll, TaskBackoff, DefaultTaskTimeout
		fallbackText: "once a minute",
		fallback:     []poll.Option{poll.WithInitialDelay(time.Minute), poll.WithBackoff(poll.Constant(time.Minute))},
		listen:       os.Getenv("NARADA_WEBHOOK_ADDR"),
		close:        func() {},
	}
	if s.listen == "" {
		s.listen = ":8080"
	}
	if u := os.Getenv("NARADA_CALLBACK_URL"); u != "" {
		s.callbackURL = func(string) string { return u }
	}
	return s
}
