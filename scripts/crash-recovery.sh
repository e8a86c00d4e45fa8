#!/usr/bin/env bash
# `npm run crash-recovery [-- --mode single|queue --moment backlog|emitted --scheduler memory|durable]`:
# the trigger's crash recovery, measured (scripts/crash-recovery.ts prints the table). Run under
# scripts/with-env.sh (Node 24, dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/system-packages.sh
ensure_system_packages postgresql redis-server
npm run --silent build
tsx scripts/crash-recovery.ts "$@"
