package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Client sends requests to one provider's API.
type Client struct {
	name      string
	base      *url.URL
	userAgent string
	http      *http.Client
	maxBody   int64
	secret    string // only to redact it from what servers send back
}

// New checks cfg and returns a Client for it. The API key is attached by the
// client's transport, only to requests for the base URL's own host, so a
// redirect to another host never carries it and no request or error value
// ever holds it.
func New(cfg Config) (*Client, error) {
	base, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	hc := http.DefaultClient
	if cfg.HTTPClient != nil {
		hc = cfg.HTTPClient
	}
	copied := *hc // the caller's client stays as it was
	next := copied.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	copied.Transport = &authTransport{next: next, scheme: base.Scheme, host: base.Host, header: cfg.AuthHeader, key: cfg.APIKey}

	ua := "jobpoll/" + Version
	if cfg.UserAgent != "" {
		ua = cfg.UserAgent + " " + ua
	}
	maxBody := cfg.MaxBodyBytes
	if maxBody == 0 {
		maxBody = DefaultMaxBodyBytes
	}
	return &Client{name: cfg.Name, base: base, userAgent: ua, http: &copied, maxBody: maxBody, secret: cfg.APIKey}, nil
}

// Request is one API call.
type Request struct {
	Method string
	// Path is the list of path segments after the base URL. Each is
	// escaped on its own, so an id such as "../admin" or "a/b?c" stays one
	// segment and can change neither the path nor the query.
	Path  []string
	Query url.Values
	// JSON, when not nil, is encoded as the JSON body.
	JSON any
	// Body and ContentType send a body already encoded (multipart).
	Body        []byte
	ContentType string
	Header      http.Header
}

// URL returns the request's URL. It never holds the API key.
func (c *Client) URL(r *Request) (*url.URL, error) {
	raw := c.base.EscapedPath()
	for _, seg := range r.Path {
		if seg == "" {
			return nil, fmt.Errorf("%s: %w", c.name, errEmptySegment)
		}
		raw += "/" + escapeSegment(seg)
	}
	u, err := url.Parse(c.base.Scheme + "://" + c.base.Host + raw)
	if err != nil {
		return nil, fmt.Errorf("%s: building the request URL: %w", c.name, err)
	}
	if len(r.Query) > 0 {
		u.RawQuery = r.Query.Encode()
	}
	return u, nil
}

// escapeSegment escapes one path segment. url.PathEscape already escapes
// '/', '?', '#', '%' and spaces; dot segments are escaped too, because
// servers and proxies resolve "." and ".." before routing.
func escapeSegment(seg string) string {
	if strings.Trim(seg, ".") == "" {
		return strings.Repeat("%2E", len(seg))
	}
	return url.PathEscape(seg)
}

// Do sends r and decodes a 2xx JSON answer into out (unless out is nil).
// A non-2xx answer returns a *poll.APIError; a network failure returns the
// *url.Error of net/http, so poll.Transient classifies both.
func (c *Client) Do(ctx context.Context, r *Request, out any) error {
	u, err := c.URL(r)
	if err != nil {
		return err
	}
	var body io.Reader
	contentType := r.ContentType
	switch {
	case r.JSON != nil:
		encoded, err := json.Marshal(r.JSON)
		if err != nil {
			return fmt.Errorf("%s: encoding the %s %s body: %w", c.name, r.Method, u.Path, err)
		}
		body, contentType = bytes.NewReader(encoded), "application/json"
	case r.Body != nil:
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return fmt.Errorf("%s: building the request: %w", c.name, err)
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.decodeError(resp, req.Method, u)
	}
	data, err := c.readBody(resp, req.Method, u)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return c.decodeJSON(data, out, resp, req.Method, u)
}
