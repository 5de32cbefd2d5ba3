package main

import (
	"context"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/jobpoll/poll/durable"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/ingestly/ingestlytest"
)

// work is the worker role: it works waits until SIGTERM and prints one
// "done <id>" line per wait that ends here.
func work(ctx context.Context, o options, logger *slog.Logger) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ing, err := ingestly.New(ingestlytest.APIKey, ingestly.WithBaseURL(o.url))
	if err != nil {
		return err
	}
	c, err := durable.Open(ctx, o.db, durable.Config{
		Kinds: durable.IngestlyKinds(ing), ID: o.id, Workers: o.workers,
		PollInterval: o.interval, Logger: logger, SkipMigrations: true,
	})
	if err != nil {
		return err
	}
	outcomes, cancel := c.Subscribe()
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return err
	}
	fmt.Println("ready")
	for {
		select {
		case r, ok := <-outcomes:
			if !ok {
				return c.Close()
			}
			fmt.Println("done", r.ID)
		case <-ctx.Done():
			return c.Close()
		}
	}
}
