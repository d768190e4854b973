#!/bin/sh
# Starts kafkite with the container's config. KAFKA_* variables override it (the broker reads them);
# KAFKITE_ADVERTISED_HOST is the name clients outside the container reach it by.
set -eu

: "${KAFKA_ADVERTISED_LISTENERS:=PLAINTEXT://${KAFKITE_ADVERTISED_HOST:-localhost}:9092}"
export KAFKA_ADVERTISED_LISTENERS

# The admin HTTP listens on 0.0.0.0, so it needs a bearer token (every route but /health). Without
# KAFKA_KAFKITE_ADMIN_TOKEN or KAFKA_KAFKITE_ADMIN_TOKEN_FILE, one is generated for this container.
if [ -z "${KAFKA_KAFKITE_ADMIN_TOKEN:-}" ] && [ -z "${KAFKA_KAFKITE_ADMIN_TOKEN_FILE:-}" ]; then
  token_file=/var/lib/kafkite/admin-token
  if [ ! -s "$token_file" ]; then
    (umask 077 && node -e 'process.stdout.write(require("crypto").randomBytes(24).toString("base64url"))' >"$token_file")
  fi
  KAFKA_KAFKITE_ADMIN_TOKEN_FILE=$token_file
  export KAFKA_KAFKITE_ADMIN_TOKEN_FILE
  echo "kafkite: admin HTTP bearer token generated in $token_file (docker exec <container> cat $token_file)" >&2
fi

# exec: node replaces the shell (as PID 1), so `docker stop`'s SIGTERM reaches the broker itself.
exec node /opt/kafkite/bin/kafkite.js start /etc/kafkite/server.properties "$@"
