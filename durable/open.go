package durable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
	sqlite3 "modernc.org/sqlite/lib"
)

// IsPostgres reports whether Open treats dsn as a PostgreSQL URL
// (postgres:// or postgresql://) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// sqliteParams are set on every SQLite connection: WAL, as River's own
// tests use (fewer "database is locked" errors, and readers do not block
// the writer); a busy timeout and immediate write transactions so that
// several processes can share the file, each waiting its turn rather
// than failing.
const sqliteParams = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"

// openSQLite opens the file with one connection, as River's SQLite driver
// asks ("River makes extensive use of internal operations that might run
// in parallel ... set the maximum pool size to one connection").
func openSQLite(ctx context.Context, path string, cfg Config, w *worker) (engine, func() error, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, nil, fmt.Errorf("%w: SQLite path %q (empty, or has ? or #)", ErrInvalidConfig, path)
	}
	db, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(path, "file:")+"?"+sqliteParams)
	if err != nil {
		return nil, nil, fmt.Errorf("durable: opening SQLite file %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := pingSQLite(ctx, db); err != nil {
		_ = db.Close()
		return nil, nil, fmt.Errorf("durable: opening SQLite file %s: %w", path, err)
	}
	driver := riversqlite.New(db)
	if !cfg.SkipMigrations {
		if err := migrateSQLite(ctx, driver, cfg); err != nil {
			_ = db.Close()
			return nil, nil, err
		}
	}
	rc, err := newRiverClient(driver, cfg, w)
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return rc, db.Close, nil
}

// pingSQLite opens the first connection. Switching a new file to WAL can
// fail with SQLITE_BUSY, busy timeout or not, while another process does
// the same: that is tried again.
func pingSQLite(ctx context.Context, db *sql.DB) error {
	for try := 1; ; try++ {
		err := db.PingContext(ctx)
		var sqliteErr *sqlite.Error
		if err == nil || try == openTries || !errors.As(err, &sqliteErr) || sqliteErr.Code()&0xff != sqlite3.SQLITE_BUSY {
			return err
		}
		select {
		case <-time.After(time.Duration(try) * 50 * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
}

// openTries bounds the tries of pingSQLite.
const openTries = 10

// migrateLockKey is the advisory lock that serialises migrations of
// processes starting together on PostgreSQL.
const migrateLockKey = 0x6a6f62706f6c6c // "jobpoll"

func openPostgres(ctx context.Context, url string, cfg Config, w *worker) (engine, func() error, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("durable: connecting to PostgreSQL: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("durable: connecting to PostgreSQL: %w", err)
	}
	driver := riverpgxv5.New(pool)
	if !cfg.SkipMigrations {
		if err := migratePostgres(ctx, pool, driver, cfg); err != nil {
			pool.Close()
			return nil, nil, err
		}
	}
	rc, err := newRiverClient(driver, cfg, w)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return rc, func() error { pool.Close(); return nil }, nil
}

// migrateSQLite runs River's migrations up. Processes that open a new
// file together may race to migrate it: SQLite takes the write lock per
// statement, so the loser fails on a table the winner created, and on its
// next try finds the migrations applied.
func migrateSQLite(ctx context.Context, driver *riversqlite.Driver, cfg Config) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: cfg.Logger})
	if err != nil {
		return fmt.Errorf("durable: River migrations: %w", err)
	}
	for try := 1; ; try++ {
		_, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		if err == nil {
			return nil
		}
		if try == migrateTries || ctx.Err() != nil {
			return fmt.Errorf("durable: River migrations (try %d of %d): %w", try, migrateTries, err)
		}
		select {
		case <-time.After(time.Duration(try) * 200 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// migrateTries bounds the tries of migrateSQLite.
const migrateTries = 5

// migratePostgres runs River's migrations up under an advisory lock, so
// that processes starting together take turns. River's migrations cannot
// all run in one transaction (one adds an enum value that a later one
// uses), so the lock is a session lock held on a connection of its own.
func migratePostgres(ctx context.Context, pool *pgxpool.Pool, driver *riverpgxv5.Driver, cfg Config) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: cfg.Logger})
	if err != nil {
		return fmt.Errorf("durable: River migrations: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("durable: River migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrateLockKey)); err != nil {
		return fmt.Errorf("durable: River migrations: taking the lock: %w", err)
	}
	defer func() {
		// Unlocked even when ctx has ended; a connection that cannot
		// unlock is closed, which releases the lock.
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if _, err := conn.Exec(unlockCtx, "SELECT pg_advisory_unlock($1)", int64(migrateLockKey)); err != nil {
			_ = conn.Conn().Close(unlockCtx)
		}
	}()
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("durable: River migrations: %w", err)
	}
	return nil
}

// newRiverClient makes the River client. It works waits (a queue of
// cfg.Workers) when kinds are registered; it only inserts and reads
// otherwise.
func newRiverClient[TTx any](driver riverdriver.Driver[TTx], cfg Config, w *worker) (*river.Client[TTx], error) {
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, w); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	rc := &river.Config{
		ID:                          cfg.ID,
		Logger:                      cfg.Logger,
		Workers:                     workers,
		JobTimeout:                  cfg.JobTimeout,
		RescueStuckJobsAfter:        cfg.RescueAfter,
		CompletedJobRetentionPeriod: cfg.Retention,
		CancelledJobRetentionPeriod: cfg.Retention,
		DiscardedJobRetentionPeriod: cfg.Retention,
		FetchPollInterval:           cfg.PollInterval,
		FetchCooldown:               min(river.FetchCooldownDefault, cfg.PollInterval),
		MaxAttempts:                 cfg.MaxJobAttempts,
	}
	if len(cfg.Kinds) > 0 {
		rc.Queues = map[string]river.QueueConfig{cfg.Queue: {MaxWorkers: cfg.Workers}}
	}
	c, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, fmt.Errorf("durable: creating the River client: %w", err)
	}
	return c, nil
}
