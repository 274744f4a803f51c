#!/bin/bash
# The broker's entrypoint, configured as apache/kafka's is: every KAFKA_<NAME> variable becomes the property
# <name> (lower case, `_` to `.`, `__` to `_`, `___` to `-`), except the JVM's own; the log directory is formatted
# on first start with CLUSTER_ID.
set -euo pipefail
config=/opt/kafka/config/server.properties
jvm_variables=' KAFKA_HEAP_OPTS KAFKA_OPTS KAFKA_JVM_PERFORMANCE_OPTS KAFKA_GC_LOG_OPTS KAFKA_LOG4J_OPTS KAFKA_JMX_OPTS '

: >"$config"
for name in $(compgen -e | grep '^KAFKA_'); do
  [[ $jvm_variables == *" $name "* ]] && continue
  key="${name#KAFKA_}"
  key="${key,,}"
  key="${key//___/-}"
  key="${key//__/@}"
  key="${key//_/.}"
  printf '%s=%s\n' "${key//@/_}" "${!name}" >>"$config"
done
grep -q '^log.dirs=' "$config" || echo 'log.dirs=/tmp/kraft-combined-logs' >>"$config"

log_dirs="$(sed -n 's/^log.dirs=//p' "$config")"
if [[ ! -f ${log_dirs%%,*}/meta.properties ]]; then
  /opt/kafka/bin/kafka-class.sh kafka.tools.StorageTool format --ignore-formatted \
    -t "${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}" -c "$config"
fi
exec java ${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20} \
  ${KAFKA_OPTS:-} -Djava.awt.headless=true -Dlog4j.configuration=file:/opt/kafka/config/log4j.properties \
  -cp '/opt/kafka/libs/*' kafka.Kafka "$config"
