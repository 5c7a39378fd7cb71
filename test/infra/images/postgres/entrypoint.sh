#!/bin/sh
# agw-postgres-entrypoint: the PostgreSQL 15 image's entrypoint for the issue-21 test cluster
# (built by test/infra/cluster-images.sh). On first start it initialises $PGDATA with a superuser
# POSTGRES_USER / POSTGRES_PASSWORD and a database POSTGRES_DB, listening on every address with
# scram-sha-256 for TCP (trust over the local socket only); then it execs postgres, which stays PID 1.
# The port is PGPORT (postgres and pg_isready both read it), default 5432. Extra arguments go to
# postgres (`-c name=value`). Runs as uid 65532: mount a volume at /var/lib/postgresql and keep
# PGDATA a directory under it, since initdb must own PGDATA and cannot chmod a root-owned mount.
# The image has dash, rm and the postgres binaries only, so this script uses shell builtins.
set -eu

bin=/usr/lib/postgresql/15/bin
PGDATA=${PGDATA:-/var/lib/postgresql/data}
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
export PGDATA
# Written last: a PG_VERSION without it means an earlier initialisation was cut short.
marker=$PGDATA/agw-initialised

die() { echo "agw-postgres-entrypoint: $*" >&2; exit 1; }

# Names are interpolated into SQL below, so only plain identifiers are accepted.
plain_name() {
  case $2 in '' | *[!A-Za-z0-9_-]*) die "$1 must be letters, digits, _ or - (got '$2')" ;; esac
}

initialise() {
  [ -n "${POSTGRES_PASSWORD:-}" ] || die "POSTGRES_PASSWORD is required to initialise $PGDATA"
  plain_name POSTGRES_USER "$POSTGRES_USER"
  plain_name POSTGRES_DB "$POSTGRES_DB"
  if [ -e "$PGDATA/PG_VERSION" ]; then
    echo "agw-postgres-entrypoint: $PGDATA holds an interrupted initialisation; starting again" >&2
    rm -rf "$PGDATA/"* "$PGDATA/".[!.]* 2>/dev/null || true
  fi
  # The password reaches initdb through a pipe, never a file or the command line.
  printf '%s\n' "$POSTGRES_PASSWORD" | "$bin/initdb" --pgdata="$PGDATA" --username="$POSTGRES_USER" \
    --pwfile=/dev/stdin --locale=C --encoding=UTF8 --auth-local=trust --auth-host=scram-sha-256 \
    --no-instructions
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    # Single-user mode: no listener yet, so no client can see a half-made database.
    # exit_on_error turns a failed statement into a non-zero exit.
    printf 'CREATE DATABASE "%s" OWNER "%s"\n' "$POSTGRES_DB" "$POSTGRES_USER" |
      "$bin/postgres" --single -D "$PGDATA" -c exit_on_error=on postgres >/dev/null ||
      die "could not create database $POSTGRES_DB"
  fi
  : >"$marker"
  echo "agw-postgres-entrypoint: initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)" >&2
}

[ -e "$marker" ] || initialise
exec "$bin/postgres" -D "$PGDATA" "$@"
