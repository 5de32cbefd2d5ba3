package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// engine is what this package uses of a *river.Client, whatever its
// driver's transaction type.
type engine interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobDelete(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Client submits durable waits, awaits them and, once started, works
// them. It is safe for concurrent use. Several processes, on one machine
// (SQLite) or many (PostgreSQL), may open the same database: they share
// the waits.
type Client struct {
	cfg    Config
	kinds  kinds
	engine engine
	close  func() error
	logger *slog.Logger
	hub    *hub

	mu      sync.Mutex
	started bool
	hubDone chan struct{}
	closed  atomic.Bool
}

// Open opens the database named by dsn and returns a Client on it:
//
//   - a postgres:// or postgresql:// URL: PostgreSQL through River's
//     riverpgxv5 driver, for several machines;
//   - anything else: a SQLite file (created if missing), through River's
//     riversqlite driver on the pure-Go modernc.org/sqlite. River calls
//     this driver experimental. It is opened with one connection and WAL,
//     as River's own tests do.
//
// Unless cfg.SkipMigrations, Open runs River's migrations first. Close the
// client when done.
func Open(ctx context.Context, dsn string, cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ks, err := newKinds(cfg.Kinds, cfg.Strategies)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, kinds: ks, logger: cfg.Logger, hub: newHub(cfg.Logger)}
	w := &worker{kinds: ks, limiter: cfg.Limiter, slack: cfg.PollInterval, logger: cfg.Logger}
	if IsPostgres(dsn) {
		c.engine, c.close, err = openPostgres(ctx, dsn, cfg, w)
	} else {
		c.engine, c.close, err = openSQLite(ctx, dsn, cfg, w)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Start makes this process work waits: River fetches the attempts that
// are due and runs them, cfg.Workers at a time, until Stop. It needs
// Kinds. Outcomes of waits finished here reach [Client.Subscribe] and wake
// [Client.Await] at once.
func (c *Client) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed.Load():
		return ErrClosed
	case len(c.cfg.Kinds) == 0:
		return fmt.Errorf("%w: Start needs Config.Kinds", ErrInvalidConfig)
	case c.started:
		return nil
	}
	events, _ := c.engine.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled, river.EventKindJobFailed)
	// River closes events when it stops; the hub then ends.
	if err := c.engine.Start(ctx); err != nil {
		return fmt.Errorf("durable: starting River: %w", err)
	}
	c.started = true
	c.hubDone = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		c.hub.run(events, c.result)
	}(c.hubDone)
	return nil
}

// Stop stops working waits: no new attempt starts, and Stop returns once
// the running ones have finished (each is one fetch) or ctx is done. The
// waits themselves go on in other processes, or here after Start.
func (c *Client) Stop(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return nil
	}
	if err := c.engine.Stop(ctx); err != nil {
		return fmt.Errorf("durable: stopping River: %w", err)
	}
	select {
	case <-c.hubDone:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.started = false
	return nil
}

// usable returns ErrClosed once the client is closed.
func (c *Client) usable() error {
	if c.closed.Load() {
		return ErrClosed
	}
	return nil
}

// closeTimeout bounds the Stop that Close makes.
const closeTimeout = 30 * time.Second

// Close stops the client if it is working and closes the database.
func (c *Client) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	stopErr := c.Stop(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Swap(true) {
		return stopErr
	}
	c.hub.closeAll()
	return errors.Join(stopErr, c.close())
}

// Cancel ends a wait that has not ended, with no outcome: Await then
// returns [ErrWaitCanceled]. An attempt running at that moment is
// interrupted. Cancelling an ended wait changes nothing.
func (c *Client) Cancel(ctx context.Context, id WaitID) error {
	if err := c.usable(); err != nil {
		return err
	}
	row, err := c.engine.JobCancel(ctx, int64(id))
	if err != nil {
		if errors.Is(err, rivertype.ErrNotFound) {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return fmt.Errorf("durable: cancelling wait %s: %w", id, err)
	}
	if row.State == rivertype.JobStateCancelled {
		if r, err := c.resultFromRow(row); err == nil && r.End == "" {
			c.hub.publish(r) // no worker saw it end, so River sends no event
		}
	}
	return nil
}

// Delete removes a wait and its outcome, so that its target can be
// submitted afresh (a timed-out wait given a longer timeout, say). A wait
// whose attempt is running at that moment is not deleted: Delete then
// returns an error matching [ErrAttemptRunning]; cancel it first, or try
// again.
func (c *Client) Delete(ctx context.Context, id WaitID) error {
	if err := c.usable(); err != nil {
		return err
	}
	if _, err := c.engine.JobDelete(ctx, int64(id)); err != nil {
		switch {
		case errors.Is(err, rivertype.ErrNotFound):
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		case errors.Is(err, rivertype.ErrJobRunning):
			return fmt.Errorf("durable: deleting wait %s: %w", id, ErrAttemptRunning)
		}
		return fmt.Errorf("durable: deleting wait %s: %w", id, err)
	}
	return nil
}
