package ingestly

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/internal/httpapi"
)

// DefaultBaseURL is the root of the Ingestly API.
const DefaultBaseURL = "https://api.ingestly.ai"

// authHeader carries the API key on every request.
const authHeader = "X-Api-Key"

// DefaultRunGracePeriod is how long a run id from Trigger may answer
// 404 Not Found before WaitForRun stops treating it as "not created yet".
// Ingestly answers 404 "for a moment" after the trigger; 30 seconds covers
// that moment with a wide margin without hiding a run that never starts for
// long.
const DefaultRunGracePeriod = 30 * time.Second

// DefaultTriggerAttempts is how many times Trigger sends the same request
// (same Idempotency-Key, same body) when an attempt fails transiently.
const DefaultTriggerAttempts = 3

// Client calls the Ingestly API. It is safe for concurrent use.
type Client struct {
	api             *httpapi.Client
	runGrace        time.Duration
	triggerAttempts int
	triggerBackoff  poll.Strategy
}

// Option configures a Client.
type Option func(*options)

type options struct {
	http            httpapi.Config
	runGrace        time.Duration
	triggerAttempts int
	triggerBackoff  poll.Strategy
}

// WithBaseURL points the client at another server, such as the fake in
// ingestlytest. Default: [DefaultBaseURL]. Plain http is refused except for
// loopback hosts, so the key never travels unencrypted.
func WithBaseURL(u string) Option {
	return func(o *options) { o.http.BaseURL = u }
}

// WithHTTPClient sends requests through c, e.g. one with a proxy or a test
// transport. Default: http.DefaultClient. The client passed in is not
// modified.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.http.HTTPClient = c }
}

// WithUserAgent puts product (e.g. "invoice-bot/2.1") before the library's
// own "jobpoll/<version>" token, so your traffic can be told apart.
func WithUserAgent(product string) Option {
	return func(o *options) { o.http.UserAgent = product }
}

// WithMaxResponseBytes bounds how much of a response is read, so a
// misbehaving server cannot exhaust memory. Default: 16 MiB, which holds
// the largest inline run output (10 MB, a third more once base64-encoded);
// 0 keeps the default; a negative n makes New fail.
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) { o.http.MaxBodyBytes = n }
}

// WithRunGracePeriod sets how long [Client.WaitForRun] treats a 404 for the
// run as "not created yet" before it reads the document and gives up with
// [ErrRunNotCreated]. Default: [DefaultRunGracePeriod]. 0 gives up at the
// first 404; a negative d makes New fail.
func WithRunGracePeriod(d time.Duration) Option {
	return func(o *options) { o.runGrace = d }
}

// WithTriggerRetry sets how [Client.Trigger] retries a transient failure
// (network error, 408, 425, 429, 5xx): at most attempts sends in all, with
// the delays of s between them (raised to the server's Retry-After).
// Default: [DefaultTriggerAttempts] with poll.Exponential(500ms, 5s).
// attempts 1 turns the retry off; attempts below 1 make New fail; a nil s
// keeps the default delays.
func WithTriggerRetry(attempts int, s poll.Strategy) Option {
	return func(o *options) {
		o.triggerAttempts = attempts
		if s != nil {
			o.triggerBackoff = s
		}
	}
}

// New returns a client that authenticates with apiKey, sent in the
// X-Api-Key header. It returns an error, never panics, for an empty key, a
// base URL that does not parse, plain http to a host other than loopback,
// or an invalid option.
func New(apiKey string, opts ...Option) (*Client, error) {
	o := options{
		http: httpapi.Config{
			Name:       "ingestly",
			BaseURL:    DefaultBaseURL,
			AuthHeader: authHeader,
			APIKey:     apiKey,
		},
		runGrace:        DefaultRunGracePeriod,
		triggerAttempts: DefaultTriggerAttempts,
		triggerBackoff:  poll.Exponential(500*time.Millisecond, 5*time.Second),
	}
	httpapi.ApplyOptions(&o, opts)
	if o.runGrace < 0 {
		return nil, fmt.Errorf("ingestly: the run grace period %v is negative", o.runGrace)
	}
	if o.triggerAttempts < 1 {
		return nil, fmt.Errorf("ingestly: the trigger attempts %d must be at least 1", o.triggerAttempts)
	}
	api, err := httpapi.New(o.http)
	if err != nil {
		return nil, err
	}
	return &Client{
		api:             api,
		runGrace:        o.runGrace,
		triggerAttempts: o.triggerAttempts,
		triggerBackoff:  o.triggerBackoff,
	}, nil
}

// requireID returns a client-side error, before any request, for an empty
// id: an empty path segment would address another endpoint.
func requireID(method, what, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("ingestly: %s: the %s must not be empty or blank (got %q)", method, what, id)
	}
	return nil
}
