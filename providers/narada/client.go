package narada

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jobpoll/poll/internal/httpapi"
)

// DefaultBaseURL is the API's production base URL, version included.
const DefaultBaseURL = "https://api.narada.ai/fast/v2"

// authHeader carries the API key. The task status must be read with the
// same key that dispatched the task.
const authHeader = "x-api-key"

// Option configures a Client.
type Option func(*options)

type options struct {
	http httpapi.Config
	// waitThroughInput maps input-required to poll.Waiting instead of the
	// final poll.InputRequired.
	waitThroughInput bool
	webhooks         *Webhooks
}

// WithBaseURL points the client at another server: a fake on loopback, a
// proxy. Default: [DefaultBaseURL]. Plain http is refused unless the host is
// loopback, so the key never travels unencrypted.
func WithBaseURL(u string) Option {
	return func(o *options) { o.http.BaseURL = u }
}

// WithHTTPClient sends requests through c (timeouts, proxies, tracing).
// Default: http.DefaultClient. c itself is not modified.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.http.HTTPClient = c }
}

// WithUserAgent puts product before "jobpoll/<version>" in the User-Agent,
// so the provider can tell your traffic apart.
func WithUserAgent(product string) Option {
	return func(o *options) { o.http.UserAgent = product }
}

// WithMaxResponseBytes bounds how much of a response is read, so a broken
// or hostile server cannot exhaust memory. Default: 16 MiB.
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) { o.http.MaxBodyBytes = n }
}

// WithWaitThroughInputRequired makes [Client.WaitForTask], [Client.Run] and
// [Client.TaskPoller] treat "input-required" as [poll.Waiting] (see
// [TaskStatusWaitThroughInputRequired]) instead of the final
// [poll.InputRequired]. Use it when a person is alerted from the
// [poll.WithNotify] hook and answers in the Narada UI while the wait goes
// on; give the wait a timeout long enough for a person to react.
func WithWaitThroughInputRequired() Option {
	return func(o *options) { o.waitThroughInput = true }
}

// WithWebhooks makes [Client.WaitForTask] and [Client.Run] subscribe to h
// for the task they wait on, so a webhook for it cuts the current sleep
// short ([poll.WithWake]) and polling stays the fallback. Dispatch the task
// with the CallbackURL that routes to h and h's CallbackSecret.
func WithWebhooks(h *Webhooks) Option {
	return func(o *options) { o.webhooks = h }
}

// Client calls the Narada API. It is safe for concurrent use.
type Client struct {
	api              *httpapi.Client
	waitThroughInput bool
	webhooks         *Webhooks
}

// New returns a client that authenticates with apiKey. It returns an error,
// never panics, for an empty key, a base URL that does not parse, or plain
// http to a host that is not loopback.
func New(apiKey string, opts ...Option) (*Client, error) {
	o := options{http: httpapi.Config{
		Name:       "narada",
		BaseURL:    DefaultBaseURL,
		AuthHeader: authHeader,
		APIKey:     apiKey,
	}}
	httpapi.ApplyOptions(&o, opts)
	api, err := httpapi.New(o.http)
	if err != nil {
		return nil, err
	}
	return &Client{api: api, waitThroughInput: o.waitThroughInput, webhooks: o.webhooks}, nil
}

// checkRequestID refuses an id that cannot name a task. The docs show ids
// such as "req_abc123def456" but promise no format, so only emptiness is
// checked; the path escaping keeps any other value one segment.
func checkRequestID(id string) error {
	if strings.TrimSpace(id) == "" {
		return errors.New("narada: the request id is empty")
	}
	return nil
}
