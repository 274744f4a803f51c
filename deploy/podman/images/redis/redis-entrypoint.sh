#!/bin/sh
# The official image builds Redis with protected mode off; Debian's is on, so it is turned off here, before the
# command's own arguments (which may turn it on again).
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
