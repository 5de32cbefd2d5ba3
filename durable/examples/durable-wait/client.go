package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jobpoll/poll/durable"
)

// client is one start of a durable client that prints the waits it
// finishes.
type client struct {
	name   string
	c      *durable.Client
	cancel func()
	wg     sync.WaitGroup
}

func session(ctx context.Context, name, db string, cfg durable.Config) (*client, error) {
	c, err := durable.Open(ctx, db, cfg)
	if err != nil {
		return nil, err
	}
	s := &client{name: name, c: c}
	outcomes, cancel := c.Subscribe()
	s.cancel = cancel
	s.wg.Go(func() {
		for r := range outcomes {
			fmt.Printf("client %s: wait %s %s\n", name, r.ID, describe(r))
		}
	})
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	fmt.Printf("client %s started\n", name)
	return s, nil
}

// describe says how a wait ended, with its numbers.
func describe(r *durable.Result) string {
	how := fmt.Sprintf("ended %s", r.Status)
	if err := r.Err(); err != nil {
		how = "failed: " + err.Error()
	}
	return fmt.Sprintf("(%s %s) after %d attempts in %v: %s", r.Target.Provider, r.Target.Kind, r.Attempts, r.Elapsed().Round(100*time.Millisecond), how)
}

// running counts the waits not ended yet.
func (s *client) running(ctx context.Context, ids []durable.WaitID) int {
	n := 0
	for _, id := range ids {
		if r, err := s.c.Get(ctx, id); err == nil && !r.Done {
			n++
		}
	}
	return n
}

func (s *client) close() error {
	err := s.c.Close() // ends the subscription too
	s.cancel()
	s.wg.Wait()
	return err
}
