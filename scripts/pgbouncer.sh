#!/usr/bin/env bash
# scripts/pgbouncer.sh — start a PgBouncer in transaction pooling mode in front
# of the PostgreSQL server the tests use, for the PgBouncer tests: the one
# SORTID_TEST_DATABASE names when it is set, else 127.0.0.1 at PGPORT
# (default 5432).
#
# Each call starts its own PgBouncer in a new directory /tmp/sortid-pgbouncer.*
# on the first free port from 16432 on, so a PgBouncer left by an earlier run
# is never in the way, and prints, for eval:
#
#	export SORTID_TEST_PGBOUNCER=postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable
#	export SORTID_PGBOUNCER_PID=PID
#
# Stop it with `kill "$SORTID_PGBOUNCER_PID"`. It trusts every connection
# from this machine as user postgres and connects upstream as that user, so
# the server must let postgres in from its TCP address without a password. Run as
# root, it drops to the postgres user (PgBouncer refuses to run as root).
set -euo pipefail

# The settings the tests rely on: transaction pooling; fewer server sessions
# per database than the tests' 8 clients, so that clients share them; and
# (PgBouncer's default) the most recently used idle server session first.
settings() {
	cat <<EOF
[databases]
* = host=$upstream_host port=$upstream_port

[pgbouncer]
pool_mode = transaction
default_pool_size = 2
server_round_robin = 0
max_client_conn = 200
auth_type = trust
auth_file = $1/userlist.txt
admin_users = postgres
ignore_startup_parameters = extra_float_digits
listen_addr = 127.0.0.1
listen_port = $2
unix_socket_dir =
pidfile = $1/pgbouncer.pid
logfile = $1/pgbouncer.log
EOF
}

# ours PORT: the PgBouncer answering on PORT runs this call's configuration
# file. pgbouncer -d forks before it binds and exits 0 even when the bind
# fails, so a PgBouncer that took the port after port_free, another call's,
# would otherwise pass for ours.
ours() {
	psql -X -q -At "host=127.0.0.1 port=$1 user=postgres dbname=pgbouncer connect_timeout=2" \
		-c 'SHOW CONFIG' 2>/dev/null |
		awk -F'|' -v f="$dir/pgbouncer.ini" '$1 == "conffile" && $2 == f { ok = 1 } END { exit !ok }'
}

# port_free PORT: nothing accepts connections on 127.0.0.1:PORT.
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The server's own address and port, as it reports them: the same whether
# SORTID_TEST_DATABASE is a URL or a keyword/value string.
upstream=$(psql -X -q -At -F ' ' "${SORTID_TEST_DATABASE:-host=127.0.0.1 port=${PGPORT:-5432} user=postgres dbname=postgres}" \
	-c 'SELECT host(inet_server_addr()), inet_server_port()') || {
	echo "scripts/pgbouncer.sh: the PostgreSQL server does not answer (SORTID_TEST_DATABASE=${SORTID_TEST_DATABASE:-}, PGPORT=${PGPORT:-})" >&2
	exit 1
}
read -r upstream_host upstream_port <<<"$upstream"
if [ -z "$upstream_port" ]; then
	echo "scripts/pgbouncer.sh: reached the server over a Unix socket; name a TCP host in SORTID_TEST_DATABASE" >&2
	exit 1
fi

as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(-u postgres)

dir=$(mktemp -d /tmp/sortid-pgbouncer.XXXXXX)
echo '"postgres" ""' >"$dir/userlist.txt"
[ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"

for port in $(seq 16432 16531); do
	port_free "$port" || continue
	settings "$dir" "$port" >"$dir/pgbouncer.ini"
	rm -f "$dir/pgbouncer.pid"
	pgbouncer -q -d "${as_user[@]}" "$dir/pgbouncer.ini" >>"$dir/start.log" 2>&1 || continue
	for _ in $(seq 1 50); do
		ours "$port" && break
		grep -qs FATAL "$dir/pgbouncer.log" && break
		sleep 0.2
	done
	if ours "$port" && [ -s "$dir/pgbouncer.pid" ]; then
		echo "export SORTID_TEST_PGBOUNCER='postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable'"
		echo "export SORTID_PGBOUNCER_PID=$(cat "$dir/pgbouncer.pid")"
		exit 0
	fi
	# Lost the port to someone else, or failed otherwise: stop ours, try the next.
	[ -s "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
done
echo "scripts/pgbouncer.sh: no PgBouncer came up; see $dir/start.log and $dir/pgbouncer.log" >&2
cat "$dir/start.log" "$dir/pgbouncer.log" >&2 2>/dev/null || true
exit 1
