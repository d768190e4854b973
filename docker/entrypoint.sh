#!/bin/sh
# Starts kafkite with the container's config. KAFKA_* variables override it (the broker reads them);
# KAFKITE_ADVERTISED_HOST is the name clients outside the container reach it by.
set -eu

: "${KAFKA_ADVERTISED_LISTENERS:=PLAINTEXT://${KAFKITE_ADVERTISED_HOST:-localhost}:9092}"
export KAFKA_ADVERTISED_LISTENERS

# exec: node replaces the shell (as PID 1), so `docker stop`'s SIGTERM reaches the broker itself.
exec node /opt/kafkite/bin/kafkite.js start /etc/kafkite/server.properties "$@"
