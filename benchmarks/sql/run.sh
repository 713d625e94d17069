#!/usr/bin/env bash
# Benchmark of the sortid SQL generators against gen_random_uuid() and bigserial.
#
#   benchmarks/sql/run.sh [rounds]        (default 5 rounds, interleaved)
#
# Connection: the usual libpq variables (PGHOST, PGPORT, PGUSER, PGDATABASE); the
# script creates and drops a scratch database named sortid_bench_$$.
# Every round runs, in turn, for each generator:
#   * INSERT INTO t(x) SELECT g FROM generate_series(1, 1000000) g, t's PRIMARY KEY
#     filled by DEFAULT f() (a duplicate key is reported as FAIL);
#   * SELECT count(f()) FROM generate_series(1, 1000000).
# It prints each round's ms, the median, and rows/s relative to gen_random_uuid()
# (median uuid ms / median ms, so > 1 is faster).
# The bench_* generators exist only in the scratch database, to price designs not
# shipped; designs.sql says what each one is.
set -euo pipefail
rounds=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
db=sortid_bench_$$
psql_base=(psql -X -v ON_ERROR_STOP=1 -q)
"${psql_base[@]}" -d "${PGDATABASE:-postgres}" -c "CREATE DATABASE $db"
trap '"${psql_base[@]}" -d "${PGDATABASE:-postgres}" -c "DROP DATABASE IF EXISTS $db"' EXIT
P=("${psql_base[@]}" -d "$db")
"${P[@]}" -f "$here/../../migrations/sql/0001_sortid.up.sql"
"${P[@]}" -f "$here/designs.sql"
"${P[@]}" <<'SQL'
CREATE TABLE t_gen_random_uuid     (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), x int);
CREATE TABLE t_huid_generate       (id bigint PRIMARY KEY DEFAULT huid_generate(), x int);
CREATE TABLE t_bench_huid_fresh    (id bigint PRIMARY KEY DEFAULT bench_huid_fresh(), x int);
CREATE TABLE t_bench_huid_greatest (id bigint PRIMARY KEY DEFAULT bench_huid_greatest(), x int);
CREATE TABLE t_bench_huid_nomix    (id bigint PRIMARY KEY DEFAULT bench_huid_nomix(), x int);
CREATE TABLE t_bench_huid_mixexpr  (id bigint PRIMARY KEY DEFAULT bench_huid_mixexpr(), x int);
CREATE TABLE t_scru128_generate    (id uuid PRIMARY KEY DEFAULT scru128_generate(), x int);
CREATE TABLE t_bigserial           (id bigserial PRIMARY KEY, x int);
SQL

# timed SQL -> prints ms, or FAIL:<first error line>
timed() {
  local out
  if out=$("${P[@]}" -At -c '\timing on' -c "$1" 2>&1); then
    grep -o 'Time: [0-9.]*' <<<"$out" | tail -1 | awk '{print $2}'
  else
    echo "FAIL:$(grep -m1 ERROR <<<"$out" | tr ' ' '_')"
  fi
}

declare -A res
gens=(gen_random_uuid huid_generate bench_huid_fresh bench_huid_greatest bench_huid_nomix bench_huid_mixexpr scru128_generate)
for ((r = 1; r <= rounds; r++)); do
  for f in "${gens[@]}" bigserial; do
    "${P[@]}" -c "TRUNCATE t_$f; CHECKPOINT"
    ms=$(timed "INSERT INTO t_$f(x) SELECT g FROM generate_series(1, 1000000) g")
    res["insert $f"]+="$ms "
    echo "round $r: insert $f $ms" >&2
  done
  for f in "${gens[@]}"; do
    ms=$(timed "SELECT count($f()) FROM generate_series(1, 1000000)")
    res["select $f"]+="$ms "
    echo "round $r: select $f $ms" >&2
  done
done

median() { tr ' ' '\n' | { grep -E '^[0-9.]+$' || true; } | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-30s %-10s %-8s %s\n' measurement median_ms vs_uuid rounds_ms
for k in "${!res[@]}"; do
  m=$(median <<<"${res[$k]}")
  base=$(median <<<"${res["${k%% *} gen_random_uuid"]}")
  ratio=$(awk -v b="$base" -v m="$m" 'BEGIN {if (m == "n/a" || b == "n/a") print "n/a"; else printf "%.2f", b / m}')
  printf '%-30s %-10s %-8s %s\n' "$k" "$m" "$ratio" "${res[$k]}"
done | sort
