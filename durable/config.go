package durable

import (
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/jobpoll/poll"
)

// Defaults of [Config].
const (
	// DefaultQueue is the River queue waits go to.
	DefaultQueue = "jobpoll"
	// DefaultWorkers is how many attempts one process runs at once.
	DefaultWorkers = 100
	// DefaultPollInterval is how often an idle worker looks for attempts
	// that came due: the lateness of a snoozed attempt.
	DefaultPollInterval = time.Second
	// DefaultJobTimeout bounds one River job run (one attempt).
	DefaultJobTimeout = time.Minute
	// DefaultRescueAfter is how long a job may stay running before River
	// takes it as abandoned (its worker died mid-attempt) and runs it
	// again.
	DefaultRescueAfter = 2 * time.Minute
	// DefaultRetention is how long a finished wait, with its outcome, is
	// kept.
	DefaultRetention = 7 * 24 * time.Hour
	// DefaultMaxJobAttempts is how many times River runs a wait's job
	// after a worker crashed in the middle of an attempt or could not run
	// it (an unknown kind) before discarding it. Snoozes do not count.
	DefaultMaxJobAttempts = 25
)

// Config configures a [Client]. The zero Config submits and awaits waits
// and works none; give it Kinds to work waits.
type Config struct {
	// Kinds are the kinds this process can submit and work, each with the
	// provider client it polls through. A process that only submits and
	// awaits needs the kinds too (for their ids and defaults), but never
	// calls Start, so their clients are never used.
	Kinds []Kind
	// Strategies are named strategies, for StrategySpec{Kind: name}.
	Strategies map[string]poll.Strategy
	// Queue is the River queue of the waits. Default: [DefaultQueue].
	Queue string
	// Workers is how many attempts this process runs at once.
	// Default: [DefaultWorkers].
	Workers int
	// PollInterval is how often idle workers look for attempts that came
	// due. Default: [DefaultPollInterval].
	PollInterval time.Duration
	// JobTimeout bounds one River job run, that is one attempt, whatever
	// the wait's own Options.AttemptTimeout (keep that one lower).
	// Default: [DefaultJobTimeout].
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before River runs it
	// again elsewhere; it must exceed JobTimeout. Default:
	// [DefaultRescueAfter].
	RescueAfter time.Duration
	// Retention is how long finished waits are kept. Default:
	// [DefaultRetention].
	Retention time.Duration
	// MaxJobAttempts: see [DefaultMaxJobAttempts].
	MaxJobAttempts int
	// Limiter, when set, is consulted before every attempt this process
	// makes, e.g. a *rate.Limiter that keeps all its waits within an
	// API's rate limit.
	Limiter poll.Limiter
	// Logger receives this package's lines (one per attempt: Debug, Info
	// on a state change, Warn on errors) and River's. Default:
	// slog.Default().
	Logger *slog.Logger
	// SkipMigrations leaves River's schema alone: Open then expects it in
	// place. By default Open runs River's migrations (rivermigrate) under
	// a lock, so that processes starting together do not race.
	SkipMigrations bool
	// ID names this process to River (unique per process). Default: a
	// random one.
	ID string
}

var queueName = regexp.MustCompile(`^[a-z0-9]+(?:[_|\-]?[a-z0-9]+)*$`)

func (c Config) withDefaults() (Config, error) {
	if c.Queue == "" {
		c.Queue = DefaultQueue
	}
	if !queueName.MatchString(c.Queue) {
		return c, fmt.Errorf("%w: queue name %q (lower case letters, digits, _ and -)", ErrInvalidConfig, c.Queue)
	}
	for _, v := range []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{
		{"PollInterval", &c.PollInterval, DefaultPollInterval},
		{"JobTimeout", &c.JobTimeout, DefaultJobTimeout},
		{"RescueAfter", &c.RescueAfter, DefaultRescueAfter},
		{"Retention", &c.Retention, DefaultRetention},
	} {
		if *v.d < 0 {
			return c, fmt.Errorf("%w: %s %v is negative", ErrInvalidConfig, v.name, *v.d)
		}
		if *v.d == 0 {
			*v.d = v.def
		}
	}
	if c.RescueAfter <= c.JobTimeout {
		return c, fmt.Errorf("%w: RescueAfter %v must exceed JobTimeout %v", ErrInvalidConfig, c.RescueAfter, c.JobTimeout)
	}
	if c.Workers < 0 || c.MaxJobAttempts < 0 {
		return c, fmt.Errorf("%w: Workers %d and MaxJobAttempts %d must not be negative", ErrInvalidConfig, c.Workers, c.MaxJobAttempts)
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.MaxJobAttempts == 0 {
		c.MaxJobAttempts = DefaultMaxJobAttempts
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}
