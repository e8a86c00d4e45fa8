#!/usr/bin/env bash
# `npm run test:e2e`: this package in a real n8n and its editor in a real browser (headless
# Chromium), against the sandbox. Run under scripts/with-env.sh (Node 24, dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium drives the editor; a fresh machine does not have it (playwright-core's own
# browser download does not work here).
if [ ! -x /usr/bin/chromium ]; then
	echo "Installing Chromium (apt-get install chromium)..." >&2
	if [ "$(id -u)" = 0 ]; then apt_get=(apt-get); else apt_get=(sudo apt-get); fi
	"${apt_get[@]}" update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq chromium >&2
fi

npm run --silent build
tsx scripts/n8n-install.ts   # first run only: about 5 minutes
jest --config jest.e2e.config.js --runInBand "$@"
