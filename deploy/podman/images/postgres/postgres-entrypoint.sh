#!/bin/bash
# Starts PostgreSQL as the official image does: as root it hands the data directory to `postgres` and
# re-executes itself as that user; an empty data directory gets a cluster with POSTGRES_USER (password
# POSTGRES_PASSWORD, scram-sha-256 over TCP) and database POSTGRES_DB, and the SQL files of
# /docker-entrypoint-initdb.d run into it, before the server starts listening on every interface.
set -euo pipefail
[[ ${1:-} == postgres ]] || exec "$@"

if [[ $(id -u) == 0 ]]; then
  mkdir -p "$PGDATA"
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

user="${POSTGRES_USER:-postgres}"
database="${POSTGRES_DB:-$user}"
if [[ ! -s $PGDATA/PG_VERSION ]]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required to create the cluster}"
  initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl --silent --wait --options="-c listen_addresses=''" start
  psql=(psql --no-psqlrc --set ON_ERROR_STOP=1 --username "$user" --dbname postgres)
  if [[ $database != postgres ]]; then
    "${psql[@]}" --quiet --command "CREATE DATABASE \"$database\""
  fi
  for file in /docker-entrypoint-initdb.d/*.sql; do
    [[ -f $file ]] || continue
    echo "running $file"
    "${psql[@]}" --dbname "$database" --file "$file"
  done
  pg_ctl --silent --wait --mode=fast stop
fi
exec "$@" -c listen_addresses='*'
