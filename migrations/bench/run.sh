#!/usr/bin/env bash
# Benchmark of the sortid SQL functions against gen_random_uuid() and bigserial.
#
#   migrations/bench/run.sh [rounds]        (default 3 rounds, interleaved)
#
# Connection: the usual libpq variables (PGHOST, PGPORT, PGUSER, PGDATABASE); the
# script creates and drops a scratch database named sortid_bench_$$.
# For every measurement it prints each round's time and the median, in ms:
#   * SELECT count(f()) FROM generate_series(1, 1000000) per generator;
#   * SELECT count(DISTINCT f()) ... for huid_generate and a non-deduping copy;
#   * INSERT INTO t(x) SELECT g FROM generate_series(1, 1000000) g, t's PRIMARY KEY
#     filled by DEFAULT huid_generate(), gen_random_uuid(), bigserial,
#     scru128_generate(), and the non-deduping HUID copy (which may fail with a
#     duplicate key: reported as FAIL).
# bench_huid_plain() is huid_generate() without the per-session dedupe, and
# bench_scru128_noset() is scru128_generate() without its SET search_path clause;
# both exist only in the scratch database, to price those two design choices.
set -euo pipefail
rounds=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
db=sortid_bench_$$
psql_base=(psql -X -v ON_ERROR_STOP=1 -q)
"${psql_base[@]}" -d "${PGDATABASE:-postgres}" -c "CREATE DATABASE $db"
trap '"${psql_base[@]}" -d "${PGDATABASE:-postgres}" -c "DROP DATABASE IF EXISTS $db"' EXIT
P=("${psql_base[@]}" -d "$db")
"${P[@]}" -f "$here/../sql/0001_sortid.up.sql"
"${P[@]}" <<'SQL'
CREATE FUNCTION bench_huid_plain() RETURNS bigint LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN CASE
  WHEN pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint - 1767225600000
       BETWEEN 0 AND 4398046511103
  THEN (LEAST(pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint
              - 1767225600000, 4398046511103) << 21)
       | (('x' || pg_catalog.left(pg_catalog.gen_random_uuid()::pg_catalog.text, 6))::bit(24)::bigint & 2097151)
  ELSE sortid_raise('22008', 'clock', NULL::bigint)
END;
DO $$ BEGIN
  EXECUTE pg_catalog.format(
    'CREATE FUNCTION bench_scru128_noset() RETURNS uuid LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS %L',
    (SELECT prosrc FROM pg_catalog.pg_proc WHERE oid = 'scru128_generate()'::regprocedure));
END $$;
CREATE TABLE t_huid   (id bigint PRIMARY KEY DEFAULT huid_generate(), x int);
CREATE TABLE t_huidp  (id bigint PRIMARY KEY DEFAULT bench_huid_plain(), x int);
CREATE TABLE t_uuid   (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), x int);
CREATE TABLE t_serial (id bigserial PRIMARY KEY, x int);
CREATE TABLE t_scru   (id uuid PRIMARY KEY DEFAULT scru128_generate(), x int);
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
sel=(gen_random_uuid huid_generate bench_huid_plain scru128_generate bench_scru128_noset)
dist=(huid_generate bench_huid_plain)
tabs=(t_uuid t_huid t_huidp t_serial t_scru)
for ((r = 1; r <= rounds; r++)); do
  for f in "${sel[@]}"; do
    res["select $f"]+="$(timed "SELECT count($f()) FROM generate_series(1, 1000000)") "
  done
  for f in "${dist[@]}"; do
    res["distinct $f"]+="$(timed "SELECT count(DISTINCT $f()) FROM generate_series(1, 1000000)") "
  done
  for t in "${tabs[@]}"; do
    "${P[@]}" -c "TRUNCATE $t; CHECKPOINT"
    res["insert $t"]+="$(timed "INSERT INTO $t(x) SELECT g FROM generate_series(1, 1000000) g") "
  done
done
"${P[@]}" -At -c "SELECT 'duplicates in one SELECT of 1M bench_huid_plain(): ' || (1000000 - count(DISTINCT bench_huid_plain())) FROM generate_series(1, 1000000)" \
  -c "SELECT 'duplicates in one SELECT of 1M huid_generate(): ' || (1000000 - count(DISTINCT huid_generate())) FROM generate_series(1, 1000000)"

median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-32s %-10s %s\n' measurement median_ms rounds_ms
for k in "${!res[@]}"; do
  printf '%-32s %-10s %s\n' "$k" "$(median <<<"${res[$k]}")" "${res[$k]}"
done | sort
