package poll_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestTransient(t *testing.T) {
	urlErr := func(err error) error { return &url.Error{Op: "Get", URL: "https://api.example/x", Err: err} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"408", &poll.APIError{StatusCode: 408}, true},
		{"425", &poll.APIError{StatusCode: 425}, true},
		{"429", &poll.APIError{StatusCode: 429}, true},
		{"500", &poll.APIError{StatusCode: 500}, true},
		{"503 wrapped", fmt.Errorf("get batch: %w", &poll.APIError{StatusCode: 503}), true},
		{"599", &poll.APIError{StatusCode: 599}, true},
		{"400", &poll.APIError{StatusCode: 400}, false},
		{"401", &poll.APIError{StatusCode: 401}, false},
		{"403", &poll.APIError{StatusCode: 403}, false},
		{"404", &poll.APIError{StatusCode: 404}, false},
		{"409", &poll.APIError{StatusCode: 409}, false},
		{"422", &poll.APIError{StatusCode: 422}, false},
		{"connection reset", urlErr(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true},
		{"connection refused", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{"body cut short", urlErr(io.ErrUnexpectedEOF), true},
		{"server closed before answering", urlErr(io.EOF), true},
		{"client timeout", urlErr(timeoutErr{}), true},
		{"context deadline", context.DeadlineExceeded, true},
		{"context canceled", urlErr(context.Canceled), false},
		{"unknown host", urlErr(&net.DNSError{Err: "no such host", Name: "api.nowhere", IsNotFound: true}), false},
		{"resolver timeout", urlErr(&net.DNSError{Err: "timeout", Name: "api.example", IsTimeout: true}), true},
		{"unsupported scheme", urlErr(errors.New(`unsupported protocol scheme "ftp"`)), false},
		{"RetryAfter marks any error", poll.RetryAfter(time.Second, errors.New("busy")), true},
		{"RetryAfter wins over a 4xx", poll.RetryAfter(time.Second, &poll.APIError{StatusCode: 404}), true},
		{"plain error", errors.New("invalid character '<' looking for beginning of value"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, poll.Transient(tt.err))
		})
	}
}

func TestRetryAfter(t *testing.T) {
	assert.NoError(t, poll.RetryAfter(time.Second, nil), "a nil error stays nil")
	inner := &poll.APIError{StatusCode: 503}
	err := poll.RetryAfter(time.Minute, inner)
	var api *poll.APIError
	require.ErrorAs(t, err, &api)
	assert.Same(t, inner, api)
	assert.Equal(t, inner.Error(), err.Error())
}

func TestAPIErrorText(t *testing.T) {
	tests := []struct {
		err  poll.APIError
		want string
	}{
		{poll.APIError{StatusCode: 404, Method: "GET", URL: "https://api.documind.cloud/api/v1/batch/x", Message: "Batch not found"},
			"GET https://api.documind.cloud/api/v1/batch/x: 404 Not Found: Batch not found"},
		{poll.APIError{StatusCode: 429, Method: "GET", URL: "https://h/p", Message: "slow down", Code: "rate_limited", RetryAfter: 30 * time.Second},
			"GET https://h/p: 429 Too Many Requests: slow down (code rate_limited; retry after 30s)"},
		{poll.APIError{StatusCode: 599}, "599"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestJobErrorMatchesOnlyItsState(t *testing.T) {
	e := &poll.JobError{Status: poll.Status{State: poll.Succeeded}}
	for _, s := range []error{poll.ErrFailed, poll.ErrCanceled, poll.ErrInputRequired, poll.ErrPartiallyFailed} {
		assert.NotErrorIs(t, e, s, "a JobError for a non-failure state matches no sentinel")
	}
	e = &poll.JobError{Status: poll.Status{State: poll.InputRequired, Raw: "input-required", Reason: "log in first"}}
	assert.Equal(t, `poll: job ended input_required ("input-required"): log in first`, e.Error())
}

func TestServerDelay(t *testing.T) {
	api := &poll.APIError{StatusCode: 429, RetryAfter: 2 * time.Second}
	tests := []struct {
		name string
		err  error
		want time.Duration
	}{
		{"nil", nil, 0},
		{"plain", errors.New("plain"), 0},
		{"APIError", api, 2 * time.Second},
		{"wrapped APIError", fmt.Errorf("get: %w", api), 2 * time.Second},
		{"the larger of a mark and an APIError", poll.RetryAfter(5*time.Second, api), 5 * time.Second},
		{"a smaller mark does not lower", poll.RetryAfter(time.Second, api), 2 * time.Second},
		{"inside errors.Join", errors.Join(errors.New("x"), poll.RetryAfter(3*time.Second, errors.New("y"))), 3 * time.Second},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, poll.ServerDelay(tt.err), tt.name)
	}
}
