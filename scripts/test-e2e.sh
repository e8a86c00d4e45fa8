#!/usr/bin/env bash
# `npm run test:e2e`: this package in real n8n instances and its editor in a real browser
# (headless Chromium), against the sandbox, in three suites run one after the other:
#   test/e2e         n8n 2.40.7, the package linked; the editor in Chromium
#   test/e2e-lines   n8n 1.123.81 (Node 22) and 2.40.7, the package installed; OAuth2 refresh
#   test/e2e-queue   n8n 2.40.7 in queue mode: PostgreSQL, Redis, a main and a worker
# Arguments go to jest (e.g. a test file: only the suite holding it runs). Run under
# scripts/with-env.sh (Node 24, dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/system-packages.sh

# Debian's Chromium drives the editor (playwright-core's own browser download does not work
# here); PostgreSQL and Redis serve queue mode.
ensure_system_packages chromium postgresql redis-server

npm run --silent build
tsx scripts/n8n-install.ts --e2e   # first run only: about 5 minutes per n8n version

# One project of jest.config.js at a time: each one's global setup starts its own n8n instances.
for project in e2e e2e-lines e2e-queue; do
	started=$SECONDS
	jest --selectProjects "$project" --runInBand --passWithNoTests "$@"
	echo "[test:e2e] $project: $((SECONDS - started)) s" >&2
done
