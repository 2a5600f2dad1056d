#!/usr/bin/env bash
# Checks that every compose file in the repository parses as Compose reads it. Offline:
# `config` only resolves the file, it pulls no image and needs no Docker engine.
# Installs Debian's docker-compose when neither docker-compose nor `docker compose` is there.
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq docker-compose >/dev/null
  compose=(docker-compose)
fi

files=$(find . -path ./node_modules -prune -o -path ./.git -prune -o -type f \
  \( -name '*compose*.yml' -o -name '*compose*.yaml' \) -print | sort)
if [ -z "$files" ]; then
  echo "no compose file found" >&2
  exit 1
fi
status=0
for file in $files; do
  if "${compose[@]}" -f "$file" config --quiet; then
    echo "compose: $file is valid"
  else
    echo "compose: $file is invalid" >&2
    status=1
  fi
done
exit $status
