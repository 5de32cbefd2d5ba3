package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/jobpoll/poll"
)

// options are the flags every command accepts.
type options struct {
	timeout      durationFlag
	interval     durationFlag
	maxInterval  durationFlag
	stallTimeout durationFlag
	json         bool
	quiet        bool
	baseURL      string
	keyFile      string
}

// commonFlagsHelp documents options in every help text.
const commonFlagsHelp = `Flags for every command (before or after the ids):
  --timeout D        give up after D (exit 3); 0 waits for ever. Default:
                     the provider's (the Defaults line of a command's help)
  --interval D       poll at once, then every D, instead of the provider's
                     tuned schedule
  --max-interval D   with --interval: double the delay after each poll,
                     from --interval up to D
  --stall-timeout D  give up (exit 3) when the status has not changed for D;
                     0 turns it off. Default: off, 10m for documind batches
  --json             print the last observation as JSON on stdout, also
                     when the job did not succeed
  --quiet            no progress on stderr; errors are still reported
  --base-url URL     talk to another server (a proxy, a test server): https,
                     or plain http to localhost only
  --key-file FILE    read the API key from FILE ("-": stdin) instead of the
                     environment variable
  -h, --help         help for the command
Durations look like 500ms, 30s, 5m or 1h30m.
`

func (o *options) register(fs *flag.FlagSet) {
	fs.Var(&o.timeout, "timeout", "give up after this long")
	fs.Var(&o.interval, "interval", "poll every interval")
	fs.Var(&o.maxInterval, "max-interval", "double the interval up to this")
	fs.Var(&o.stallTimeout, "stall-timeout", "give up when nothing changed for this long")
	fs.BoolVar(&o.json, "json", false, "print the last observation as JSON")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr")
	fs.StringVar(&o.baseURL, "base-url", "", "the API's base URL")
	fs.StringVar(&o.keyFile, "key-file", "", "a file holding the API key")
}

// check refuses flag combinations that make no sense, before any request.
func (o *options) check() error {
	switch {
	case o.interval.set && o.interval.d == 0:
		return usagef("--interval must be more than 0")
	case o.maxInterval.set && !o.interval.set:
		return usagef("--max-interval needs --interval, the first delay: --interval 5s --max-interval 1m polls after 5s, 10s, 20s, 40s, then every minute")
	case o.maxInterval.set && o.maxInterval.d < o.interval.d:
		return usagef("--max-interval %s is shorter than --interval %s", o.maxInterval.d, o.interval.d)
	}
	return nil
}

// pollOptions turns the flags into poll options. They come after the
// provider's defaults, so a flag that was given wins and one that was not
// keeps the provider's choice.
func (o *options) pollOptions() []poll.Option {
	var opts []poll.Option
	if o.timeout.set {
		opts = append(opts, poll.WithTimeout(o.timeout.d))
	}
	// An interval replaces the provider's whole schedule, its delay
	// before the first poll included: the first poll runs at once.
	switch {
	case o.maxInterval.set:
		opts = append(opts, poll.WithInitialDelay(0), poll.WithBackoff(poll.Exponential(o.interval.d, o.maxInterval.d)))
	case o.interval.set:
		opts = append(opts, poll.WithInitialDelay(0), poll.WithBackoff(poll.Constant(o.interval.d)))
	}
	if o.stallTimeout.set {
		opts = append(opts, poll.WithStallTimeout(o.stallTimeout.d))
	}
	return opts
}

// describe says how the wait will go, for the first progress line, e.g.
// "timeout 15m; polls at once, then every 10ms".
func (o *options) describe(d defaults) string {
	timeout := d.timeout
	if o.timeout.set {
		timeout = o.timeout.d
	}
	parts := []string{"no timeout"}
	if timeout > 0 {
		parts[0] = "timeout " + human(timeout)
	}
	switch {
	case o.maxInterval.set:
		parts = append(parts, fmt.Sprintf("polls at once, then every %s doubling to %s", human(o.interval.d), human(o.maxInterval.d)))
	case o.interval.set:
		parts = append(parts, "polls at once, then every "+human(o.interval.d))
	default:
		parts = append(parts, d.polling)
	}
	stall := d.stall
	if o.stallTimeout.set {
		stall = o.stallTimeout.d
	}
	if stall > 0 {
		parts = append(parts, "stall timeout "+human(stall))
	}
	return strings.Join(parts, "; ")
}

// durationFlag is a duration flag that remembers whether it was given, so
// that an absent flag keeps the provider's default, and that says what a
// duration looks like when the value is wrong.
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return errors.New("want a duration such as 30s, 5m or 1h30m (a number needs its unit)")
	}
	if d < 0 {
		return errors.New("a duration must not be negative")
	}
	f.d, f.set = d, true
	return nil
}

// parseArgs parses flags wherever they are among the arguments: the flag
// package stops at the first positional argument, and both
// "wait narada --json req_1" and "wait narada req_1 --json" must work.
// After "--" everything is positional. It returns the positional
// arguments in order.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := refuseKeyFlag(args); err != nil {
		return nil, err
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s", dashes(err.Error()))
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// refuseKeyFlag explains why there is no flag for the key itself, without
// repeating the value, which may be a real key.
func refuseKeyFlag(args []string) error {
	for _, arg := range args {
		if arg == "--" {
			return nil
		}
		name := strings.TrimLeft(arg, "-")
		if name == arg {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		switch strings.ToLower(name) {
		case "key", "api-key", "apikey", "api_key", "token":
			return usagef("there is no --%s flag, on purpose: a key on the command line shows in ps and in the shell history. Set the provider's environment variable (e.g. NARADA_API_KEY) or use --key-file FILE", name)
		}
	}
	return nil
}

// dashes rewrites the flag package's "-name" into the "--name" this
// command's help uses.
func dashes(msg string) string {
	msg = strings.Replace(msg, "flag -", "flag --", 1)
	return strings.Replace(msg, "defined: -", "defined: --", 1)
}

// human writes a duration without the zero units of time.Duration.String:
// "15m", "4h", "1h30m", "10ms".
func human(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
