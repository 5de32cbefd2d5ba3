// Command durable-wait shows durable waits: waits kept in a SQLite file by
// River, which survive the program stopping and go on when it starts
// again. It waits on in-process fake Documind, Narada and Ingestly
// servers: no network, no API key, no database server.
//
// By default it is a short demo (about 12 s): client A submits seven
// waits, is stopped while most are still running, and client B, opened on
// the same file, finishes them.
//
//	go run ./examples/durable-wait
//
// With -db the file is kept: stop the program at any time (Ctrl-C) and run
// the same command again to go on where it stopped. The fakes start over
// with the process, so their jobs start over too, but the waits, their
// attempt counts and their outcomes are the file's.
//
//	go run ./examples/durable-wait -db waits.db
//
// To share the waits between machines, give a postgres:// URL to -db.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/jobpoll/poll/durable"
)

func main() {
	db := flag.String("db", "", "SQLite file (kept) or postgres:// URL; default: a temp file, removed at the end")
	stopAfter := flag.Duration("stop-after", 3*time.Second, "stop client A after this long, then finish with client B (0: one client to the end)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *db, *stopAfter); err != nil {
		fmt.Fprintln(os.Stderr, "durable-wait:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, db string, stopAfter time.Duration) error {
	if db == "" {
		dir, err := os.MkdirTemp("", "durable-wait-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db = filepath.Join(dir, "waits.db")
	}
	f := startFakes()
	defer f.close()
	cfg := durable.Config{
		Kinds:        f.kinds(),
		PollInterval: 100 * time.Millisecond,
		Logger:       slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	}
	fmt.Printf("waits are kept in %s\n", db)
	start := time.Now()

	a, err := session(ctx, "A", db, cfg)
	if err != nil {
		return err
	}
	ids, err := submit(ctx, a, f.targets)
	if err != nil {
		return errors.Join(err, a.close())
	}
	if stopAfter > 0 {
		select {
		case <-time.After(stopAfter):
		case <-ctx.Done():
		}
		running := a.running(ctx, ids)
		if err := a.close(); err != nil {
			return err
		}
		fmt.Printf("client A stopped at %v with %d waits still running; they stay in the file\n", since(start), running)
		if ctx.Err() != nil {
			return nil
		}
		if a, err = session(ctx, "B", db, cfg); err != nil {
			return err
		}
	}
	defer a.close()
	return report(ctx, a, ids, start)
}

// submit submits every target; on a second start the same targets give
// back the same waits.
func submit(ctx context.Context, s *client, targets []durable.Target) ([]durable.WaitID, error) {
	ids := make([]durable.WaitID, len(targets))
	for i, t := range targets {
		// Short delays for the demo; without a Strategy each kind uses
		// its provider's default.
		id, err := s.c.Submit(ctx, t, durable.Options{Strategy: new(durable.ConstantSpec(500 * time.Millisecond)), Timeout: 5 * time.Minute})
		if err != nil {
			return nil, err
		}
		ids[i] = id
		fmt.Printf("client %s: wait %s for %s\n", s.name, id, t)
	}
	return ids, nil
}

// report awaits every wait, from the file, and sums them up.
func report(ctx context.Context, s *client, ids []durable.WaitID, start time.Time) error {
	ok, failed := 0, 0
	for _, id := range ids {
		r, err := s.c.Await(ctx, id)
		switch {
		case ctx.Err() != nil:
			fmt.Println("stopped; run again with the same -db to go on")
			return nil
		case r == nil:
			return err
		case err != nil:
			failed++
		default:
			ok++
		}
	}
	fmt.Printf("all %d waits ended after %v: %d succeeded, %d did not\n", len(ids), since(start), ok, failed)
	return nil
}

func since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }
