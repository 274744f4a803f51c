#!/usr/bin/env bash
# Starts the local infrastructure without Docker: a single-node KRaft Kafka broker and Apicurio Registry
# (Confluent-compatible API) from Maven Central, and makes sure PostgreSQL and Redis answer.
# Safe to run repeatedly: whatever already answers is left alone (each run adds one version to the registry's
# probe subject, below). State lives in .infra/ at the repo root; the environment to use is printed and written
# to .infra/env (source it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA_SRC="$ROOT/scripts/infra"
TARGET="$INFRA_SRC/target"
STATE="$ROOT/.infra"
LOGS="$STATE/logs"
KAFKA_STATE="$STATE/kafka"
REGISTRY_STATE="$STATE/registry"

KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
SCHEMA_REGISTRY_PORT="${SCHEMA_REGISTRY_PORT:-8081}"
# Quarkus's management interface (health, metrics) would otherwise bind 0.0.0.0:9000.
SCHEMA_REGISTRY_MANAGEMENT_PORT="${SCHEMA_REGISTRY_MANAGEMENT_PORT:-8091}"
READY_TIMEOUT_SECONDS="${INFRA_READY_TIMEOUT_SECONDS:-90}"
REGISTRY_WRITE_TIMEOUT_SECONDS="${INFRA_REGISTRY_WRITE_TIMEOUT_SECONDS:-30}"

KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
SCHEMA_REGISTRY_URL="http://127.0.0.1:$SCHEMA_REGISTRY_PORT/apis/ccompat/v7"
DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres"
REDIS_URL="redis://127.0.0.1:6379"

started_at=$SECONDS
log() { printf '[infra-up %3ds] %s\n' "$((SECONDS - started_at))" "$*"; }
fail() { printf '[infra-up] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() {
  timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# A pid file counts only while its process is alive and still runs what we started (pids get reused).
pid_alive() {
  local pidfile=$1 marker=$2 pid
  [[ -f $pidfile ]] || return 1
  pid="$(cat "$pidfile")"
  [[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -F -- "$marker" >/dev/null
}

tail_log() {
  printf -- '----- last 50 lines of %s -----\n' "$1" >&2
  tail -n 50 "$1" >&2 2>/dev/null || true
  printf -- '----- end of %s -----\n' "$1" >&2
}

# Polls a readiness command until it succeeds. Gives up at the timeout, or as soon as the `alive` command says
# the service's process is gone, and then shows the end of the service's log.
wait_until() {
  local what=$1 timeout=$2 logfile=$3 alive=$4
  shift 4
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! $alive; then
      [[ -n $logfile ]] && tail_log "$logfile"
      fail "$what exited while starting"
    fi
    if ((SECONDS >= deadline)); then
      [[ -n $logfile ]] && tail_log "$logfile"
      fail "$what not ready after ${timeout}s"
    fi
    sleep 0.5
  done
}

# Runs a command in its own session, detached from the terminal, recording its pid before exec-ing it.
start_detached() {
  local pidfile=$1 logfile=$2 workdir=$3
  shift 3
  printf '===== %s infra-up: starting %s\n' "$(date -Is)" "$(basename "$logfile" .log)" >>"$logfile"
  (
    cd "$workdir"
    setsid nohup bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" >>"$logfile" 2>&1 </dev/null &
  )
  local deadline=$((SECONDS + 5))
  until [[ -s $pidfile ]]; do
    ((SECONDS < deadline)) || fail "could not start $*"
    sleep 0.1
  done
}

# (a) Broker classpath and registry from Maven Central.
ensure_artifacts() {
  if compgen -G "$TARGET/kafka-libs/kafka_2.13-*.jar" >/dev/null && [[ -f $TARGET/apicurio/quarkus-run.jar ]]; then
    return
  fi
  command -v mvn >/dev/null || fail "mvn is needed once to fetch Kafka and Apicurio Registry (scripts/infra/pom.xml)"
  log "fetching Kafka and Apicurio Registry with Maven"
  mvn -q -B -Dstyle.color=never -f "$INFRA_SRC/pom.xml" package
}

# (b) PostgreSQL and Redis are machine services; start them only when down and startable here.
postgres_ready() {
  if command -v pg_isready >/dev/null; then pg_isready -q -h 127.0.0.1 -p 5432; else port_open 5432; fi
}

redis_ready() {
  if command -v redis-cli >/dev/null; then [[ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" == PONG ]]; else port_open 6379; fi
}

ensure_postgres_and_redis() {
  if ! postgres_ready; then
    if command -v pg_ctlcluster >/dev/null && [[ -d /etc/postgresql ]]; then
      log "starting PostgreSQL"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    fi
    wait_until "PostgreSQL on 127.0.0.1:5432" 30 "" true postgres_ready
  fi
  if ! redis_ready; then
    if command -v redis-server >/dev/null; then
      log "starting Redis"
      redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
    fi
    wait_until "Redis on 127.0.0.1:6379" 30 "" true redis_ready
  fi
}

# (c) Single-node KRaft broker (combined broker + controller).
write_kafka_config() {
  cat >"$KAFKA_STATE/server.properties" <<EOF
# Written by scripts/infra-up.sh on every run; edit the script, not this file.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_STATE/data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
}

kafka_java() {
  java -Dlog4j.configuration="file:$INFRA_SRC/log4j.properties" -cp "$TARGET/kafka-libs/*" "$@"
}

format_kafka_storage() {
  [[ -f $KAFKA_STATE/data/meta.properties ]] && return
  local cluster_id_file="$KAFKA_STATE/cluster-id"
  if [[ ! -s $cluster_id_file ]]; then
    kafka_java kafka.tools.StorageTool random-uuid | tail -n 1 >"$cluster_id_file"
  fi
  log "formatting Kafka storage (cluster $(cat "$cluster_id_file"))"
  kafka_java kafka.tools.StorageTool format --ignore-formatted \
    -t "$(cat "$cluster_id_file")" -c "$KAFKA_STATE/server.properties" >>"$LOGS/kafka.log" 2>&1 ||
    { tail_log "$LOGS/kafka.log"; fail "formatting Kafka storage failed"; }
}

start_kafka() {
  local pidfile="$KAFKA_STATE/kafka.pid"
  if port_open "$KAFKA_PORT"; then
    log "Kafka already answers on 127.0.0.1:$KAFKA_PORT"
    return
  fi
  if pid_alive "$pidfile" kafka.Kafka; then
    log "Kafka is starting (pid $(cat "$pidfile"))"
    return
  fi
  rm -f "$pidfile"
  mkdir -p "$KAFKA_STATE/data"
  write_kafka_config
  format_kafka_storage
  log "starting Kafka on 127.0.0.1:$KAFKA_PORT (controller :$KAFKA_CONTROLLER_PORT)"
  start_detached "$pidfile" "$LOGS/kafka.log" "$KAFKA_STATE" \
    java -Xms256m -Xmx768m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$INFRA_SRC/log4j.properties" \
    -cp "$TARGET/kafka-libs/*" kafka.Kafka "$KAFKA_STATE/server.properties"
}

java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ { print $2 }'
}

# Apicurio Registry 3.3 is compiled for Java 21, the broker runs on the default java (17 here). Take the first
# java that is new enough: INFRA_REGISTRY_JAVA, the one on PATH, JAVA_HOME, then the newest JDK under /usr/lib/jvm.
registry_java() {
  local candidate major
  for candidate in "${INFRA_REGISTRY_JAVA:-}" "$(command -v java)" "${JAVA_HOME:+$JAVA_HOME/bin/java}" \
    $(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | sort -rV); do
    [[ -n $candidate && -x $candidate ]] || continue
    major="$(java_major "$candidate")"
    if [[ $major =~ ^[0-9]+$ ]] && ((major >= 21)); then
      echo "$candidate"
      return
    fi
  done
  fail "Apicurio Registry needs Java 21 or newer; install one or point INFRA_REGISTRY_JAVA at its java binary"
}

# (d) Apicurio Registry. Its SQL storage is H2 in a file under .infra/registry rather than in memory: Kafka's
# data survives restarts, and records written earlier carry schema ids that must still resolve to their schemas.
# Set when the registry was found running rather than started here: then its failures may be its own history's.
REGISTRY_FOUND=false

start_registry() {
  local pidfile="$REGISTRY_STATE/registry.pid"
  if port_open "$SCHEMA_REGISTRY_PORT"; then
    log "registry already answers on 127.0.0.1:$SCHEMA_REGISTRY_PORT"
    REGISTRY_FOUND=true
    return
  fi
  if pid_alive "$pidfile" quarkus-run.jar; then
    log "registry is starting (pid $(cat "$pidfile"))"
    return
  fi
  rm -f "$pidfile"
  mkdir -p "$REGISTRY_STATE"
  local java_bin
  java_bin="$(registry_java)"
  log "starting Apicurio Registry on 127.0.0.1:$SCHEMA_REGISTRY_PORT (Java $(java_major "$java_bin"))"
  start_detached "$pidfile" "$LOGS/registry.log" "$REGISTRY_STATE" \
    "$java_bin" -Xmx512m -Djava.awt.headless=true \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$SCHEMA_REGISTRY_PORT" \
    -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$SCHEMA_REGISTRY_MANAGEMENT_PORT" \
    -Dapicurio.datasource.url="jdbc:h2:file:$REGISTRY_STATE/registry;DB_CLOSE_ON_EXIT=FALSE" \
    -Dquarkus.http.access-log.enabled=false \
    -jar "$TARGET/apicurio/quarkus-run.jar"
}

registry_ready() {
  curl -sf -m 5 -o /dev/null "$SCHEMA_REGISTRY_URL/subjects"
}

# Answering is not enough: a registry left running after its checkout (and with it its H2 file) was deleted
# can still answer reads but hang on writes, so each test that registers a schema would time out instead.
# Registering a schema it cannot know yet tells the two apart. The registry compares schemas in a canonical form
# without docs, so the new part is a field named for this run; with a default, each version is compatible with
# the last in both directions, whatever compatibility the registry applies by default. A registry started a
# moment ago may refuse its first writes, so attempts go on until the deadline.
registry_stores_schema() {
  local deadline=$((SECONDS + REGISTRY_WRITE_TIMEOUT_SECONDS)) field probe status
  field="run_$(date +%s%N)"
  probe="$(printf '{"schema":"{\\"type\\":\\"record\\",\\"name\\":\\"InfraUpProbe\\",\\"fields\\":[{\\"name\\":\\"%s\\",\\"type\\":\\"null\\",\\"default\\":null}]}"}' "$field")"
  while ((SECONDS < deadline)); do
    status="$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
      -d "$probe" "$SCHEMA_REGISTRY_URL/subjects/infra-up-probe/versions" || true)"
    [[ $status == 200 ]] && return 0
    REGISTRY_LAST_WRITE="HTTP ${status:-000}"
    sleep 1
  done
  return 1
}

check_registry_stores() {
  REGISTRY_LAST_WRITE="no answer"
  registry_stores_schema && return
  if $REGISTRY_FOUND; then
    fail "the registry found running at $SCHEMA_REGISTRY_URL could not store a schema within ${REGISTRY_WRITE_TIMEOUT_SECONDS}s \
($REGISTRY_LAST_WRITE): probably one left running after the checkout that started it was deleted. Stop it \
(ss -ltnp | grep :$SCHEMA_REGISTRY_PORT) and run again"
  fi
  tail_log "$LOGS/registry.log"
  fail "the registry started at $SCHEMA_REGISTRY_URL could not store a schema within ${REGISTRY_WRITE_TIMEOUT_SECONDS}s ($REGISTRY_LAST_WRITE)"
}

registry_alive() {
  pid_alive "$REGISTRY_STATE/registry.pid" quarkus-run.jar || port_open "$SCHEMA_REGISTRY_PORT"
}

# Ready means a metadata request answers and the broker is registered, which only a client can tell; before
# `npm ci` there is no kafkajs, and an open port is the best available sign.
kafka_ready() {
  if [[ -d $ROOT/node_modules/kafkajs ]]; then
    node "$ROOT/scripts/wait-for-kafka.mjs" "$KAFKA_BROKERS" 3
  else
    port_open "$KAFKA_PORT"
  fi
}

kafka_alive() {
  pid_alive "$KAFKA_STATE/kafka.pid" kafka.Kafka || port_open "$KAFKA_PORT"
}

write_env() {
  cat >"$STATE/env" <<EOF
# Written by scripts/infra-up.sh. Source it: . .infra/env
export KAFKA_BROKERS=$KAFKA_BROKERS
export SCHEMA_REGISTRY_URL=$SCHEMA_REGISTRY_URL
export DATABASE_URL=$DATABASE_URL
export REDIS_URL=$REDIS_URL
EOF
}

command -v java >/dev/null || fail "java (17 or newer) is needed for Kafka and the registry"
mkdir -p "$LOGS" "$KAFKA_STATE" "$REGISTRY_STATE"
ensure_artifacts
ensure_postgres_and_redis
start_kafka
start_registry
wait_until "Kafka at $KAFKA_BROKERS" "$READY_TIMEOUT_SECONDS" "$LOGS/kafka.log" kafka_alive kafka_ready
registry_what="registry at $SCHEMA_REGISTRY_URL"
# Its log here is not the found registry's; what to do about a found one that stops answering is.
$REGISTRY_FOUND && registry_what+=" (found running, not started here: stop it if it is left from a deleted checkout)"
wait_until "$registry_what" "$READY_TIMEOUT_SECONDS" "$LOGS/registry.log" registry_alive registry_ready
check_registry_stores
write_env
log "ready"
sed -n 's/^export //p' "$STATE/env"
