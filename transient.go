package poll

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Transient is the default test for fetch errors worth retrying: network
// errors (resets, refused connections, a body cut short), timeouts, errors
// marked with [RetryAfter], and an [*APIError] with status 408, 425, 429 or
// 5xx. Everything else, including context.Canceled, a 4xx such as 401 or
// 404, a malformed response and an unknown host, is permanent.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var hinted *retryAfterError
	if errors.As(err, &hinted) {
		return true
	}
	var api *APIError
	if errors.As(err, &api) {
		return api.Temporary()
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		// A name that does not exist will not appear by retrying; a
		// resolver that timed out or failed might recover.
		return !dns.IsNotFound
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	// *url.Error is a net.Error too, whatever it wraps, so only its
	// Timeout answer is trusted here.
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}
