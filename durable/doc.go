// Package durable keeps waits in a job engine, so that a wait survives a
// restart (even kill -9) and any number of worker processes share the
// polling. It is an optional module of jobpoll built on River
// (github.com/riverqueue/river), with its own go.mod so the core keeps its
// dependencies and Go version.
//
// One setting picks the database, the dsn given to [Open]:
//
//   - a file path: SQLite, one file and no server, through River's
//     riversqlite driver on the pure-Go modernc.org/sqlite. River calls
//     this driver experimental; it suits one machine (several processes
//     may share the file). Open sets it up as River's own tests do, with
//     one open connection and WAL, plus a busy timeout and immediate
//     write transactions for processes sharing the file.
//   - a postgres:// URL: PostgreSQL through River's riverpgxv5 driver, for
//     several machines. The code is the same; only the driver differs.
//
// Open runs River's migrations (rivermigrate) unless told not to.
//
// # Waits
//
// A wait names its target in plain data, a [Target] (provider, job kind
// and ids), with [Options] (timeout, stall timeout, attempt timeout, max
// attempts and errors, and the strategy as a [StrategySpec]), so any
// process can resume it. The built-in kinds cover the providers:
// documind review and batch ([DocumindReview], [DocumindBatch]), narada
// task ([NaradaTask]) and ingestly run ([IngestlyRun]); register them with
// [DocumindKinds], [NaradaKinds] and [IngestlyKinds], and your own APIs
// with [NewKind]. API keys are never stored: a Kind holds the provider
// client of the program that runs it.
//
//	c, err := durable.Open(ctx, "waits.db", durable.Config{Kinds: durable.IngestlyKinds(ingestlyClient)})
//	if err != nil { ... }
//	defer c.Close()
//	if err := c.Start(ctx); err != nil { ... } // this process works waits
//	id, err := c.Submit(ctx, durable.IngestlyRun(documentID, runID), durable.Options{})
//	r, err := c.Await(ctx, id) // here, or in any process on the same database
//	run, _ := durable.Value[*ingestly.Run](r)
//
// Submit is idempotent per target: submitting the same target again gives
// the same wait (a River unique job, by target, in every state), until
// River's cleaner removes it after [Config.Retention].
//
// # How a wait runs
//
// Every attempt is one River job run that makes one Poll of the provider
// (the kind's core poll.Poller) and then snoozes the job (river.JobSnooze,
// which does not use up River's attempts) for the next delay. The wait's
// own state (attempts, consecutive errors, the last status and when it
// last changed, the strategy's progress, the last observation) is merged
// into the job's metadata by the same write that snoozes it, so deadlines,
// stall timeouts and backoff go on where they were after a restart. The
// rules are the core package's: the first attempt runs at once (unless
// Options.InitialDelay); a server's hint (Status.RetryAfter, an
// APIError's Retry-After, poll.RetryAfter) raises the next delay; a delay
// that would cross the deadline is shortened so one last attempt runs
// before it; transient errors are retried (up to Options.MaxErrors) and a
// permanent one ends the wait at once. The deadline counts from Submit.
//
// Two differences follow from running in a job engine. A snoozed attempt
// starts up to Config.PollInterval late, so the last attempt before a
// deadline is moved that much earlier. And a wait whose deadline passed
// while no worker ran makes one last attempt when a worker comes back,
// then ends (with its outcome if that attempt saw the job finished).
//
// When a wait ends, its outcome (the final poll.Status, the last
// observation's JSON, the numbers and the error) is recorded with
// river.RecordOutput. A wait that succeeded completes its job; any other
// end (a failed job, a timeout, a stall, a permanent error) cancels it
// (river.JobCancel), so River never retries it. [Client.Await] reads the
// outcome from any process through a core poll.Poller over the job's row;
// [Client.Subscribe] delivers the outcomes of waits that end in this
// process as they end.
//
// # Delivery
//
// A worker killed between attempts loses nothing: another worker (or the
// same program restarted) makes the next attempt when it is due. A worker
// killed during an attempt leaves its job running until River rescues it
// ([Config.RescueAfter], once a live worker leads), and that attempt is
// made again: delivery is at least once, and the provider may see one
// extra poll per attempt cut short.
package durable
