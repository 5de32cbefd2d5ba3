package poll

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinel errors returned by [Poller.Wait]. Test for them with [errors.Is];
// the error text carries the numbers (attempts, elapsed time, last status).
var (
	// ErrTimeout: the deadline passed before the job reached a final state.
	// When the deadline was the context's, the error also matches
	// context.DeadlineExceeded.
	ErrTimeout = errors.New("poll: timed out")
	// ErrStalled: the status (State, Raw and Progress) did not change for
	// the stall timeout.
	ErrStalled = errors.New("poll: stalled")
	// ErrExhausted: the wait hit WithMaxAttempts or WithMaxErrors, or the
	// strategy returned backoff.Stop. It wraps the last fetch error, if any.
	ErrExhausted = errors.New("poll: exhausted")

	// ErrFailed matches a [*JobError] whose state is [Failed].
	ErrFailed = errors.New("poll: job failed")
	// ErrCanceled matches a [*JobError] whose state is [Canceled].
	ErrCanceled = errors.New("poll: job canceled")
	// ErrInputRequired matches a [*JobError] whose state is [InputRequired].
	ErrInputRequired = errors.New("poll: job requires input")
	// ErrPartiallyFailed matches a [*JobError] whose state is [PartiallyFailed].
	ErrPartiallyFailed = errors.New("poll: job partially failed")
)

// JobError reports that the job reached a final state other than
// [Succeeded]. errors.Is matches exactly one of [ErrFailed], [ErrCanceled],
// [ErrInputRequired] and [ErrPartiallyFailed], by state.
type JobError struct {
	// Status is the final observation.
	Status Status
}

// Error names the state, the provider's word and the reason.
func (e *JobError) Error() string {
	return "poll: job ended " + e.Status.String()
}

// Is matches the sentinel of the error's state.
func (e *JobError) Is(target error) bool {
	switch e.Status.State {
	case Failed:
		return target == ErrFailed
	case Canceled:
		return target == ErrCanceled
	case InputRequired:
		return target == ErrInputRequired
	case PartiallyFailed:
		return target == ErrPartiallyFailed
	}
	return false
}

// APIError is a non-2xx answer from an API.
type APIError struct {
	// StatusCode is the HTTP status code.
	StatusCode int
	// Method is the request's HTTP method.
	Method string
	// URL is the request's URL. It never holds a credential.
	URL string
	// Code is the provider's error code or problem "type", if any.
	Code string
	// Message is the provider's message or problem "detail", if any.
	Message string
	// RetryAfter is the delay the server asked for with Retry-After
	// (delta-seconds or an HTTP date), otherwise 0.
	RetryAfter time.Duration
}

// Error reads like `GET https://host/path: 429 Too Many Requests: slow down
// (code rate_limited; retry after 30s)`.
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Method != "" || e.URL != "" {
		b.WriteString(strings.TrimSpace(e.Method + " " + e.URL))
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteString(" " + text)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	var extras []string
	if e.Code != "" {
		extras = append(extras, "code "+e.Code)
	}
	if e.RetryAfter > 0 {
		extras = append(extras, "retry after "+e.RetryAfter.String())
	}
	if len(extras) > 0 {
		b.WriteString(" (" + strings.Join(extras, "; ") + ")")
	}
	return b.String()
}

// Temporary reports whether retrying the same request may succeed:
// 408, 425, 429 and every 5xx.
func (e *APIError) Temporary() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return e.StatusCode >= 500 && e.StatusCode <= 599
}

// RetryAfter marks err as transient and asks the poller to wait at least d
// before the next attempt. Use it in a Fetch when the server said when to
// come back. A nil err stays nil.
func RetryAfter(d time.Duration, err error) error {
	if err == nil {
		return nil
	}
	return &retryAfterError{delay: d, err: err}
}

type retryAfterError struct {
	delay time.Duration
	err   error
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// ServerDelay is the longest delay a server hint anywhere in err's chain
// asks for: an [*APIError]'s RetryAfter or a [RetryAfter] mark; 0 when
// there is none. Wait raises the strategy's next delay to it; code that
// schedules attempts itself (a job queue, say) can do the same.
func ServerDelay(err error) time.Duration {
	var d time.Duration
	for err != nil {
		switch e := err.(type) {
		case *retryAfterError:
			d = max(d, e.delay)
		case *APIError:
			d = max(d, e.RetryAfter)
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				d = max(d, ServerDelay(inner))
			}
			return d
		default:
			return d
		}
	}
	return d
}

// waitError is what Wait returns when it ends without a final status.
// Its text carries the numbers; its chain carries the sentinel (ErrTimeout,
// ErrStalled, ErrExhausted, a context error) and the last fetch error.
type waitError struct {
	msg  string
	errs []error
}

func (e *waitError) Error() string   { return e.msg }
func (e *waitError) Unwrap() []error { return e.errs }
