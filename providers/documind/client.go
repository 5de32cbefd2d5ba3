package documind

import (
	"net/http"

	"github.com/jobpoll/poll/internal/httpapi"
)

// DefaultBaseURL is the Documind API's versioned root. Some pages of the
// Documind docs still show api.documind.com; .cloud is the canonical host.
const DefaultBaseURL = "https://api.documind.cloud/api/v1"

// authHeader carries the API key on every request.
const authHeader = "X-API-Key"

// Client calls the Documind API. It is safe for concurrent use.
type Client struct {
	api *httpapi.Client
}

// Option configures a Client.
type Option func(*options)

type options struct {
	http httpapi.Config
}

// WithBaseURL points the client at another server, such as the fake in
// documindtest. Default: [DefaultBaseURL]. Plain http is refused except for
// loopback hosts, so the key never travels unencrypted.
func WithBaseURL(u string) Option {
	return func(o *options) { o.http.BaseURL = u }
}

// WithHTTPClient sends requests through c, e.g. one with a proxy or test
// transport. Default: http.DefaultClient. The client passed in is not
// modified.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.http.HTTPClient = c }
}

// WithUserAgent puts product (e.g. "invoice-bot/2.1") before the library's
// own "jobpoll/<version>" token, so Documind can tell your traffic apart.
func WithUserAgent(product string) Option {
	return func(o *options) { o.http.UserAgent = product }
}

// WithMaxResponseBytes bounds how much of a response is read, so a
// misbehaving server cannot exhaust memory. Default: 16 MiB; 0 keeps the
// default; a negative n makes New fail.
func WithMaxResponseBytes(n int64) Option {
	return func(o *options) { o.http.MaxBodyBytes = n }
}

// New returns a client that authenticates with apiKey. It returns an error,
// never panics, for an empty key, a base URL that does not parse, or plain
// http to a host other than loopback.
func New(apiKey string, opts ...Option) (*Client, error) {
	o := options{http: httpapi.Config{
		Name:       "documind",
		BaseURL:    DefaultBaseURL,
		AuthHeader: authHeader,
		APIKey:     apiKey,
	}}
	httpapi.ApplyOptions(&o, opts)
	api, err := httpapi.New(o.http)
	if err != nil {
		return nil, err
	}
	return &Client{api: api}, nil
}
