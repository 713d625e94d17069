#!/usr/bin/env bash
# Benchmark of the sortid SQL generators, native (the C functions of pgext/) and plain
# SQL side by side, against bigserial, gen_random_uuid() and the C extension pg_uuidv7's
# uuid_generate_v7() (and the built-in uuidv7() on PostgreSQL 18 or later).
#
#   benchmarks/sql/run.sh [rounds]        (default 5 rounds, interleaved; ROWS=1000000)
#
# Connection: the usual libpq variables (PGHOST, PGPORT, PGUSER, PGDATABASE), as a
# superuser. The server needs the library of pgext/ (pg_available_extensions lists
# sortid) and pg_uuidv7 (../shared/vendor/pg_uuidv7/README.md); the script stops if
# either is missing. It creates and drops a scratch database sortid_bench_$$ and a
# NOLOGIN role of the same name. In it the migration runs twice: as the superuser with
# search_path native (the generators become C functions) and, under SET ROLE, as that
# role, which is no superuser, with search_path plain (they stay plain SQL); the script
# checks pg_proc for both. plain.sortid_huid_session() is huid_generate()'s per-session
# generator (its read-only fallback). Every round runs, in turn, for each contender:
#   * INSERT INTO t(x) SELECT g FROM generate_series(1, ROWS) g into an UNLOGGED table
#     whose PRIMARY KEY is filled by DEFAULT f() (bigserial: its sequence), after a
#     TRUNCATE and a CHECKPOINT (a duplicate key is reported as FAIL);
#   * SELECT count(f()) FROM generate_series(1, ROWS) (not for bigserial).
# Each round runs the contenders back to back, so noise on a shared machine hits them
# alike. It prints each round's ms, the median, and rates relative to bigserial
# (inserts) and to uuid_generate_v7(): the ratio of medians (reference median ms /
# median ms), then paired, the median over rounds of that round's reference ms / ms,
# with its quartiles. > 1 is faster than the reference.
set -euo pipefail
rounds=${1:-5}
rows=${ROWS:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
db=sortid_bench_$$
role=sortid_bench_$$
psql_base=(psql -X -v ON_ERROR_STOP=1 -q)
admin=("${psql_base[@]}" -d "${PGDATABASE:-postgres}")
cleanup() { "${admin[@]}" -c "DROP DATABASE IF EXISTS $db" -c "DROP ROLE IF EXISTS $role"; }
trap cleanup EXIT
"${admin[@]}" -c "CREATE DATABASE $db" -c "CREATE ROLE $role NOLOGIN"
P=("${psql_base[@]}" -d "$db")
die() { echo "run.sh: $*" >&2; exit 1; }

if [[ $("${P[@]}" -Atc "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_uuidv7'") != 1 ]]; then
  die "the server has no pg_uuidv7, the C reference of this benchmark; build and install it as ../shared/vendor/pg_uuidv7/README.md says"
fi
migration=$here/../../migrations/sql/0001_sortid.up.sql
"${P[@]}" <<SQL
CREATE EXTENSION pg_uuidv7;
CREATE SCHEMA native;
CREATE SCHEMA plain AUTHORIZATION $role;
SQL
"${P[@]}" -c "SET search_path = native" -f "$migration"
"${P[@]}" -c "SET ROLE $role" -c "SET search_path = plain" -f "$migration"
for fn in huid_generate scru128_generate scru128_generate_bytea; do
  for want in native:c plain:sql; do
    lang=$("${P[@]}" -Atc "SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
                            WHERE p.oid = '${want%:*}.$fn()'::regprocedure")
    [[ $lang == "${want#*:}" ]] ||
      die "${want%:*}.$fn() is LANGUAGE $lang, not ${want#*:} (is the library of pgext/ installed, the connecting role a superuser, sortid.native not off?)"
  done
done

# contender: name (the function's, schema-qualified where sortid's) and key type
contenders=(uuid_generate_v7:uuid gen_random_uuid:uuid
  native.huid_generate:bigint plain.huid_generate:bigint plain.sortid_huid_session:bigint
  native.scru128_generate:uuid plain.scru128_generate:uuid
  native.scru128_generate_bytea:bytea plain.scru128_generate_bytea:bytea)
if (( $("${P[@]}" -Atc "SHOW server_version_num") >= 180000 )); then
  contenders+=(uuidv7:uuid)
fi
gens=()
for c in "${contenders[@]}"; do
  f=${c%:*}
  gens+=("$f")
  "${P[@]}" -c "CREATE UNLOGGED TABLE t_${f//./_} (id ${c#*:} PRIMARY KEY DEFAULT $f(), x int)"
done
"${P[@]}" -c "CREATE UNLOGGED TABLE t_bigserial (id bigserial PRIMARY KEY, x int)"

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
for ((r = 1; r <= rounds; r++)); do
  for f in bigserial "${gens[@]}"; do
    "${P[@]}" -c "TRUNCATE t_${f//./_}; CHECKPOINT"
    ms=$(timed "INSERT INTO t_${f//./_}(x) SELECT g FROM generate_series(1, $rows) g")
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
# vs REFERENCE_MS MS: reference median / median, then paired: the median and quartiles
# over the rounds of that round's reference ms / ms ("-" without a reference)
vs() {
  [[ -n $1 ]] || { printf '%-6s %-6s %-10s' - - -; return; }
  local ratios
  ratios=$(awk -v b="$1" -v m="$2" 'BEGIN {n = split(b, x, " "); split(m, y, " "); for (i = 1; i <= n; i++) if (x[i] ~ /^[0-9.]+$/ && y[i] ~ /^[0-9.]+$/) printf "%.4f ", x[i] / y[i]}')
  printf '%-6s %-6s %-10s' \
    "$(awk -v b="$(median <<<"$1")" -v m="$(median <<<"$2")" 'BEGIN {if (m == "n/a" || b == "n/a") print "n/a"; else printf "%.2f", b / m}')" \
    "$(median <<<"$ratios" | awk '{if ($1 == "n/a") print $1; else printf "%.2f", $1}')" \
    "$(tr ' ' '\n' <<<"$ratios" | grep . | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.2f-%.2f", a[int((NR+3)/4)], a[int((3*NR+3)/4)]; else print "n/a"}')"
}
printf '%-36s %-9s %-6s %-6s %-10s  %-6s %-6s %-10s  %s\n' measurement median_ms \
  x_bigs paired q1-q3 x_v7 paired q1-q3 rounds_ms
for k in "insert bigserial" "${gens[@]/#/insert }" "${gens[@]/#/select }"; do
  bigs=""
  [[ $k == insert* ]] && bigs=${res["insert bigserial"]}
  printf '%-36s %-9s %s  %s  %s\n' "$k" "$(median <<<"${res[$k]}")" "$(vs "$bigs" "${res[$k]}")" \
    "$(vs "${res["${k%% *} uuid_generate_v7"]}" "${res[$k]}")" "${res[$k]}"
done
