#!/usr/bin/env bash
# Runs a command with Node 22+ and this project's dependencies in place, so the README's
# commands work on a fresh machine (see node-env.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/node-env.sh"
ensure_deps
# The project's own tools (tsx, jest) by name, also when not run through an npm script.
export PATH="$project_root/node_modules/.bin:$PATH"
exec "$@"
