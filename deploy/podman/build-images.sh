#!/usr/bin/env bash
# Builds the images docker-compose.yml needs on a machine that reaches no container registry, then the
# project's image (deploy/docker/Dockerfile) on the local Node base:
#   - root file systems of Debian ($SUITE) made with mmdebstrap: Node, Java 21, PostgreSQL 17, Redis;
#   - Kafka and Apicurio Registry from the Maven artifacts of scripts/infra/pom.xml on the Java base;
#   - npm from the npm registry on the Node base.
# A base image is reused while its recipe (packages, files, artifacts) is unchanged, as Maven reuses ~/.m2,
# and rebuilt when missing or changed. The variables docker-compose.yml reads to use these images instead of
# the registry's are written to $IMAGES_ENV (default .containers/images.env), ready to source.
# The host's CA bundle is mounted read-only into the project's build (npm reaches its registry through a proxy
# only that bundle trusts); it is never part of an image.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/deploy/podman"
ARTIFACTS="$ROOT/scripts/infra/target"
STATE="$ROOT/.containers"
IMAGES_ENV="${IMAGES_ENV:-$STATE/images.env}"
SUITE="${DEBIAN_SUITE:-trixie}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
HOST_CA="${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
PREFIX=localhost/timetable-base
APP_IMAGE="${TIMETABLE_IMAGE:-localhost/timetable:local}"
LABEL=org.timetable.recipe
export CONTAINERS_CONF="${CONTAINERS_CONF:-$HERE/containers.conf}"

pom_property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$ROOT/scripts/infra/pom.xml"; }
KAFKA_VERSION="$(pom_property kafka.version)"
APICURIO_VERSION="$(pom_property apicurio.version)"
NPM_VERSION="${NPM_VERSION:-$(npm --version)}"

started_at=$SECONDS
log() { printf '[build-images %3ds] %s\n' "$((SECONDS - started_at))" "$*"; }
fail() { printf '[build-images] ERROR: %s\n' "$*" >&2; exit 1; }

for tool in podman mmdebstrap mvn npm; do
  command -v "$tool" >/dev/null || fail "$tool is needed (deploy/podman/test-containers.sh installs podman and mmdebstrap)"
done
mkdir -p "$STATE/build"

# A recipe is a hash of everything an image is made of; the image carries it as a label.
current() { [[ "$(podman image inspect --format "{{ index .Labels \"$LABEL\" }}" "$1" 2>/dev/null)" == "$2" ]]; }

# mmdebstrap's essential variant (no apt) with the packages, streamed into `podman import`. Debian's python and
# perl rather than a version manager's shims on PATH; the root file system is built in memory where possible.
import_rootfs() {
  local tag=$1 recipe=$2 packages=$3 hook=$4
  local tmp=/tmp
  [[ -d /dev/shm && -w /dev/shm ]] && tmp=/dev/shm
  env PATH=/usr/sbin:/usr/bin:/sbin:/bin TMPDIR="$tmp" mmdebstrap --quiet --variant=essential \
    --include="$packages" --dpkgopt=force-unsafe-io \
    --customize-hook="$hook"' && rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/locale/* "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
    "$SUITE" - "$MIRROR" |
    podman import --quiet --change "LABEL $LABEL=$recipe" - "$tag" >/dev/null
}

# Builds tag from deploy/podman/images/<dir> plus extra context (copied as hard links), labelled with its recipe.
build_containerfile() {
  local tag=$1 recipe=$2 dir=$3
  shift 3
  local context="$STATE/build/$dir"
  rm -rf "$context"
  cp -r "$HERE/images/$dir" "$context"
  while (($# > 0)) && [[ $1 != -- ]]; do cp -al "$1" "$context/"; shift; done
  [[ ${1:-} == -- ]] && shift
  podman build --format docker --quiet --layers --label "$LABEL=$recipe" -t "$tag" "$@" "$context" >/dev/null
  rm -rf "$context"
}

# Each base: rebuilt only when its recipe changed. Runs in the background; `wait` collects them.
ensure_rootfs() {
  local name=$1 packages=$2 hook=$3
  local tag="$PREFIX/rootfs-$name:$SUITE" recipe
  recipe="$(printf '%s\n' "$SUITE" "$MIRROR" "$packages" "$hook" | sha256sum | cut -c1-16)"
  if current "$tag" "$recipe"; then
    log "reusing $tag"
  else
    log "building $tag ($packages) with mmdebstrap"
    import_rootfs "$tag" "$recipe" "$packages" "$hook"
    log "built $tag"
  fi
}

ensure_artifacts() {
  if [[ -f $ARTIFACTS/kafka-libs/kafka_2.13-$KAFKA_VERSION.jar && -f $ARTIFACTS/kafka-libs/kafka-tools-$KAFKA_VERSION.jar &&
    -f $ARTIFACTS/apicurio/quarkus-run.jar ]]; then
    return
  fi
  log "fetching Kafka and Apicurio Registry with Maven"
  mvn -q -B -Dstyle.color=never -f "$ROOT/scripts/infra/pom.xml" package
}

fetch_npm() {
  local dir="$STATE/npm-$NPM_VERSION"
  if [[ ! -f $dir/package/package.json ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && tar -xzf "npm-$NPM_VERSION.tgz")
  fi
  rm -rf "$STATE/build/npm" && mkdir -p "$STATE/build" && cp -al "$dir/package" "$STATE/build/npm"
}

derived_recipe() {
  local base=$1 dir=$2
  shift 2
  {
    podman image inspect --format "{{ index .Labels \"$LABEL\" }}" "$base"
    (($# == 0)) || find "$@" -type f -printf '%P %s %T@\n' | sort
    find "$HERE/images/$dir" -type f -print0 | sort -z | xargs -0 cat
  } | sha256sum | cut -c1-16
}

ensure_derived() {
  local tag=$1 base=$2 dir=$3 arg=$4
  shift 4
  local recipe
  recipe="$(derived_recipe "$base" "$dir" "$@")"
  if current "$tag" "$recipe"; then
    log "reusing $tag"
    return
  fi
  log "building $tag"
  build_containerfile "$tag" "$recipe" "$dir" "$@" -- --build-arg "$arg=$base"
}

ensure_artifacts
fetch_npm

NO_MAIN_CLUSTER='rm -rf "$1"/var/lib/postgresql/17 "$1"/etc/postgresql/17'
pids=()
ensure_rootfs node nodejs true & pids+=($!)
ensure_rootfs jre openjdk-21-jre-headless true & pids+=($!)
ensure_rootfs postgres postgresql-17 "$NO_MAIN_CLUSTER" & pids+=($!)
ensure_rootfs redis redis-server true & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid" || fail "a base root file system failed to build (see above)"; done

NODE_IMAGE="$PREFIX/node:20-$SUITE"
KAFKA_IMAGE="$PREFIX/kafka:$KAFKA_VERSION"
SCHEMA_REGISTRY_IMAGE="$PREFIX/apicurio-registry:$APICURIO_VERSION"
POSTGRES_IMAGE="$PREFIX/postgres:17-$SUITE"
REDIS_IMAGE="$PREFIX/redis:$SUITE"
ensure_derived "$NODE_IMAGE" "$PREFIX/rootfs-node:$SUITE" node ROOTFS "$STATE/build/npm"
ensure_derived "$KAFKA_IMAGE" "$PREFIX/rootfs-jre:$SUITE" kafka JRE "$ARTIFACTS/kafka-libs"
ensure_derived "$SCHEMA_REGISTRY_IMAGE" "$PREFIX/rootfs-jre:$SUITE" registry JRE "$ARTIFACTS/apicurio"
ensure_derived "$POSTGRES_IMAGE" "$PREFIX/rootfs-postgres:$SUITE" postgres ROOTFS
ensure_derived "$REDIS_IMAGE" "$PREFIX/rootfs-redis:$SUITE" redis ROOTFS

# The project's image, as operators build it, with NODE_IMAGE pointing at the local base. npm in the build
# stages trusts the host's CA bundle through a read-only mount and npm's global config, neither kept in a layer.
log "building $APP_IMAGE from deploy/docker/Dockerfile"
app_started=$SECONDS
printf 'cafile=/run/host-ca.crt\n' >"$STATE/build/npmrc"
podman build --format docker --layers -f "$ROOT/deploy/docker/Dockerfile" --build-arg "NODE_IMAGE=$NODE_IMAGE" \
  -v "$HOST_CA:/run/host-ca.crt:ro" -v "$STATE/build/npmrc:/root/.npmrc:ro" \
  -t "$APP_IMAGE" "$ROOT" >"$STATE/app-build.log" 2>&1 || { tail -n 60 "$STATE/app-build.log" >&2; fail "building $APP_IMAGE failed"; }
app_size="$(podman image inspect --format '{{.Size}}' "$APP_IMAGE")"
log "built $APP_IMAGE in $((SECONDS - app_started))s, $((app_size / 1000000)) MB"

cat >"$IMAGES_ENV" <<EOF
# Written by deploy/podman/build-images.sh: the images docker-compose.yml runs where no registry is reachable.
KAFKA_IMAGE=$KAFKA_IMAGE
SCHEMA_REGISTRY_IMAGE=$SCHEMA_REGISTRY_IMAGE
POSTGRES_IMAGE=$POSTGRES_IMAGE
REDIS_IMAGE=$REDIS_IMAGE
NODE_IMAGE=$NODE_IMAGE
TIMETABLE_IMAGE=$APP_IMAGE
EOF
log "done; the images are named in ${IMAGES_ENV#"$ROOT"/}"
