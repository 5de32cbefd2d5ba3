package httpapi

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseRetryAfter: any header value gives a non-negative delay, and
// never panics.
func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{"", "0", "120", "-1", "1.5", " 7 ", "Wed, 21 Oct 2015 07:28:00 GMT",
		"Monday, 30-Nov-26 12:00:10 GMT", "Mon Nov 30 12:00:20 2026", "99999999999999999999", "9223372036", "\x00"} {
		f.Add(seed)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		if d := ParseRetryAfter(v, now); d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, negative", v, d)
		}
	})
}

// FuzzErrorBody: any error body decodes to a short, printable message and
// code, and never panics.
func FuzzErrorBody(f *testing.F) {
	for _, seed := range []string{
		`{"detail":"Batch not found"}`,
		`{"detail":[{"loc":["body"],"msg":"x"}]}`,
		`{"type":"https://x/errors/a","title":"Conflict","detail":"not completed"}`,
		`{"type":"about:blank","title":"Forbidden"}`,
		`{"error":"bad","code":42}`,
		`<html><body><h1>502 Bad Gateway</h1></body></html>`,
		``, `null`, `[]`, `"text"`, `{"detail":null}`, "\xff\xfe<", strings.Repeat("a", 1000),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code, message := errorBody(body)
		for _, s := range []string{code, message} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in %q", s)
			}
			if n := utf8.RuneCountInString(s); n > maxSnippet+1 {
				t.Fatalf("%d characters, over the %d limit: %q", n, maxSnippet, s)
			}
			if strings.ContainsAny(s, "\n\r\t\x00") {
				t.Fatalf("control characters in %q", s)
			}
		}
	})
}
