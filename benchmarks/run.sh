#!/usr/bin/env bash
# Runs every sortid benchmark against its peers and prints medians, min–max
# and ratios to the baseline; docs/BENCHMARKS.md records a run.
#
#   benchmarks/run.sh [rounds]      (default 3)
#
# 1. Go: `go test -run '^$' -bench . -benchmem -count 2` once per round, so
#    the contenders interleave across rounds (2×rounds samples each), then
#    benchstat and integration/cmd/benchratio (ratios to uuid-v4 / uuid / ulid).
# 2. PostgreSQL: integration/cmd/pgbench -rounds N (1M rows per contender per
#    round). Server: the integration harness's (pgtest) rules without Docker:
#    SORTID_TEST_DATABASE, else the libpq defaults (PGHOST, PGPORT, PGUSER,
#    PGPASSWORD, PGDATABASE); it creates and drops a scratch database with
#    the harness. No server is an error, not a skip.
# The two programs live in the integration module so that pgbench shares the
# test-database harness (integration/internal/pgtest) instead of copying it.
# Environment: BENCHTIME (go test -benchtime, default 250ms), ROWS (default
# 1000000), WINDOW_REPS (default 200), OUT (directory for raw output,
# default a new temporary directory).
set -euo pipefail
rounds=${1:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [rounds]" >&2; exit 2; }
cd "$(dirname "$0")"
out=${OUT:-$(mktemp -d -t sortid-bench.XXXXXX)}
mkdir -p "$out"

echo "# sortid benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds"
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'),"\
  "$(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo), $(uname -sr), $(go version | cut -d' ' -f3-)"
echo "Raw output: $out"

# Fail before the long Go part if the database part cannot run.
go run ../integration/cmd/pgbench -check

echo
echo "## Go (benchtime ${BENCHTIME:-250ms}, $((2 * rounds)) samples each)"
: >"$out/go.txt"
for ((r = 1; r <= rounds; r++)); do
  echo "go test round $r/$rounds" >&2
  go test -run '^$' -bench . -benchmem -count 2 -benchtime "${BENCHTIME:-250ms}" >>"$out/go.txt"
done
echo
echo '```'
go tool benchstat "$out/go.txt"
echo '```'
go run ../integration/cmd/benchratio -baseline uuid-v4,uuid,ulid <"$out/go.txt"

echo
echo "## PostgreSQL"
go run ../integration/cmd/pgbench -rounds "$rounds" -rows "${ROWS:-1000000}" -window-reps "${WINDOW_REPS:-200}" | tee "$out/pg.md"
