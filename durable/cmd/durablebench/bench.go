package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jobpoll/poll/durable"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// bench submits the waits, starts the workers and times them.
func bench(ctx context.Context, o options, logger *slog.Logger) error {
	if o.polls < 2 || o.waits < 1 || o.procs < 1 {
		return fmt.Errorf("-polls must be at least 2, -waits and -procs at least 1")
	}
	db, cleanup, err := freshDB(ctx, o.db)
	if err != nil {
		return err
	}
	defer cleanup()
	o.db = db
	fake := ingestlytest.NewServer()
	defer fake.Close()
	// Closed before cleanup drops the database.
	c, err := durable.Open(ctx, o.db, durable.Config{Kinds: durable.IngestlyKinds(fake.Client()), Logger: logger})
	if err != nil {
		return err
	}
	defer c.Close()

	stages := []ingestlytest.Stage{{Status: "queued", Polls: 1}}
	if o.polls > 2 {
		stages = append(stages, ingestlytest.Stage{Status: "running", Polls: o.polls - 2})
	}
	stages = append(stages, ingestlytest.Stage{Status: "completed"})
	submitStart := time.Now()
	for range o.waits {
		trig := fake.AddRun(ingestlytest.Script{Stages: stages})
		if _, err := c.Submit(ctx, durable.IngestlyRun(trig.DocumentID, trig.RunID), durable.Options{Strategy: new(durable.ConstantSpec(0))}); err != nil {
			return err
		}
	}
	submitted := time.Since(submitStart)

	m := &meter{total: o.waits, all: make(chan struct{})}
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			_ = p.Process.Signal(syscall.SIGTERM)
			_ = p.Wait()
		}
	}()
	var ready sync.WaitGroup
	for i := range o.procs {
		p, err := startWorker(o, fake.URL, fmt.Sprintf("bench-worker-%d", i+1), m, &ready)
		if err != nil {
			return err
		}
		procs = append(procs, p)
	}
	ready.Wait()
	start, headStart := time.Now(), m.count()
	select {
	case <-m.all:
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("only %d of %d waits ended in 10 minutes", m.count(), o.waits)
	}
	elapsed := time.Since(start)
	timed := o.waits - headStart
	fmt.Printf("db=%s procs=%d workers/proc=%d waits=%d polls/wait=%d\n", kind(o.db), o.procs, o.workers, o.waits, o.polls)
	fmt.Printf("submit: %d waits in %v (%.0f/s)\n", o.waits, submitted.Round(time.Millisecond), float64(o.waits)/submitted.Seconds())
	fmt.Printf("work:   %d waits in %v after all workers were ready: %.1f waits/s, %.1f attempts/s\n",
		timed, elapsed.Round(time.Millisecond), float64(timed)/elapsed.Seconds(), float64(timed*o.polls)/elapsed.Seconds())
	fmt.Printf("by worker: %s\n", m.byWorker())
	return nil
}

func kind(dsn string) string {
	if durable.IsPostgres(dsn) {
		return "postgres"
	}
	return "sqlite"
}

// meter counts the waits the workers report done.
type meter struct {
	mu    sync.Mutex
	total int
	done  map[string]bool
	by    map[string]int
	all   chan struct{}
}

func (m *meter) add(worker, id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done == nil {
		m.done, m.by = map[string]bool{}, map[string]int{}
	}
	if m.done[id] {
		return
	}
	m.done[id] = true
	m.by[worker]++
	if len(m.done) == m.total {
		close(m.all)
	}
}

func (m *meter) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.done)
}

func (m *meter) byWorker() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprint(m.by)
}

// startWorker starts this binary as a worker and reads its lines.
func startWorker(o options, url, id string, m *meter, ready *sync.WaitGroup) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-role", "worker", "-db", o.db, "-url", url, "-id", id,
		"-workers", fmt.Sprint(o.workers), "-poll-interval", o.interval.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready.Add(1)
	go func() {
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "ready" && !signalled:
				signalled = true
				ready.Done()
			case strings.HasPrefix(line, "done "):
				m.add(id, strings.TrimPrefix(line, "done "))
			}
		}
		if !signalled {
			ready.Done()
		}
	}()
	return cmd, nil
}
