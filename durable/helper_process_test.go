package durable

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// The environment of a worker child process.
const (
	envRole        = "JOBPOLL_DURABLE_ROLE" // "worker"
	envDSN         = "JOBPOLL_DURABLE_DSN"
	envIngestlyURL = "JOBPOLL_DURABLE_INGESTLY_URL"
	envWorkerID    = "JOBPOLL_DURABLE_WORKER_ID"
	envWorkers     = "JOBPOLL_DURABLE_WORKERS"
	envRescueAfter = "JOBPOLL_DURABLE_RESCUE_AFTER"
)

// readyLine is what a worker prints once it works waits.
const readyLine = "ready"

func runHelper(role string) int {
	if role != "worker" {
		fmt.Fprintf(os.Stderr, "unknown helper role %q\n", role)
		return 2
	}
	if err := runWorker(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// runWorker works the waits of the database in JOBPOLL_DURABLE_DSN, with
// the Ingestly kind pointed at JOBPOLL_DURABLE_INGESTLY_URL, until SIGTERM
// (a graceful stop) or SIGKILL.
func runWorker() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ing, err := ingestly.New(ingestlytest.APIKey, ingestly.WithBaseURL(os.Getenv(envIngestlyURL)))
	if err != nil {
		return err
	}
	cfg := Config{
		Kinds:        IngestlyKinds(ing),
		ID:           os.Getenv(envWorkerID),
		PollInterval: 50 * time.Millisecond,
		JobTimeout:   2 * time.Second,
		RescueAfter:  3 * time.Second,
		Logger:       slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if n, err := strconv.Atoi(os.Getenv(envWorkers)); err == nil {
		cfg.Workers = n
	}
	if d, err := time.ParseDuration(os.Getenv(envRescueAfter)); err == nil {
		cfg.RescueAfter = d
	}
	c, err := Open(ctx, os.Getenv(envDSN), cfg)
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	fmt.Println(readyLine)
	<-ctx.Done()
	return c.Close()
}

// workerProc is a worker child process.
type workerProc struct {
	id     string
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan error
}

// startWorker starts a worker process on dsn and waits until it works.
func startWorker(t *testing.T, dsn, ingestlyURL, id string, env ...string) *workerProc {
	t.Helper()
	w := &workerProc{id: id, done: make(chan error, 1)}
	w.cmd = exec.Command(os.Args[0], "-test.run=^$")
	w.cmd.Env = append(os.Environ(), envRole+"=worker", envDSN+"="+dsn, envIngestlyURL+"="+ingestlyURL, envWorkerID+"="+id)
	w.cmd.Env = append(w.cmd.Env, env...)
	stdout, err := w.cmd.StdoutPipe()
	require.NoError(t, err)
	w.cmd.Stderr = &lockedWriter{mu: &w.mu, w: &w.stderr}
	require.NoError(t, w.cmd.Start())
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if sc.Text() == readyLine && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
		w.done <- w.cmd.Wait()
	}()
	t.Cleanup(func() {
		w.kill()
		if t.Failed() {
			t.Logf("worker %s stderr:\n%s", id, w.output())
		}
	})
	select {
	case ok := <-ready:
		require.True(t, ok, "worker %s exited before it was ready:\n%s", id, w.output())
	case <-time.After(60 * time.Second):
		t.Fatalf("worker %s not ready after 60s:\n%s", id, w.output())
	}
	return w
}

func (w *workerProc) output() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// kill sends SIGKILL and reaps the process; it is idempotent.
func (w *workerProc) kill() {
	_ = w.cmd.Process.Signal(syscall.SIGKILL) // fails once it has exited
	w.wait()
}

// stop asks for a graceful stop and waits for it.
func (w *workerProc) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-w.done:
		require.NoError(t, err, "worker %s:\n%s", w.id, w.output())
		w.done <- err
	case <-time.After(60 * time.Second):
		t.Fatalf("worker %s did not stop", w.id)
	}
}

func (w *workerProc) wait() {
	err := <-w.done
	w.done <- err
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
