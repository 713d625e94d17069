#!/usr/bin/env bash
# Benchmark of the sortid SQL generators against gen_random_uuid() and bigserial.
#
#   benchmarks/sql/run.sh [rounds]        (default 5 rounds, interleaved; ROWS=1000000)
#
# Connection: the usual libpq variables (PGHOST, PGPORT, PGUSER, PGDATABASE); the
# script creates and drops a scratch database named sortid_bench_$$.
# sortid_huid_session() is huid_generate()'s per-session generator (its read-only
# fallback, and huid_generate() before the server-wide counter, less its window check), measured
# beside it. Every round runs, in turn, for each generator:
#   * INSERT INTO t(x) SELECT g FROM generate_series(1, ROWS) g into an UNLOGGED table
#     whose PRIMARY KEY is filled by DEFAULT f() (a duplicate key is reported as FAIL);
#   * SELECT count(f()) FROM generate_series(1, ROWS).
# Each round runs the contenders back to back, so noise on a shared machine hits them
# alike. It prints each round's ms, the median, and rows/s relative to gen_random_uuid():
# vs_uuid is median uuid ms / median ms, paired the median over rounds of that round's
# uuid ms / ms, with its quartiles (> 1 is faster).
set -euo pipefail
rounds=${1:-5}
rows=${ROWS:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
db=sortid_bench_$$
psql_base=(psql -X -v ON_ERROR_STOP=1 -q)
"${psql_base[@]}" -d "${PGDATABASE:-postgres}" -c "CREATE DATABASE $db"
trap '"${psql_base[@]}" -d "${PGDATABASE:-postgres}" -c "DROP DATABASE IF EXISTS $db"' EXIT
P=("${psql_base[@]}" -d "$db")
"${P[@]}" -f "$here/../../migrations/sql/0001_sortid.up.sql"
"${P[@]}" <<'SQL'
CREATE UNLOGGED TABLE t_gen_random_uuid        (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), x int);
CREATE UNLOGGED TABLE t_huid_generate          (id bigint PRIMARY KEY DEFAULT huid_generate(), x int);
CREATE UNLOGGED TABLE t_sortid_huid_session    (id bigint PRIMARY KEY DEFAULT sortid_huid_session(), x int);
CREATE UNLOGGED TABLE t_scru128_generate       (id uuid PRIMARY KEY DEFAULT scru128_generate(), x int);
CREATE UNLOGGED TABLE t_scru128_generate_bytea (id bytea PRIMARY KEY DEFAULT scru128_generate_bytea(), x int);
CREATE UNLOGGED TABLE t_bigserial              (id bigserial PRIMARY KEY, x int);
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
gens=(gen_random_uuid huid_generate sortid_huid_session scru128_generate scru128_generate_bytea)
for ((r = 1; r <= rounds; r++)); do
  for f in "${gens[@]}" bigserial; do
    "${P[@]}" -c "TRUNCATE t_$f; CHECKPOINT"
    ms=$(timed "INSERT INTO t_$f(x) SELECT g FROM generate_series(1, $rows) g")
    res["insert $f"]+="$ms "
    echo "round $r: insert $f $ms" >&2
  done
  for f in "${gens[@]}"; do
    ms=$(timed "SELECT count($f()) FROM generate_series(1, $rows)")
    res["select $f"]+="$ms "
    echo "round $r: select $f $ms" >&2
  done
done

median() { tr ' ' '\n' | { grep -E '^[0-9.]+$' || true; } | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# paired: the ratio uuid ms / contender ms of each round, then the median of those
paired() { awk -v b="$1" -v m="$2" 'BEGIN {n = split(b, x, " "); split(m, y, " "); for (i = 1; i <= n; i++) if (x[i] ~ /^[0-9.]+$/ && y[i] ~ /^[0-9.]+$/) printf "%.4f ", x[i] / y[i]}'; }
printf '%-30s %-10s %-8s %-8s %-11s %s\n' measurement median_ms vs_uuid paired paired_q1q3 rounds_ms
for k in "${!res[@]}"; do
  m=$(median <<<"${res[$k]}")
  base=$(median <<<"${res["${k%% *} gen_random_uuid"]}")
  ratio=$(awk -v b="$base" -v m="$m" 'BEGIN {if (m == "n/a" || b == "n/a") print "n/a"; else printf "%.2f", b / m}')
  ratios=$(paired "${res["${k%% *} gen_random_uuid"]}" "${res[$k]}")
  pm=$(median <<<"$ratios")
  q=$(tr ' ' '\n' <<<"$ratios" | grep . | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.2f-%.2f", a[int((NR+3)/4)], a[int((3*NR+3)/4)]; else print "n/a"}')
  printf '%-30s %-10s %-8s %-8.2f %-11s %s\n' "$k" "$m" "$ratio" "$pm" "$q" "${res[$k]}"
done | sort
