#!/usr/bin/env bash
# scripts/matrix.sh [MAJOR...] — the suites that touch PostgreSQL (the
# integration and pgxtype modules, `go test -race`) against each major
# version scripts/pgserver.sh knows (default: all of them, and "plain": the
# system's version without sortid's native library), beside the system's
# version that scripts/test.sh tests.
#
# Per version: a throwaway server (scripts/pgserver.sh start) and a PgBouncer
# in front of it (scripts/pgbouncer.sh), SORTID_TEST_DATABASE naming the one
# and SORTID_TEST_PGBOUNCER the other, and SORTID_TEST_PGBIN naming the
# version's server programs for the tests that start clusters of their own
# (pgcluster). SORTID_TEST_MYSQL defaults as in .ci/run. At the end of each
# version it prints the tests that failed and the listed exceptions taken
# (pgtest.Exceptions); the full `go test -v` logs stay in the directory it
# names. It exits non-zero when a version failed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
	versions=("$@")
else
	mapfile -t versions < <(bash scripts/pgserver.sh versions)
fi
export SORTID_TEST_MYSQL="${SORTID_TEST_MYSQL:-root@tcp(127.0.0.1:3306)/}"
# Every server of the matrix lacks sortid's native library: the generators
# are plain SQL there (TestSQLNativePicked checks it).
export SORTID_TEST_NATIVE=off
# Each version's run must reach only its own servers.
unset SORTID_TEST_PGBOUNCER SORTID_PGBOUNCER_PID DATABASE_URL PGHOST PGPORT PGDATABASE

# The marker of pgtest.ExceptionMarker in a skip message.
marker='pgtest: listed exception'
logs=$(mktemp -d /tmp/sortid-matrix.XXXXXX)

# run_version MAJOR: one version's server, PgBouncer and tests; its status is
# the tests'. It runs in a subshell, so that its trap stops what it started.
run_version() (
	major=$1
	log="$logs/$major.log"
	# Called in an if, so set -e does not hold here: every step checks.
	server=$(bash scripts/pgserver.sh start "$major") || { echo "== PostgreSQL $major: the server did not start"; return 1; }
	eval "$server"
	trap 'bash scripts/pgserver.sh stop "$SORTID_PGSERVER_DIR"' EXIT
	if bouncer=$(PATH="$PATH:/usr/sbin" bash scripts/pgbouncer.sh); then
		eval "$bouncer"
		trap 'kill "$SORTID_PGBOUNCER_PID" 2>/dev/null || true; bash scripts/pgserver.sh stop "$SORTID_PGSERVER_DIR"' EXIT
	else
		echo "PostgreSQL $major: no PgBouncer (the PgBouncer tests skip, or fail under CI=true)"
	fi
	echo "== PostgreSQL $major: $(psql -X -At "$SORTID_TEST_DATABASE" -c 'SHOW server_version') at $SORTID_TEST_DATABASE"
	status=0
	for module in integration pgxtype; do
		echo "== PostgreSQL $major: $module: test -race" | tee -a "$log"
		(cd "$module" && go test -race -count=1 -timeout 30m -v ./...) >>"$log" 2>&1 || status=1
	done
	echo "== PostgreSQL $major: $([ "$status" -eq 0 ] && echo passed || echo FAILED) (log: $log)"
	grep -E '^(\s*--- FAIL|FAIL\s|panic:)' "$log" | sed 's/^/   /' || true
	echo "== PostgreSQL $major: listed exceptions taken"
	grep -o "$marker.*" "$log" | sort -u | sed "s/^$marker: /   /" || echo "   none"
	return "$status"
)

failed=()
summary=()
for major in "${versions[@]}"; do
	start=$SECONDS
	if run_version "$major"; then result=passed; else result=FAILED; failed+=("$major"); fi
	summary+=("PostgreSQL $major: $result in $((SECONDS - start)) s")
done
echo "== matrix (logs: $logs)"
printf '   %s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ]
