package durable

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Submit starts a durable wait for t and returns its id. It is idempotent
// per target: while the wait for t is kept (running, or ended within
// Config.Retention), submitting t again returns the same id and changes
// nothing, whatever the options (River unique jobs, by target).
//
// The options are resolved against the kind's defaults and stored with
// the wait; the first attempt runs at once (after opts.InitialDelay) in
// any process that works waits. Submit refuses a kind not registered in
// this process ([ErrUnknownKind]), a target without the ids its kind
// needs ([ErrInvalidTarget]) and an unknown strategy
// ([ErrInvalidStrategy]).
func (c *Client) Submit(ctx context.Context, t Target, opts Options) (WaitID, error) {
	if err := c.usable(); err != nil {
		return 0, err
	}
	k, err := c.kinds.lookup(t)
	if err != nil {
		return 0, err
	}
	if err := k.check(t); err != nil {
		return 0, err
	}
	p := resolve(opts, k.Config.Defaults)
	if p.Strategy, err = c.kinds.strategies.normalize(p.Strategy); err != nil {
		return 0, err
	}
	insert := &river.InsertOpts{
		Queue:       c.cfg.Queue,
		MaxAttempts: c.cfg.MaxJobAttempts,
		UniqueOpts: river.UniqueOpts{
			ByArgs: true,
			// Every state: an ended wait still answers for its target
			// until River's cleaner removes it.
			ByState: rivertype.JobStates(),
		},
	}
	if p.InitialDelay > 0 {
		insert.ScheduledAt = time.Now().Add(p.InitialDelay)
	}
	res, err := c.engine.Insert(ctx, waitArgs{Target: t, Plan: p}, insert)
	if err != nil {
		return 0, fmt.Errorf("durable: submitting a wait for %s: %w", t, err)
	}
	return WaitID(res.Job.ID), nil
}
