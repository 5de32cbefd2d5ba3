package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jobpoll/poll"
)

// Kind tells workers how to poll one kind of target. Build one with
// [NewKind], or take the built-in ones from [DocumindKinds], [NaradaKinds]
// and [IngestlyKinds]. A Kind holds the provider client of the program
// that runs it, so API keys stay in that program and never reach the
// database.
type Kind struct {
	// Provider and Name are the Target's Provider and Kind.
	Provider, Name string
	// Config is the kind's ids, defaults and error rule.
	Config KindConfig

	poll func(ctx context.Context, t Target, opts []poll.Option) (json.RawMessage, poll.Status, error)
}

// KindConfig describes a kind beyond its poller.
type KindConfig struct {
	// IDs are the ids a target must carry, non-empty; Submit refuses a
	// target that lacks one, or carries an id named in neither IDs nor
	// OptionalIDs, with ErrInvalidTarget.
	IDs []string
	// OptionalIDs may be present or empty.
	OptionalIDs []string
	// Defaults are the kind's options: what a zero field of a wait's
	// Options means.
	Defaults Options
	// Retryable decides which fetch errors are transient (retried).
	// Default: poll.Transient.
	Retryable func(error) bool
	// Strategies are named strategies the kind's defaults (or its
	// callers) refer to with [NamedSpec].
	Strategies map[string]poll.Strategy
}

// NewKind registers a custom job kind: poller builds the core poller of a
// target, from its ids, e.g. with poll.New or a provider's XPoller. A
// worker calls its Poll once per attempt, with the options that matter to
// one attempt (the attempt timeout, the limiter); the rest of the wait's
// rules are applied by this package with the wait's stored options, so the
// poller's own backoff and timeout are not used. The value Poll returns is
// stored as JSON: T must marshal (and, for [Value], unmarshal).
//
// poller may return an error for ids it cannot use; the wait then ends
// with that error, as a permanent fetch error.
func NewKind[T any](provider, name string, poller func(t Target, opts ...poll.Option) (*poll.Poller[T], error), cfg KindConfig) Kind {
	return Kind{
		Provider: provider, Name: name, Config: cfg,
		poll: func(ctx context.Context, t Target, opts []poll.Option) (json.RawMessage, poll.Status, error) {
			p, err := poller(t, opts...)
			if err != nil {
				return nil, poll.Status{}, err
			}
			v, st, err := p.Poll(ctx)
			if err != nil {
				return nil, st, err
			}
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, st, fmt.Errorf("durable: encoding the %s %s observation as JSON: %w", provider, name, err)
			}
			return raw, st, nil
		},
	}
}

func (k Kind) key() string { return k.Provider + "/" + k.Name }

// check validates a target's ids against the kind.
func (k Kind) check(t Target) error {
	for _, name := range k.Config.IDs {
		if strings.TrimSpace(t.IDs[name]) == "" {
			return fmt.Errorf("%w: %s needs the id %q", ErrInvalidTarget, t, name)
		}
	}
	for name := range t.IDs {
		if !slices.Contains(k.Config.IDs, name) && !slices.Contains(k.Config.OptionalIDs, name) {
			return fmt.Errorf("%w: %s %s has no id called %q (it takes %s)", ErrInvalidTarget, k.Provider, k.Name, name, strings.Join(append(slices.Clone(k.Config.IDs), k.Config.OptionalIDs...), ", "))
		}
	}
	return nil
}

func (k Kind) retryable() func(error) bool {
	if k.Config.Retryable != nil {
		return k.Config.Retryable
	}
	return poll.Transient
}

// kinds is a process's registry of kinds and named strategies.
type kinds struct {
	byKey      map[string]Kind
	strategies strategies
}

func newKinds(list []Kind, named map[string]poll.Strategy) (kinds, error) {
	r := kinds{byKey: map[string]Kind{}, strategies: strategies{named: map[string]poll.Strategy{}}}
	addStrategy := func(name string, s poll.Strategy) error {
		switch name {
		case "", StrategyConstant, StrategyExponential, StrategyProportional, StrategyDefault:
			return fmt.Errorf("%w: a named strategy cannot be called %q", ErrInvalidConfig, name)
		}
		if s == nil {
			return fmt.Errorf("%w: the strategy %q is nil", ErrInvalidConfig, name)
		}
		r.strategies.named[name] = s
		return nil
	}
	for name, s := range named {
		if err := addStrategy(name, s); err != nil {
			return r, err
		}
	}
	for _, k := range list {
		if k.Provider == "" || k.Name == "" || k.poll == nil {
			return r, fmt.Errorf("%w: kind %q/%q was not built with NewKind", ErrInvalidConfig, k.Provider, k.Name)
		}
		if _, dup := r.byKey[k.key()]; dup {
			return r, fmt.Errorf("%w: kind %s is registered twice", ErrInvalidConfig, k.key())
		}
		r.byKey[k.key()] = k
		for name, s := range k.Config.Strategies {
			if err := addStrategy(name, s); err != nil {
				return r, err
			}
		}
	}
	return r, nil
}

func (r kinds) lookup(t Target) (Kind, error) {
	k, ok := r.byKey[t.kindKey()]
	if !ok {
		return k, fmt.Errorf("%w: %s %s (registered: %s)", ErrUnknownKind, t.Provider, t.Kind, r.names())
	}
	return k, nil
}

func (r kinds) names() string {
	if len(r.byKey) == 0 {
		return "none"
	}
	names := make([]string, 0, len(r.byKey))
	for key := range r.byKey {
		names = append(names, key)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
