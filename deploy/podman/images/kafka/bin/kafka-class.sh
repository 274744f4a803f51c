#!/bin/bash
# Runs a class of the Kafka distribution with its classpath and logging (the shell scripts here call it).
exec java ${KAFKA_HEAP_OPTS:-} ${KAFKA_OPTS:-} -Dlog4j.configuration=file:/opt/kafka/config/log4j.properties \
  -cp '/opt/kafka/libs/*' "$@"
