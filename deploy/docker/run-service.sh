#!/bin/sh
# The image's entrypoint: the first argument names the process to run; exec hands it the signals.
set -eu
service="${1:-gateway}"
[ "$#" -gt 0 ] && shift
case "$service" in
  gateway | sync | catalog-api | changes | webhook-dispatcher | developer-auth | standalone)
    exec node "/app/services/$service/dist/main.js" "$@" ;;
  sim | starplan-sim)
    exec node /app/tools/starplan-sim/dist/main.js "$@" ;;
  *)
    echo "unknown service '$service': use gateway, catalog-api, sync, changes, webhook-dispatcher, developer-auth, sim or standalone" >&2
    exit 64 ;;
esac
