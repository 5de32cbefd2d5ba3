package durable

import (
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/jobpoll/poll"
)

// The strategy kinds a [StrategySpec] can name besides registered ones.
const (
	StrategyConstant     = "constant"
	StrategyExponential  = "exponential"
	StrategyProportional = "proportional"
	StrategyDefault      = "default"
)

// StrategySpec is a strategy written as data, so that a wait can be stored
// and its delays continued by another process. It names one of the core
// strategies and its parameters, or a strategy registered by name with
// [Config.Strategies] or [KindConfig.Strategies].
//
// Progress is carried across restarts exactly: a proportional strategy
// restarts as poll.ProportionalFrom the time it has waited so far, and an
// exponential or named one is replayed for the number of delays it has
// already given (jitter is drawn afresh). Replaying a named strategy costs
// one NextBackOff call per earlier attempt.
type StrategySpec struct {
	// Kind is "constant", "exponential", "proportional", "default" or a
	// registered name.
	Kind string `json:"kind"`
	// Delay is the constant delay.
	Delay time.Duration `json:"delay,omitempty"`
	// Initial is the exponential strategy's first delay.
	Initial time.Duration `json:"initial,omitempty"`
	// Min is the proportional strategy's smallest delay.
	Min time.Duration `json:"min,omitempty"`
	// Max caps the exponential and proportional strategies.
	Max time.Duration `json:"max,omitempty"`
	// Fraction is the proportional strategy's share of the time waited so
	// far.
	Fraction float64 `json:"fraction,omitempty"`
}

// ConstantSpec is poll.Constant(d) as data.
func ConstantSpec(d time.Duration) StrategySpec {
	return StrategySpec{Kind: StrategyConstant, Delay: d}
}

// ExponentialSpec is poll.Exponential(initial, max) as data.
func ExponentialSpec(initial, max time.Duration) StrategySpec {
	return StrategySpec{Kind: StrategyExponential, Initial: initial, Max: max}
}

// ProportionalSpec is poll.Proportional(fraction, min, max) as data.
func ProportionalSpec(fraction float64, min, max time.Duration) StrategySpec {
	return StrategySpec{Kind: StrategyProportional, Fraction: fraction, Min: min, Max: max}
}

// DefaultSpec is poll.Default() as data. Submit stores it as the
// proportional strategy it is today (0.1 of the time waited, between 10 s
// and 10 min), so a stored wait keeps its delays even if the core's
// default changes later.
func DefaultSpec() StrategySpec { return StrategySpec{Kind: StrategyDefault} }

// NamedSpec refers to a strategy registered under name.
func NamedSpec(name string) StrategySpec { return StrategySpec{Kind: name} }

// String describes the strategy for logs, e.g. "exponential(5s, 1m0s)".
func (s StrategySpec) String() string {
	switch s.Kind {
	case StrategyConstant:
		return fmt.Sprintf("constant(%v)", s.Delay)
	case StrategyExponential:
		return fmt.Sprintf("exponential(%v, %v)", s.Initial, s.Max)
	case StrategyProportional:
		return fmt.Sprintf("proportional(%g, %v, %v)", s.Fraction, s.Min, s.Max)
	}
	return s.Kind
}

// The parameters of poll.Default(), which the core does not export:
// pinned by TestDefaultSpecMatchesCore.
const (
	defaultFraction = 0.1
	defaultMin      = 10 * time.Second
	defaultMax      = 10 * time.Minute
)

// replayCap bounds the replay of an exponential strategy: it doubles its
// delay at every step, so after 64 steps any cap an int64 duration can
// hold has been reached.
const replayCap = 64

// strategies builds and resumes the strategies of stored waits.
type strategies struct {
	named map[string]poll.Strategy
}

// normalize checks a spec at Submit and pins "default" to its parameters.
func (r strategies) normalize(s StrategySpec) (StrategySpec, error) {
	switch s.Kind {
	case StrategyDefault:
		return ProportionalSpec(defaultFraction, defaultMin, defaultMax), nil
	case StrategyConstant, StrategyExponential, StrategyProportional:
		if s.Delay < 0 || s.Initial < 0 || s.Min < 0 || s.Max < 0 || s.Fraction < 0 {
			return s, fmt.Errorf("%w: %s has a negative parameter", ErrInvalidStrategy, s)
		}
		return s, nil
	}
	if _, ok := r.named[s.Kind]; !ok {
		return s, fmt.Errorf("%w: no strategy is registered as %q", ErrInvalidStrategy, s.Kind)
	}
	return s, nil
}

// resume returns the strategy of a wait that has taken steps delays adding
// up to waited, positioned to give the next one.
func (r strategies) resume(s StrategySpec, steps int, waited time.Duration) (backoff.BackOff, error) {
	switch s.Kind {
	case StrategyConstant:
		return poll.Constant(s.Delay)(), nil
	case StrategyProportional:
		return poll.ProportionalFrom(waited, s.Fraction, s.Min, s.Max)(), nil
	case StrategyDefault:
		return poll.ProportionalFrom(waited, defaultFraction, defaultMin, defaultMax)(), nil
	case StrategyExponential:
		return replay(poll.Exponential(s.Initial, s.Max)(), min(steps, replayCap)), nil
	}
	named, ok := r.named[s.Kind]
	if !ok {
		return nil, fmt.Errorf("%w: no strategy is registered as %q in this worker", ErrInvalidStrategy, s.Kind)
	}
	b := named()
	if b == nil {
		return nil, fmt.Errorf("%w: the strategy %q returned a nil backoff.BackOff", ErrInvalidStrategy, s.Kind)
	}
	b.Reset()
	return replay(b, steps), nil
}

func replay(b backoff.BackOff, steps int) backoff.BackOff {
	for range steps {
		if b.NextBackOff() == backoff.Stop {
			break
		}
	}
	return b
}
