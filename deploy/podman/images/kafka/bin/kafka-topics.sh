#!/bin/bash
KAFKA_HEAP_OPTS=-Xmx256m exec /opt/kafka/bin/kafka-class.sh org.apache.kafka.tools.TopicCommand "$@"
