package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// run is the whole command but the process: main calls it with the real
// arguments, streams and environment; tests call it in-process. It returns
// the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topHelp())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, topHelp())
		return exitOK
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, "jobpoll", version())
		return exitOK
	case "help":
		return help(args[1:], stdout, stderr)
	}
	n, rest, err := route(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, n.help())
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "%v\n\n%s", err, n.help())
		return exitUsage
	}
	s := &session{cmd: n.cmd, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	return s.run(ctx, rest)
}

// help serves "jobpoll help [command...]".
func help(words []string, stdout, stderr io.Writer) int {
	if len(words) == 0 {
		fmt.Fprint(stdout, topHelp())
		return exitOK
	}
	n, rest, err := route(words)
	if (err != nil && !errors.Is(err, flag.ErrHelp)) || len(rest) > 0 {
		if err == nil {
			err = fmt.Errorf("jobpoll help: %q is not part of a command", rest[0])
		}
		fmt.Fprintf(stderr, "%v\n\n%s", err, n.help())
		return exitUsage
	}
	fmt.Fprint(stdout, n.help())
	return exitOK
}

// execFunc runs a command once its flags are parsed.
type execFunc func(ctx context.Context, s *session, args []string) error

// command is one leaf of the command tree, such as "wait narada".
type command struct {
	path     string // the words after "jobpoll"
	args     string // the positional arguments, for the usage line
	summary  string // one line, for the lists
	help     string // what it does, its own flags, examples
	defaults defaults
	// setup registers the command's own flags on a fresh flag set and
	// returns what runs it; the flags' values live in its closure.
	setup func(fs *flag.FlagSet) execFunc
}

// defaults are a provider's wait defaults, for the help and the first
// progress line.
type defaults struct {
	timeout time.Duration
	polling string // the provider's schedule, in words
	stall   time.Duration
}

// session is one run of a command: its streams, flags and helpers.
type session struct {
	cmd    *command
	opts   options
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string

	http     *http.Client
	progress *progress
	stdinBy  string // the flag that read stdin, if any
}

func (s *session) run(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("jobpoll "+s.cmd.path, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, help on -h
	s.opts.register(fs)
	exec := s.cmd.setup(fs)
	positional, err := parseArgs(fs, args)
	if err == nil {
		err = s.opts.check()
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(s.stdout, s.cmd.fullHelp())
		return exitOK
	case err != nil:
		s.report(ctx, err)
		return exitCode(ctx, err)
	}

	transport := http.DefaultTransport.(*http.Transport).Clone()
	// A server that accepts a request and never answers must not hold a
	// poll for ever: the attempt fails as a timeout, which is retried.
	transport.ResponseHeaderTimeout = time.Minute
	defer transport.CloseIdleConnections()
	s.http = &http.Client{Transport: transport}
	s.progress = newProgress(s.stderr, isTerminal(s.stderr, s.getenv), s.opts.quiet, terminalWidth(s.getenv))

	err = exec(ctx, s, positional)
	s.progress.end()
	if err != nil {
		s.report(ctx, err)
	}
	return exitCode(ctx, err)
}

// wantArgs checks the number of positional arguments; names describes
// them, e.g. "the request id".
func (s *session) wantArgs(args []string, names ...string) error {
	switch {
	case len(args) < len(names):
		return usagef("missing %s", strings.Join(names[len(args):], " and "))
	case len(args) > 0 && len(names) == 0:
		return usagef("unexpected argument %q: this command takes flags only (they start with --)", args[0])
	case len(args) > len(names):
		return usagef("unexpected argument %q after %s (flags start with --)", args[len(names)], strings.Join(names, " and "))
	}
	return nil
}

// again is the command line that resumes a wait, for messages.
func (s *session) again(words ...string) string {
	line := "jobpoll " + strings.Join(quoteAll(words), " ")
	if s.opts.baseURL != "" {
		line += " --base-url " + shellQuote(s.opts.baseURL)
	}
	return line
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return out
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// version is the module version the binary was built from: a tag for
// "go install ...@latest", "(devel)" for a local build.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// userAgent is the product token the providers see before the library's.
func userAgent() string {
	if v := version(); strings.HasPrefix(v, "v") {
		return "jobpoll-cli/" + v
	}
	return "jobpoll-cli"
}
