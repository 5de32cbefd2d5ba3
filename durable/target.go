package durable

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Target names what a wait watches, in plain data that any process can
// read back: a provider, one of its job kinds and the ids of the job.
// Submitting the same Target twice gives the same wait.
//
// The built-in kinds have constructors: [DocumindReview], [DocumindBatch],
// [NaradaTask] and [IngestlyRun]. A custom kind ([NewKind]) uses whatever
// ids its poller needs.
type Target struct {
	// Provider is the API, e.g. "ingestly".
	Provider string `json:"provider"`
	// Kind is the kind of job at that provider, e.g. "run".
	Kind string `json:"kind"`
	// IDs are the job's ids by name, e.g. {"documentId": "…", "runId": "…"}.
	IDs map[string]string `json:"ids,omitempty"`
}

// ID returns the id called name, or "" when the target has none.
func (t Target) ID(name string) string { return t.IDs[name] }

// String reads like `ingestly run documentId=d1 runId=r1`, ids sorted by
// name.
func (t Target) String() string {
	var b strings.Builder
	b.WriteString(t.Provider + " " + t.Kind)
	for _, name := range slices.Sorted(maps.Keys(t.IDs)) {
		fmt.Fprintf(&b, " %s=%s", name, t.IDs[name])
	}
	return b.String()
}

// kindKey is how kinds are registered and looked up.
func (t Target) kindKey() string { return t.Provider + "/" + t.Kind }

// NoLimit turns off a limit in [Options] that a kind would otherwise set
// by default: Options{Timeout: NoLimit} waits with no deadline of its own.
const NoLimit = -1

// Options tune one wait. A zero field means the kind's default (see
// [KindConfig.Defaults]), and the core's default where the kind sets none;
// [NoLimit] (or any negative value) turns a limit off. Submit resolves
// them and stores the result with the wait, so every worker applies the
// same rules even if defaults change later.
type Options struct {
	// Timeout is the wait's own deadline, counted from Submit.
	// Default: the kind's, else poll.DefaultTimeout (10 minutes).
	Timeout time.Duration `json:"timeout,omitempty"`
	// StallTimeout ends the wait with poll.ErrStalled when State, Raw and
	// Progress have not changed for this long. Default: the kind's, else off.
	StallTimeout time.Duration `json:"stallTimeout,omitempty"`
	// InitialDelay holds the first attempt back. Default: none.
	InitialDelay time.Duration `json:"initialDelay,omitempty"`
	// AttemptTimeout bounds one fetch. Default: the kind's, else none
	// (River's job timeout, one minute, still applies).
	AttemptTimeout time.Duration `json:"attemptTimeout,omitempty"`
	// MaxAttempts ends the wait with poll.ErrExhausted after this many
	// attempts. Default: the kind's, else none.
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// MaxErrors ends the wait with poll.ErrExhausted after this many
	// consecutive transient errors. Default: the kind's, else none.
	MaxErrors int `json:"maxErrors,omitempty"`
	// Strategy makes the delays between attempts. Default: the kind's,
	// else [DefaultSpec].
	Strategy *StrategySpec `json:"strategy,omitempty"`
}

// plan is a wait's resolved options, as stored with it: here 0 means none,
// as in the core package.
type plan struct {
	Timeout        time.Duration `json:"timeout,omitempty"`
	StallTimeout   time.Duration `json:"stallTimeout,omitempty"`
	InitialDelay   time.Duration `json:"initialDelay,omitempty"`
	AttemptTimeout time.Duration `json:"attemptTimeout,omitempty"`
	MaxAttempts    int           `json:"maxAttempts,omitempty"`
	MaxErrors      int           `json:"maxErrors,omitempty"`
	Strategy       StrategySpec  `json:"strategy"`
}

// defaultTimeout is the core's poll.DefaultTimeout, for kinds without one.
const defaultTimeout = 10 * time.Minute

// resolve applies o over the kind's defaults over the core's.
func resolve(o, kind Options) plan {
	dur := func(v, def, core time.Duration) time.Duration {
		switch {
		case v < 0:
			return 0
		case v > 0:
			return v
		case def < 0:
			return 0
		case def > 0:
			return def
		}
		return core
	}
	count := func(v, def int) int {
		switch {
		case v < 0:
			return 0
		case v > 0:
			return v
		}
		return max(def, 0)
	}
	p := plan{
		Timeout:        dur(o.Timeout, kind.Timeout, defaultTimeout),
		StallTimeout:   dur(o.StallTimeout, kind.StallTimeout, 0),
		InitialDelay:   dur(o.InitialDelay, kind.InitialDelay, 0),
		AttemptTimeout: dur(o.AttemptTimeout, kind.AttemptTimeout, 0),
		MaxAttempts:    count(o.MaxAttempts, kind.MaxAttempts),
		MaxErrors:      count(o.MaxErrors, kind.MaxErrors),
		Strategy:       DefaultSpec(),
	}
	switch {
	case o.Strategy != nil:
		p.Strategy = *o.Strategy
	case kind.Strategy != nil:
		p.Strategy = *kind.Strategy
	}
	return p
}
