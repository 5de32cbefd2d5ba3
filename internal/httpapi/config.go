package httpapi

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Version is the library version sent in the User-Agent.
const Version = "0.1.0"

// DefaultMaxBodyBytes bounds how much of a response body is read.
const DefaultMaxBodyBytes = 16 << 20

// Config describes one provider's API. Providers fill Name, BaseURL,
// AuthHeader and APIKey; their client options (WithBaseURL, WithHTTPClient,
// WithUserAgent, WithMaxResponseBytes) set the rest.
type Config struct {
	Name         string // the provider, prefixed to client-side errors: "documind"
	BaseURL      string
	AuthHeader   string // e.g. "X-API-Key"
	APIKey       string
	UserAgent    string // the caller's product token, put before ours
	HTTPClient   *http.Client
	MaxBodyBytes int64
}

// ApplyOptions applies a provider's client options to its settings o, in
// order, skipping nil ones. Every provider's New starts with it.
func ApplyOptions[O any, F ~func(*O)](o *O, opts []F) {
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
}

// validate checks c and returns its parsed base URL.
func (c Config) validate() (*url.URL, error) {
	if strings.TrimSpace(c.APIKey) == "" {
		return nil, fmt.Errorf("%s: the API key is empty", c.Name)
	}
	if c.MaxBodyBytes < 0 {
		return nil, fmt.Errorf("%s: the response size limit %d is negative", c.Name, c.MaxBodyBytes)
	}
	base, err := url.Parse(c.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: the base URL %q does not parse: %w", c.Name, c.BaseURL, err)
	}
	if base.User != nil {
		return nil, fmt.Errorf("%s: the base URL must not carry credentials", c.Name)
	}
	if base.Host == "" {
		return nil, fmt.Errorf("%s: the base URL %q has no host", c.Name, c.BaseURL)
	}
	if base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("%s: the base URL %q must not have a query or fragment", c.Name, c.BaseURL)
	}
	switch base.Scheme {
	case "https":
	case "http":
		if !IsLoopback(base.Hostname()) {
			return nil, fmt.Errorf("%s: the base URL %q uses plain http, which is only allowed for loopback hosts: the API key would travel unencrypted", c.Name, c.BaseURL)
		}
	default:
		return nil, fmt.Errorf("%s: the base URL %q must use https", c.Name, c.BaseURL)
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	base.RawPath = strings.TrimSuffix(base.RawPath, "/")
	return base, nil
}

// IsLoopback reports whether host names this machine: "localhost" or a
// loopback address. Plain http is allowed only to such hosts (the fake
// servers, webhook receivers in tests).
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var errEmptySegment = errors.New("an empty path segment (an empty id?)")
