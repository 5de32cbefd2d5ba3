package durable

import "errors"

// Errors of the durable module. Test for them with errors.Is; the texts
// carry the wait id, the target and the numbers.
var (
	// ErrNotFound: no wait has this id (never submitted, or removed after
	// Config.Retention).
	ErrNotFound = errors.New("durable: no such wait")
	// ErrUnknownKind: no kind is registered for the target's provider and
	// kind in this process.
	ErrUnknownKind = errors.New("durable: unknown kind")
	// ErrInvalidTarget: the target lacks an id its kind needs, or carries
	// one it does not know.
	ErrInvalidTarget = errors.New("durable: invalid target")
	// ErrInvalidStrategy: a StrategySpec names no known strategy or has a
	// negative parameter.
	ErrInvalidStrategy = errors.New("durable: invalid strategy")
	// ErrInvalidConfig: Open was given a configuration it cannot use.
	ErrInvalidConfig = errors.New("durable: invalid configuration")
	// ErrWaitCanceled: the wait was cancelled with [Client.Cancel] (or in
	// River's UI) before it ended; it has no outcome.
	ErrWaitCanceled = errors.New("durable: wait canceled")
	// ErrDiscarded: River gave up on the wait's job after its own attempts
	// (workers crashing in the middle of attempts, or a kind no worker
	// knows); it has no outcome.
	ErrDiscarded = errors.New("durable: wait discarded by River")
	// ErrFetch: the wait ended on a permanent fetch error, such as a 401 or
	// a 404. When it was an API error, errors.As also finds the
	// *poll.APIError, rebuilt from the stored outcome.
	ErrFetch = errors.New("durable: permanent fetch error")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("durable: client closed")
	// ErrAttemptRunning: Delete found an attempt of the wait running.
	ErrAttemptRunning = errors.New("durable: an attempt of the wait is running")
)
