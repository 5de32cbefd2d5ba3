#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL for the durable module's tests and
# benchmarks: Debian's PostgreSQL 15 binaries, run as user postgres, on
# 127.0.0.1 at a private port, with its data in a temporary directory.
#
#   scripts/postgres.sh start   # prints the database URL on stdout
#   scripts/postgres.sh url     # prints it again
#   scripts/postgres.sh stop    # stops the server and removes its data
#
#   export JOBPOLL_PG_URL=$(scripts/postgres.sh start)
#   go test -race ./...          # the Postgres tests run when JOBPOLL_PG_URL is set
#   scripts/postgres.sh stop
#
# Environment: PGBIN (default /usr/lib/postgresql/15/bin), JOBPOLL_PG_PORT
# (default: the first free port from 55432), JOBPOLL_PG_STATE (the file
# that remembers the running server; default $TMPDIR/jobpoll-durable-pg.env).
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
STATE=${JOBPOLL_PG_STATE:-${TMPDIR:-/tmp}/jobpoll-durable-pg.env}
DB=jobpoll
PGUSER_OS=postgres

# as_postgres runs a command as the postgres user (initdb refuses root).
as_postgres() {
	if [ "$(id -un)" = "$PGUSER_OS" ]; then
		"$@"
	elif [ "$(id -u)" = 0 ]; then
		runuser -u "$PGUSER_OS" -- "$@"
	else
		echo "postgres.sh: run as root or as $PGUSER_OS" >&2
		exit 1
	fi
}

url() { echo "postgres://postgres@127.0.0.1:$PORT/$DB?sslmode=disable"; }

start() {
	if [ -f "$STATE" ]; then
		# shellcheck disable=SC1090
		. "$STATE"
		if as_postgres "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
			url
			return
		fi
		rm -rf "$DIR" "$STATE"
	fi
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/jobpoll-pg.XXXXXX")
	DATA=$DIR/data
	chown "$PGUSER_OS" "$DIR" 2>/dev/null || true
	chmod 700 "$DIR"
	as_postgres "$PGBIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
		{ cat "$DIR/initdb.log" >&2; exit 1; }
	# The first port from 55432 that binds, unless JOBPOLL_PG_PORT names one.
	PORT=${JOBPOLL_PG_PORT:-55432}
	local tries=${JOBPOLL_PG_PORT:+1}
	for ((i = 0; i < ${tries:-50}; i++)); do
		if as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c max_connections=200" start >/dev/null 2>&1; then
			break
		fi
		if ! grep -q "could not bind" "$DIR/server.log"; then
			cat "$DIR/server.log" >&2
			exit 1
		fi
		: >"$DIR/server.log"
		PORT=$((PORT + 1))
	done
	as_postgres "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
	printf 'DIR=%q\nDATA=%q\nPORT=%q\n' "$DIR" "$DATA" "$PORT" >"$STATE"
	as_postgres "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -qAtc "CREATE DATABASE $DB" >/dev/null
	url
}

stop() {
	[ -f "$STATE" ] || return 0
	# shellcheck disable=SC1090
	. "$STATE"
	as_postgres "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$DIR" "$STATE"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url)
	# shellcheck disable=SC1090
	. "$STATE"
	url
	;;
*)
	echo "usage: $0 start|stop|url" >&2
	exit 2
	;;
esac
