package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"no arguments", nil, []string{"Usage:", "jobpoll wait narada <requestId>"}},
		{"unknown command", []string{"wiat", "narada", "x"}, []string{`jobpoll: unknown command "wiat"; choose wait, run or trigger`}},
		{"missing provider", []string{"wait"}, []string{"jobpoll wait: missing the provider (narada, documind or ingestly)"}},
		{"unknown provider", []string{"wait", "jenkins", "7"}, []string{`jobpoll wait: unknown provider "jenkins"`}},
		{"unknown job kind", []string{"wait", "documind", "extract", "x"}, []string{`unknown job kind "extract"; choose review or batch`}},
		{"flags before the command", []string{"--json", "wait", "narada", "x"}, []string{"flags go after the command"}},
		{"missing id", []string{"wait", "narada"}, []string{"jobpoll wait narada: missing the request id", "Run 'jobpoll help wait narada' for usage."}},
		{"too many ids", []string{"wait", "narada", "a", "b"}, []string{`unexpected argument "b" after the request id`}},
		{"unknown flag", []string{"wait", "narada", "x", "--verbose"}, []string{"flag provided but not defined: --verbose"}},
		{"duration without a unit", []string{"wait", "narada", "x", "--timeout", "30"}, []string{`invalid value "30" for flag --timeout: want a duration such as 30s`}},
		{"negative duration", []string{"wait", "narada", "x", "--interval=-1s"}, []string{"must not be negative"}},
		{"zero interval", []string{"wait", "narada", "x", "--interval", "0s"}, []string{"--interval must be more than 0"}},
		{"max interval alone", []string{"wait", "narada", "x", "--max-interval", "1m"}, []string{"--max-interval needs --interval"}},
		{"max below interval", []string{"wait", "narada", "x", "--interval", "1m", "--max-interval", "1s"}, []string{"--max-interval 1s is shorter than --interval 1m0s"}},
		{"a key flag", []string{"wait", "narada", "x", "--key", "sk-live-123"}, []string{"there is no --key flag, on purpose"}},
		{"an api-key flag", []string{"wait", "narada", "x", "--api-key=sk-live-123"}, []string{"there is no --api-key flag"}},
		{"plain http to a remote host", []string{"wait", "narada", "x", "--base-url", "http://api.example.com"}, []string{"plain http, which is only allowed for loopback hosts"}},
		{"run without a prompt", []string{"run", "narada", "--window", "w"}, []string{"--prompt is required"}},
		{"run without a window", []string{"run", "narada", "--prompt", "p"}, []string{"--window is required", "--mode cloud"}},
		{"run with a bad mode", []string{"run", "narada", "--prompt", "p", "--mode", "headless"}, []string{`--mode "headless": want client, cloud or cloud_browser`}},
		{"run with an argument", []string{"run", "narada", "p", "--window", "w"}, []string{`unexpected argument "p": this command takes flags only`}},
		{"wait run without a document", []string{"wait", "ingestly", "run", "r1"}, []string{"--document is required"}},
		{"wait run without a run id", []string{"wait", "ingestly", "run", "--document", "d"}, []string{"missing the run id; for a held document with no run id yet, use --held"}},
		{"wait run with both", []string{"wait", "ingestly", "run", "r1", "--held", "--document", "d"}, []string{"either a run id or --held"}},
		{"trigger without a workflow", []string{"trigger", "ingestly", "--file", "x"}, []string{"--workflow is required"}},
		{"trigger without a file", []string{"trigger", "ingestly", "--workflow", "w"}, []string{"--file is required"}},
		{"trigger from stdin without a name", []string{"trigger", "ingestly", "--workflow", "w", "--file", "-"}, []string{"--file - needs --filename"}},
		{"trigger with a missing file", []string{"trigger", "ingestly", "--workflow", "w", "--file", "/nonexistent/po.pdf"}, []string{"--file: open /nonexistent/po.pdf: no such file"}},
		{"trigger with a positional file", []string{"trigger", "ingestly", "po.pdf", "--workflow", "w"}, []string{"give the document with --file po.pdf"}},
		{"help for nothing", []string{"help", "wait", "jenkins"}, []string{`unknown provider "jenkins"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := call(t, testEnv, "", tt.args...)
			require.Equal(t, exitUsage, o.code, o)
			assert.Empty(t, o.stdout, "errors go to stderr only")
			for _, want := range tt.stderr {
				assert.Contains(t, o.stderr, want)
			}
			assert.NotContains(t, o.stderr, "sk-live-123", "a key given as a flag is not repeated")
		})
	}
}

func TestStdinReadOnce(t *testing.T) {
	t.Parallel()
	o := call(t, testEnv, "a prompt", "run", "narada", "--prompt", "-", "--mode", "cloud", "--key-file", "-")
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "--prompt - and --key-file - both read stdin; only one of them can")
}

func TestFlagsAnywhere(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.AddTask(naradatest.Task{RequestID: "-odd-id", Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "ok"}}})
	srv.AddTask(naradatest.Task{RequestID: "req_1", Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "ok"}}})
	for _, args := range [][]string{
		{"wait", "narada", "req_1", "--json", "--interval", "10ms", "--base-url", srv.URL},
		{"wait", "narada", "--json", "--interval=10ms", "req_1", "--base-url=" + srv.URL},
		{"wait", "narada", "--json", "--interval", "10ms", "--base-url", srv.URL, "--", "-odd-id"},
	} {
		o := call(t, testEnv, "", args...)
		require.Equal(t, exitOK, o.code, "%q\n%s", args, o)
		assert.Equal(t, "success", decodeJSON(t, o.stdout)["status"])
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"jobpoll waits for a job", "Usage:", "Examples:", "Exit status:", "NARADA_API_KEY"}},
		{[]string{"-h"}, []string{"jobpoll trigger ingestly --workflow <workflowId> --file <path>"}},
		{[]string{"help"}, []string{"130  interrupted"}},
		{[]string{"help", "wait", "narada"}, []string{"Usage: jobpoll wait narada <requestId> [flags]", "input-required  exit 2", "Defaults: timeout 15m", "Examples:"}},
		{[]string{"wait", "narada", "-h"}, []string{"Usage: jobpoll wait narada <requestId> [flags]"}},
		{[]string{"wait", "narada", "req_1", "--help"}, []string{"Usage: jobpoll wait narada <requestId> [flags]"}},
		{[]string{"wait", "--help"}, []string{"jobpoll wait documind review <documentId> [flags]", "jobpoll wait ingestly run <runId>"}},
		{[]string{"wait", "documind", "help"}, []string{"jobpoll wait documind batch <batchId> [flags]"}},
		{[]string{"help", "wait", "documind", "batch"}, []string{"stall timeout 10m", "JSON object per line"}},
		{[]string{"help", "wait", "documind", "review"}, []string{"Defaults: timeout 4h", "reviewed results"}},
		{[]string{"help", "wait", "ingestly", "run"}, []string{"--held", "--save FILE", "Defaults: timeout 24h"}},
		{[]string{"run", "narada", "--help"}, []string{"--prompt TEXT", "never retried", "10s after the dispatch"}},
		{[]string{"trigger", "ingestly", "-h"}, []string{"--idempotency-key KEY", "--file PATH"}},
		{[]string{"--version"}, []string{"jobpoll "}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			o := call(t, nil, "", tt.args...)
			require.Equal(t, exitOK, o.code, o)
			assert.Empty(t, o.stderr, "help goes to stdout")
			for _, want := range tt.want {
				assert.Contains(t, o.stdout, want)
			}
		})
	}
}

func TestEveryCommandHelpDocumentsExitCodes(t *testing.T) {
	t.Parallel()
	for _, c := range commands {
		h := c.fullHelp()
		for _, code := range []string{"\n  0 ", "\n  1 ", "\n  2 ", "\n  3 ", "\n  4 ", "\n  130 "} {
			assert.Contains(t, h, code, c.path)
		}
		assert.Contains(t, h, "Examples:", c.path)
		for _, line := range strings.Split(h, "\n") {
			if !strings.HasPrefix(line, "  jobpoll ") && !strings.HasPrefix(line, "  curl ") && !strings.HasPrefix(line, "  echo ") {
				assert.LessOrEqual(t, len([]rune(line)), 80, "%s: a help line too long for a terminal: %q", c.path, line)
			}
		}
	}
}

func TestMissingKey(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"wait", "narada", "req_1"},
		{"run", "narada", "--prompt", "p", "--mode", "cloud"},
		{"wait", "documind", "review", "550e8400-e29b-41d4-a716-446655440000"},
		{"wait", "documind", "batch", "550e8400-e29b-41d4-a716-446655440000"},
		{"wait", "ingestly", "run", "r", "--document", "d"},
	} {
		o := call(t, map[string]string{}, "", args...)
		require.Equal(t, exitUsage, o.code, o)
		assert.Empty(t, o.stdout)
		env := strings.ToUpper(args[1]) + "_API_KEY"
		if args[0] == "run" {
			env = "NARADA_API_KEY"
		}
		assert.Contains(t, o.stderr, "set "+env+" (export "+env+"=...) or pass --key-file FILE", args)
	}
}

func TestWrongKeyIsNeverPrinted(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-DO-NOT-PRINT-0123456789"
	srv := newNarada(t)
	srv.AddTask(naradatest.Task{RequestID: "req_1"})
	env := map[string]string{"NARADA_API_KEY": secret}
	for _, extra := range [][]string{nil, {"--json"}, {"--quiet"}} {
		o := call(t, env, "", with([]string{"wait", "narada", "req_1", "--base-url", srv.URL}, extra...)...)
		require.Equal(t, exitUsage, o.code, o)
		assert.Contains(t, o.stderr, "401 Unauthorized")
		assert.Contains(t, o.stderr, "The API refused the key: check NARADA_API_KEY.")
		// call checks that the key shows nowhere.
	}

	keyFile := filepath.Join(t.TempDir(), "narada.key")
	require.NoError(t, os.WriteFile(keyFile, []byte(secret+"\n"), 0o600))
	o := call(t, nil, "", "wait", "narada", "req_1", "--key-file", keyFile, "--base-url", srv.URL)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "check the key in --key-file "+keyFile)
	assert.NotContains(t, o.stdout+o.stderr, secret)
}

func TestKeyFile(t *testing.T) {
	t.Parallel()
	srv := newNarada(t)
	srv.AddTask(naradatest.Task{RequestID: "req_1", Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "ok"}}})
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	require.NoError(t, os.WriteFile(good, []byte("  "+naradatest.APIKey+"\n"), 0o600))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	twoLines := filepath.Join(dir, "two")
	require.NoError(t, os.WriteFile(twoLines, []byte("secret-line-one\nsecret-line-two\n"), 0o600))

	base := []string{"wait", "narada", "req_1", "--base-url", srv.URL}
	o := call(t, nil, "", with(base, "--key-file", good)...)
	require.Equal(t, exitOK, o.code, o)
	assert.Equal(t, "ok\n", o.stdout)

	o = call(t, nil, naradatest.APIKey+"\n", with(base, "--key-file", "-")...)
	require.Equal(t, exitOK, o.code, "the key from stdin\n%s", o)

	o = call(t, map[string]string{"NARADA_API_KEY": "wrong-env-key"}, "", with(base, "--key-file", good)...)
	require.Equal(t, exitOK, o.code, "--key-file wins over the environment\n%s", o)

	o = call(t, nil, "", with(base, "--key-file", empty)...)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "is empty: it should hold the Narada API key")

	o = call(t, nil, "", with(base, "--key-file", twoLines)...)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "holds more than one line")
	assert.NotContains(t, o.stderr, "secret-line")

	o = call(t, nil, "", with(base, "--key-file", filepath.Join(dir, "missing"))...)
	require.Equal(t, exitUsage, o.code, o)
	assert.Contains(t, o.stderr, "--key-file: open ")
}
