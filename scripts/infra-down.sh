#!/usr/bin/env bash
# Stops the Kafka broker and the registry that infra-up.sh started (by their pid files; SIGTERM, then SIGKILL
# after a grace period). PostgreSQL and Redis are machine services and stay up.
# --wipe also deletes Kafka's data and the registry's schemas, which belong together: records carry schema ids.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.infra"
GRACE_SECONDS="${INFRA_STOP_GRACE_SECONDS:-30}"

wipe=false
for arg in "$@"; do
  case $arg in
    --wipe) wipe=true ;;
    *) echo "usage: $0 [--wipe]" >&2; exit 2 ;;
  esac
done

# Stops the process in the pid file if it is alive and still runs what infra-up.sh started (pids get reused).
stop() {
  local name=$1 pidfile=$2 marker=$3 pid
  if [[ ! -f $pidfile ]]; then
    echo "$name: not started here (no pid file)"
    return
  fi
  pid="$(cat "$pidfile")"
  if ! [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -F -- "$marker" >/dev/null; then
    echo "$name: not running"
    rm -f "$pidfile"
    return
  fi
  echo "$name: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + GRACE_SECONDS))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      echo "$name: still running after ${GRACE_SECONDS}s, killing"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.5
  done
  rm -f "$pidfile"
}

stop registry "$STATE/registry/registry.pid" quarkus-run.jar
stop kafka "$STATE/kafka/kafka.pid" kafka.Kafka

if $wipe; then
  echo "wiping $STATE/kafka and $STATE/registry"
  rm -rf "$STATE/kafka" "$STATE/registry"
fi
