#!/bin/sh
# The image's entrypoint: the first argument names the process to run; exec hands it the signals.
# The gateway and the services are the ones defined in the code: the image build lists their names in
# SERVICE_NAMES_FILE.
set -eu
service="${1:-gateway}"
[ "$#" -gt 0 ] && shift
names="${SERVICE_NAMES_FILE:-/app/service-names}"
case "$service" in
  standalone)
    exec node /app/services/standalone/dist/main.js "$@" ;;
  sim | starplan-sim)
    exec node /app/tools/starplan-sim/dist/main.js "$@" ;;
esac
if grep -qxF -- "$service" "$names"; then
  exec node "/app/services/$service/dist/main.js" "$@"
fi
echo "unknown service '$service': use $(paste -sd ' ' "$names" | sed 's/ /, /g'), sim or standalone" >&2
exit 64
