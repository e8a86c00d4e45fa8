# Sourced by scripts/test-e2e.sh and the crash-recovery harness: installs the Debian packages the
# end-to-end tests run (a fresh machine has none of them) unless they are there already.
#   ensure_system_packages chromium postgresql redis-server

# Administration commands the tests run (runuser, to start PostgreSQL as its own user) live in
# sbin, which a non-login PATH may leave out.
export PATH="$PATH:/usr/sbin:/sbin"
ensure_system_packages() {
	local missing=()
	for package in "$@"; do
		case "$package" in
			chromium) [ -x /usr/bin/chromium ] || missing+=(chromium) ;;
			postgresql) compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || missing+=(postgresql) ;;
			redis-server) command -v redis-server >/dev/null || missing+=(redis-server) ;;
			*) dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package") ;;
		esac
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	echo "Installing ${missing[*]} (apt-get install)..." >&2
	local apt_get=(apt-get)
	[ "$(id -u)" = 0 ] || apt_get=(sudo apt-get)
	"${apt_get[@]}" update -qq >&2
	# Packages only: their services are not started here (the tests start their own, on free ports).
	DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 "${apt_get[@]}" install -y -qq "${missing[@]}" >&2
}
