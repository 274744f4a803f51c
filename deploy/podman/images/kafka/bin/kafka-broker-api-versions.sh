#!/bin/bash
KAFKA_HEAP_OPTS=-Xmx256m exec /opt/kafka/bin/kafka-class.sh kafka.admin.BrokerApiVersionsCommand "$@"
