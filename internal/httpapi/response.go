package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jobpoll/poll"
)

// maxErrorBody bounds how much of an error answer is read: enough for any
// problem document, little enough that an HTML error page costs nothing.
const maxErrorBody = 64 << 10

// maxSnippet bounds the text of an error answer kept in APIError.Message.
const maxSnippet = 200

// readBody reads a 2xx body, refusing one above the size limit.
func (c *Client) readBody(resp *http.Response, method string, u *url.URL) ([]byte, error) {
	if resp.ContentLength > c.maxBody {
		return nil, fmt.Errorf("%s: %s %s: the response is %d bytes, over the %d-byte limit", c.name, method, u, resp.ContentLength, c.maxBody)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s %s: reading the response: %w", c.name, method, u, err)
	}
	if int64(len(data)) > c.maxBody {
		return nil, fmt.Errorf("%s: %s %s: the response is over the %d-byte limit", c.name, method, u, c.maxBody)
	}
	return data, nil
}

// decodeJSON decodes a 2xx body. A body cut short wraps
// io.ErrUnexpectedEOF, which poll.Transient retries; a body that is not JSON
// at all (an HTML page from a proxy) is permanent.
func (c *Client) decodeJSON(data []byte, out any, resp *http.Response, method string, u *url.URL) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: %s %s: a %d answer with an empty body where JSON was expected: %w", c.name, method, u, resp.StatusCode, io.ErrUnexpectedEOF)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%s: %s %s: decoding the %d answer (%s): %w; the body starts %q", c.name, method, u, resp.StatusCode, contentType(resp), err, c.redact(snippet(data)))
	}
	return nil
}

func contentType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		return "no content type"
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return ct
}

// decodeError turns a non-2xx answer into a *poll.APIError.
func (c *Client) decodeError(resp *http.Response, method string, u *url.URL) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	apiErr := &poll.APIError{
		StatusCode: resp.StatusCode,
		Method:     method,
		URL:        u.String(),
		RetryAfter: ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
	code, message := errorBody(data)
	apiErr.Code, apiErr.Message = c.redact(code), c.redact(message)
	return apiErr
}

// errorBody reads the provider's error: Documind's {"detail": ...},
// Ingestly's RFC 7807 problem (type, title, detail), the usual
// {"error"/"message"/"code"} shapes, or else a short snippet of the text.
func errorBody(data []byte) (code, message string) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", snippet(data)
	}
	text := func(keys ...string) string {
		for _, k := range keys {
			raw, ok := doc[k]
			if !ok || string(raw) == "null" {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return snippet([]byte(s))
			}
			// FastAPI validation errors put a list under "detail".
			return snippet(raw)
		}
		return ""
	}
	code = text("type", "code", "error_code")
	if code == "about:blank" {
		code = ""
	}
	message = text("detail", "message", "error", "title")
	if message == "" {
		message = snippet(data)
	}
	return code, message
}

// snippet makes an untrusted body safe to show: tags dropped, white space
// folded, control characters and invalid UTF-8 removed, at most maxSnippet
// characters.
func snippet(data []byte) string {
	var b strings.Builder
	inTag, space := false, false
	for len(data) > 0 && b.Len() < maxSnippet*4 {
		r, size := utf8.DecodeRune(data)
		data = data[size:]
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case r == '<':
			inTag = true
			continue
		case r == '>' && inTag:
			inTag = false
			space = b.Len() > 0
			continue
		case inTag:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case !unicode.IsPrint(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	s := b.String()
	if utf8.RuneCountInString(s) > maxSnippet {
		s = string([]rune(s)[:maxSnippet]) + "…"
	} else if len(data) > 0 {
		s += "…"
	}
	return s
}

// redact removes the API key from text that came from the server: an API
// that echoes a rejected key back must not put it into our errors.
func (c *Client) redact(s string) string {
	if c.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, c.secret, "[redacted]")
}

// ParseRetryAfter reads a Retry-After value in either form: delta-seconds
// ("120") or an HTTP date. It returns 0 for an empty, malformed, negative or
// past value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		// Bound before converting so that a huge value cannot overflow.
		const maxSecs = int64(1<<63-1) / int64(time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
