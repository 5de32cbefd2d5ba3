package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind/documindtest"
	"github.com/jobpoll/poll/providers/narada"
	"github.com/jobpoll/poll/providers/narada/naradatest"
)

// buildBinary builds the command into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skips building the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build the binary with")
	}
	bin := filepath.Join(t.TempDir(), "jobpoll")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// processEnv is this process's environment without any provider key,
// plus keys.
func processEnv(keys map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasSuffix(name, "_API_KEY") {
			env = append(env, kv)
		}
	}
	for k, v := range keys {
		env = append(env, k+"="+v)
	}
	return env
}

// exec runs the binary to the end.
func execBinary(t *testing.T, bin string, keys map[string]string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = processEnv(keys)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	o := outcome{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	assertNoSecret(t, o, keys)
	return o
}

func TestBinary(t *testing.T) {
	bin := buildBinary(t)

	t.Run("exit codes and stream separation", func(t *testing.T) {
		srv := newNarada(t)
		srv.AddTask(naradatest.Task{RequestID: "req_ok", Steps: []naradatest.Step{{Status: narada.StatusSuccess, Text: "Booked.", AfterPolls: 1}}})
		srv.AddTask(naradatest.Task{RequestID: "req_err", Steps: []naradatest.Step{{Status: narada.StatusError, Text: "sold out"}}})
		srv.AddTask(naradatest.Task{RequestID: "req_ask", Steps: []naradatest.Step{{Status: narada.StatusInputRequired, Text: "Window or aisle?"}}})
		srv.AddTask(naradatest.Task{RequestID: "req_slow"})
		tests := []struct {
			name   string
			keys   map[string]string
			args   []string
			code   int
			stdout string
			stderr string
		}{
			{"succeeded", testEnv, []string{"wait", "narada", "req_ok"}, exitOK, "Booked.\n", `succeeded ("success")`},
			{"failed", testEnv, []string{"wait", "narada", "req_err"}, exitJobFailed, "", "ended failed (\"error\"): sold out"},
			{"input required", testEnv, []string{"wait", "narada", "req_ask"}, exitInput, "", "needs input: Window or aisle?"},
			{"timed out", testEnv, []string{"wait", "narada", "req_slow", "--timeout", "100ms"}, exitTimeout, "", "gave up waiting"},
			{"unknown id", testEnv, []string{"wait", "narada", "req_none"}, exitUsage, "", "404 Not Found"},
			{"wrong key", map[string]string{"NARADA_API_KEY": "sk-wrong-0123456789"}, []string{"wait", "narada", "req_ok"}, exitUsage, "", "401 Unauthorized"},
			{"missing key", nil, []string{"wait", "narada", "req_ok"}, exitUsage, "", "no Narada API key: set NARADA_API_KEY"},
			{"unknown command", testEnv, []string{"await", "narada", "req_ok"}, exitUsage, "", `unknown command "await"`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				o := execBinary(t, bin, tt.keys, with(tt.args, "--interval", "10ms", "--base-url", srv.URL)...)
				require.Equal(t, tt.code, o.code, o)
				assert.Equal(t, tt.stdout, o.stdout, "stdout holds the result and nothing else")
				assert.Contains(t, o.stderr, tt.stderr)
			})
		}
	})

	t.Run("help", func(t *testing.T) {
		o := execBinary(t, bin, nil, "--help")
		require.Equal(t, exitOK, o.code, o)
		assert.Contains(t, o.stdout, "Exit status:")
		assert.Empty(t, o.stderr)
	})

	t.Run("json output parses", func(t *testing.T) {
		srv := newDocumind(t)
		batch, err := srv.StartBatch(srv.AddDocument(documindtest.Document{Results: map[string]any{"total": "9.99"}}))
		require.NoError(t, err)
		o := execBinary(t, bin, testEnv, "wait", "documind", "batch", batch, "--json", "--interval", "10ms", "--base-url", srv.URL)
		require.Equal(t, exitOK, o.code, o)
		var b struct {
			BatchID string `json:"batch_id"`
			Status  string `json:"status"`
			Items   []struct {
				Results map[string]any `json:"results"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &b), o.stdout)
		assert.Equal(t, batch, b.BatchID)
		assert.Equal(t, "completed", b.Status)
		require.Len(t, b.Items, 1)
		assert.Equal(t, "9.99", b.Items[0].Results["total"])
		assert.Contains(t, o.stderr, "waiting for documind batch", "progress still goes to stderr")
	})

	t.Run("interrupt", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no SIGINT to send to a process on Windows")
		}
		for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			t.Run(sig.String(), func(t *testing.T) {
				srv := newNarada(t)
				srv.AddTask(naradatest.Task{RequestID: "req_forever"})
				interrupt(t, bin, srv.URL, sig)
			})
		}
	})
}

// interrupt starts a wait on a job that never finishes, sends sig once the
// first poll has answered, and checks that the command stops quickly and
// cleanly with exit 130.
func interrupt(t *testing.T, bin, baseURL string, sig os.Signal) {
	cmd := exec.Command(bin, "wait", "narada", "req_forever", "--interval", "10ms", "--base-url", baseURL)
	cmd.Env = processEnv(testEnv)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	var (
		mu     sync.Mutex
		stderr strings.Builder
	)
	polled, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "attempt 1 ") {
				once.Do(func() { close(polled) })
			}
		}
	}()
	select {
	case <-polled:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
		t.Fatalf("no first poll within 10s; stderr:\n%s", stderr.String())
	}

	require.NoError(t, cmd.Process.Signal(sig))
	sent := time.Now()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	elapsed := time.Since(sent)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, exitInterrupted, exit.ExitCode(), stderr.String())
	assert.Less(t, elapsed, 2*time.Second, "the wait stops at once")
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "jobpoll: interrupted: stopped waiting for narada task req_forever after ")
	assert.Contains(t, stderr.String(), "jobpoll: The job itself goes on; to wait again: jobpoll wait narada req_forever --base-url "+baseURL+"\n")
}
