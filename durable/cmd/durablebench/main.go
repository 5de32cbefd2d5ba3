// Command durablebench measures how many durable waits per second worker
// processes sustain: it starts an in-process Ingestly fake, submits waits
// whose runs finish after a few polls, starts worker processes (this
// binary again, with -role worker) and times them until every wait ended.
//
//	go run ./cmd/durablebench -waits 2000                    # one worker, SQLite in a temp file
//	go run ./cmd/durablebench -db "$JOBPOLL_PG_URL" -procs 3 # three workers on PostgreSQL
//
// Each wait makes -polls attempts (queued, running..., completed) with no
// delay between them (ConstantSpec(0)), so the numbers are the cost of an
// attempt in the job engine: one River fetch, one Poll of the fake over
// loopback HTTP, one snooze or completion written back.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jobpoll/poll/durable"
)

type options struct {
	role     string
	db       string
	url      string
	id       string
	waits    int
	polls    int
	procs    int
	workers  int
	interval time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.role, "role", "bench", "bench, or worker (started by the bench itself)")
	flag.StringVar(&o.db, "db", "", "a new SQLite file, or a postgres:// URL of a server to create a database on (default: a SQLite file in a temp dir)")
	flag.StringVar(&o.url, "url", "", "the Ingestly fake's URL (worker role)")
	flag.StringVar(&o.id, "id", "", "the worker's River client id (worker role)")
	flag.IntVar(&o.waits, "waits", 1000, "waits to submit")
	flag.IntVar(&o.polls, "polls", 3, "attempts each wait makes (at least 2)")
	flag.IntVar(&o.procs, "procs", 1, "worker processes")
	flag.IntVar(&o.workers, "workers", durable.DefaultWorkers, "attempts each worker process runs at once (Config.Workers)")
	flag.DurationVar(&o.interval, "poll-interval", durable.DefaultPollInterval, "River's fetch poll interval (Config.PollInterval)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx := context.Background()
	var err error
	if o.role == "worker" {
		err = work(ctx, o, logger)
	} else {
		err = bench(ctx, o, logger)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "durablebench:", err)
		os.Exit(1)
	}
}
