#!/usr/bin/env bash
# Measures gormtype.AutoID against caller-set int64 keys on plain GORM, in
# paired rounds: every round runs each contender once, each in its own
# process, in an order rotated from round to round, so that all see the
# same machine load; then integration/cmd/benchratio prints the medians and
# their ratio to int64=preset.
#
#   benchmarks/gorm.sh [rounds]     (default 12)
#
# Contenders (integration/gorm_bench_test.go): CreateInBatches of 100 000
# rows in batches of 1000, in GORM's default transaction and with
# SkipDefaultTransaction, with AutoID's HUIDs, caller-set int64 keys 1..n,
# and caller-set HUID values in an int64 field (the cost of the key values
# themselves, without AutoID); single-row Create in GORM's default
# transaction, alone and in gormtype.Transaction (its own transaction),
# 2000 rows a run. The server is SORTID_TEST_DATABASE (see CONTRIBUTING.md).
# OUT names the raw output file (default a new temporary file).
set -euo pipefail
rounds=${1:-12}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [rounds]" >&2; exit 2; }
cd "$(dirname "$0")/../integration"
out=${OUT:-$(mktemp -t sortid-gorm.XXXXXX)}
bin=$(mktemp -t sortid-integ.XXXXXX)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" .
batch=(tx=default/HUID=auto$ tx=default/int64=preset$ tx=default/int64=preset-huid-values$
  tx=skip/HUID=auto$ tx=skip/int64=preset$ tx=skip/int64=preset-huid-values$)
one=(HUID=auto$ HUID=auto-transaction$ int64=preset$)
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)" >"$out"
for ((r = 0; r < rounds; r++)); do
  echo "round $((r + 1))/$rounds" >&2
  for k in "${!batch[@]}"; do
    "$bin" -test.run '^$' -test.bench "GormCreateInBatches/${batch[$(((k + r) % ${#batch[@]}))]}" \
      -test.benchtime 2x -test.benchmem | grep ^Benchmark >>"$out"
  done
  for k in "${!one[@]}"; do
    "$bin" -test.run '^$' -test.bench "GormCreateOne/${one[$(((k + r) % ${#one[@]}))]}" \
      -test.benchtime 2000x -test.benchmem | grep ^Benchmark >>"$out"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
echo "raw output: $out" >&2
go run ./cmd/benchratio -baseline int64=preset <"$out"
