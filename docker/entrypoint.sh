#!/bin/sh
# Container entrypoint: fail early with a clear message when the data volume or the config file is
# unusable, then exec the command so node receives SIGTERM directly (graceful shutdown).
set -eu

data_dir="${TOOLGATE_DATA_DIR:-/data}"
if [ ! -d "$data_dir" ] || [ ! -w "$data_dir" ]; then
  echo "toolgate: data directory $data_dir is not writable by uid $(id -u)." >&2
  echo "toolgate: mount a volume there owned by uid $(id -u), e.g. a named volume (see docker-compose.yml)." >&2
  exit 1
fi

if [ -n "${TOOLGATE_CONFIG:-}" ] && [ ! -r "$TOOLGATE_CONFIG" ]; then
  echo "toolgate: TOOLGATE_CONFIG=$TOOLGATE_CONFIG is not readable." >&2
  exit 1
fi

exec "$@"
