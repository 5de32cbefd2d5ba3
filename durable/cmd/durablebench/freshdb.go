package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobpoll/poll/durable"
)

// freshDB returns a database no earlier run has used, and a cleanup that
// removes it: the Ingestly fake hands out the same ids in every run, and
// waits are unique per target, so a reused database would find every wait
// already ended. An empty dsn is a SQLite file in a temp dir; a postgres://
// URL names the server on which a database is created (and dropped after);
// a SQLite path must not exist yet.
func freshDB(ctx context.Context, dsn string) (string, func(), error) {
	switch {
	case dsn == "":
		dir, err := os.MkdirTemp("", "durablebench-")
		if err != nil {
			return "", nil, err
		}
		return filepath.Join(dir, "waits.db"), func() { _ = os.RemoveAll(dir) }, nil
	case !durable.IsPostgres(dsn):
		if _, err := os.Stat(dsn); err == nil {
			return "", nil, fmt.Errorf("%s exists: give a new file, or no -db", dsn)
		}
		return dsn, func() {}, nil
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	name := "durablebench_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
			_ = c.Close(ctx)
		}
	}
	return u.String(), drop, nil
}
