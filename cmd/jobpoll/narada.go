package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

// naradaPolling is Narada's schedule after the first poll, as
// narada.TaskBackoff makes it.
const naradaPolling = "every 10% of the time waited so far, between 10s and 1m"

var (
	// waitNaradaDefaults: a task being waited for may be old, or done
	// already, so the first poll runs at once, not after the 10 s the
	// library leaves a task it has just dispatched.
	waitNaradaDefaults = defaults{timeout: narada.DefaultTaskTimeout, polling: "Narada's schedule: at once, then " + naradaPolling}
	runNaradaDefaults  = defaults{timeout: narada.DefaultTaskTimeout, polling: "Narada's schedule: 10s after the dispatch, then " + naradaPolling}
)

var waitNaradaCmd = &command{
	path:     "wait narada",
	args:     "<requestId>",
	summary:  "wait for a Narada browser task to finish, print its answer",
	defaults: waitNaradaDefaults,
	help: `Waits for a Narada Remote Dispatch task (the requestId that POST
/remote-dispatch answered) until it ends, and prints the agent's answer
(response.text) on stdout.

  success         exit 0, the answer on stdout
  error           exit 1
  input-required  exit 2: the agent asks a question (shown on stderr); answer
                  it in Narada, then wait again

Examples:
  jobpoll wait narada req_abc123def456
  jobpoll wait narada req_abc123def456 --timeout 30m --json > task.json
  jobpoll wait narada "$REQUEST_ID" --quiet || echo "the task did not succeed: $?"`,
	setup: func(fs *flag.FlagSet) execFunc {
		return func(ctx context.Context, s *session, args []string) error {
			if err := s.wantArgs(args, "the request id"); err != nil {
				return err
			}
			c, key, err := s.naradaClient()
			if err != nil {
				return err
			}
			return s.waitNarada(ctx, c, key, args[0], poll.WithInitialDelay(0))
		}
	},
}

var runNaradaCmd = &command{
	path:     "run narada",
	args:     "--prompt <text> --window <browserWindowId>",
	summary:  "dispatch a Narada browser task and wait for it, print its answer",
	defaults: runNaradaDefaults,
	help: `Starts a Narada task (POST /remote-dispatch) and waits for it like
'jobpoll wait narada'. The request id goes to stderr as soon as the task is
dispatched, so an interrupted wait can be resumed.

Flags:
  --prompt TEXT   what the agent should do (required; "-" reads it from
                  stdin). Start it with /Operator for the web agent
  --window ID     the browser window to run in (required in client mode)
  --mode MODE     client (default: your own browser window, needs --window),
                  cloud or cloud_browser (Narada's browsers)

The dispatch itself is never retried: Narada has no idempotency key, and a
retry after a lost answer could run the task twice.

Examples:
  jobpoll run narada --prompt "/Operator find the cheapest flight to Oslo" --window "$WINDOW"
  echo "/Operator summarise https://example.com" | jobpoll run narada --prompt - --mode cloud --json`,
	setup: func(fs *flag.FlagSet) execFunc {
		var prompt, window, mode string
		fs.StringVar(&prompt, "prompt", "", "what the agent should do")
		fs.StringVar(&window, "window", "", "the browser window id")
		fs.StringVar(&mode, "mode", "", "client, cloud or cloud_browser")
		return func(ctx context.Context, s *session, args []string) error {
			if err := s.wantArgs(args); err != nil {
				return err
			}
			req, err := s.dispatchRequest(prompt, window, mode)
			if err != nil {
				return err
			}
			c, key, err := s.naradaClient()
			if err != nil {
				return err
			}
			d, err := c.Dispatch(ctx, req)
			if err != nil {
				return &failure{subject: "dispatching the narada task", key: key, err: err,
					hint: "The task may or may not have started: look in Narada before running it again."}
			}
			s.progress.note("dispatched narada task %s", d.RequestID)
			return s.waitNarada(ctx, c, key, d.RequestID)
		}
	},
}

// dispatchRequest checks the flags of run narada, in their own words.
func (s *session) dispatchRequest(prompt, window, mode string) (narada.DispatchRequest, error) {
	req := narada.DispatchRequest{BrowserWindowID: window, ExecutionMode: narada.ExecutionMode(mode)}
	switch req.ExecutionMode {
	case "", narada.ExecutionModeClient:
		if strings.TrimSpace(window) == "" {
			return req, usagef("--window is required: the id of the browser window the agent runs in (or --mode cloud to run in Narada's browsers)")
		}
	case narada.ExecutionModeCloud, narada.ExecutionModeCloudBrowser:
	default:
		return req, usagef("--mode %q: want client, cloud or cloud_browser", mode)
	}
	if prompt == "-" {
		data, err := s.readAll("-", "--prompt")
		if err != nil {
			return req, err
		}
		prompt = string(data)
	}
	req.Prompt = strings.TrimSpace(prompt)
	if req.Prompt == "" {
		return req, usagef("--prompt is required: what the agent should do, e.g. --prompt \"/Operator search for flights to Oslo\"")
	}
	return req, nil
}

// naradaClient builds a client from the key and the flags.
func (s *session) naradaClient() (*narada.Client, string, error) {
	key, source, err := s.apiKey(naradaProvider)
	if err != nil {
		return nil, "", err
	}
	opts := []narada.Option{narada.WithHTTPClient(s.http), narada.WithUserAgent(userAgent())}
	if s.opts.baseURL != "" {
		opts = append(opts, narada.WithBaseURL(s.opts.baseURL))
	}
	c, err := narada.New(key, opts...)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return c, source, nil
}

// waitNarada waits for a task and prints its answer.
func (s *session) waitNarada(ctx context.Context, c *narada.Client, key, requestID string, extra ...poll.Option) error {
	task, err := await(ctx, s, job[*narada.TaskResponse]{
		subject: "narada task " + requestID,
		again:   s.again("wait", "narada", requestID),
		key:     key,
		extra:   extra,
		wait: func(ctx context.Context, opts ...poll.Option) (*narada.TaskResponse, error) {
			return c.WaitForTask(ctx, requestID, opts...)
		},
	})
	return s.finish(task != nil, task, func(w io.Writer) error {
		return writeLine(w, naradaAnswer(task))
	}, err)
}

// naradaAnswer is a finished task's result: the agent's text, or the
// structured output when there is no text.
func naradaAnswer(t *narada.TaskResponse) string {
	if t.Response == nil {
		return ""
	}
	if t.Response.Text == "" && len(t.Response.StructuredOutput) > 0 {
		return string(t.Response.StructuredOutput)
	}
	return t.Response.Text
}
