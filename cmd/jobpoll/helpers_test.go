package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// fast keeps real-time waits tiny.
var fast = []string{"--interval", "10ms"}

// testEnv holds the fake servers' keys, as the environment would.
var testEnv = map[string]string{
	"NARADA_API_KEY":   naradatest.APIKey,
	"DOCUMIND_API_KEY": documindtest.APIKey,
	"INGESTLY_API_KEY": ingestlytest.APIKey,
}

// secrets are strings that must never show in any output.
var secrets = []string{naradatest.APIKey, documindtest.APIKey, ingestlytest.APIKey}

// outcome is what one run of the command left behind.
type outcome struct {
	code           int
	stdout, stderr string
}

func (o outcome) String() string {
	return "exit " + strconv.Itoa(o.code) + "\n--- stdout\n" + o.stdout + "--- stderr\n" + o.stderr
}

// call runs the command in-process with env as the environment.
func call(t *testing.T, env map[string]string, stdin string, args ...string) outcome {
	t.Helper()
	return callCtx(context.Background(), t, env, stdin, args...)
}

func callCtx(ctx context.Context, t *testing.T, env map[string]string, stdin string, args ...string) outcome {
	t.Helper()
	var stdout, stderr syncBuffer
	getenv := func(k string) string { return env[k] }
	code := run(ctx, args, strings.NewReader(stdin), &stdout, &stderr, getenv)
	o := outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
	assertNoSecret(t, o, env)
	return o
}

// assertNoSecret checks that no key, the fakes' or the environment's,
// appears in any output.
func assertNoSecret(t *testing.T, o outcome, env map[string]string) {
	t.Helper()
	keys := append([]string{}, secrets...)
	for k, v := range env {
		if strings.HasSuffix(k, "_API_KEY") && v != "" {
			keys = append(keys, v)
		}
	}
	for _, key := range keys {
		assert.NotContains(t, o.stdout, key, "a key on stdout")
		assert.NotContains(t, o.stderr, key, "a key on stderr")
	}
}

// with returns args followed by more.
func with(args []string, more ...string) []string {
	return append(append([]string{}, args...), more...)
}

// decodeJSON parses stdout as one JSON value.
func decodeJSON(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(stdout))
	require.NoError(t, dec.Decode(&v), "stdout is not JSON: %q", stdout)
	require.False(t, dec.More(), "stdout holds more than one JSON value: %q", stdout)
	return v
}

// syncBuffer is a bytes.Buffer safe for the progress clock's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newNarada(t *testing.T) *naradatest.Server {
	t.Helper()
	srv := naradatest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

func newDocumind(t *testing.T) *documindtest.Server {
	t.Helper()
	srv := documindtest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

func newIngestly(t *testing.T) *ingestlytest.Server {
	t.Helper()
	srv := ingestlytest.NewServer()
	t.Cleanup(srv.Close)
	return srv
}

// withFast returns args followed by the tiny interval.
func withFast(args ...string) []string {
	return append(args, fast...)
}
