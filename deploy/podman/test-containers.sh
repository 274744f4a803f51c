#!/usr/bin/env bash
# `npm run test:containers`: installs podman and its helpers where missing (Debian packages, as root), builds
# the images (build-images.sh, reusing the bases it built before), then runs docker-compose.yml under podman
# with the black-box API suite and the restart tests against it (scripts/containers/main.ts). Fails loudly
# when something cannot be had; it never skips.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
started_at=$SECONDS

# podman with runc and Debian's docker-compose, which drives podman through its Docker-compatible API;
# netavark and aardvark-dns give a compose network its names; catatonit is the init of `init: true`;
# mmdebstrap builds the base images. docker-compose without its recommendations (they are Docker's engine).
ensure_tools() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman runc netavark aardvark-dns catatonit iptables)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  ((${#missing[@]} == 0)) && return
  if [[ $(id -u) != 0 ]]; then
    echo "test:containers needs ${missing[*]}: install them (apt-get install -y ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "== installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_tools
bash "$ROOT/deploy/podman/build-images.sh"
echo "== images ready after $((SECONDS - started_at))s"
cd "$ROOT"
node --conditions=@timetable/source --import tsx scripts/containers/main.ts
echo "== test:containers took $((SECONDS - started_at))s"
