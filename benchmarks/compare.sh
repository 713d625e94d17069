#!/usr/bin/env bash
# Compares the ID generators of two checkouts of sortid side by side: the
# idtype generator benchmarks and this module's Generate benchmarks (with
# xid, uuid and the floor as peers), alternating old and new in every round
# so that both see the same machine load, then benchstat old vs new and
# integration/cmd/benchratio (ratios to uuid-v4, xid and the floor).
#
#   benchmarks/compare.sh OLD_CHECKOUT [rounds]     (default 6)
#
# OLD_CHECKOUT is a directory holding another version of the repository,
# e.g. `git archive main | tar -x -C /tmp/old`. The new side is this
# checkout. Environment: BENCHTIME (default 200ms), BENCH_IDTYPE and
# BENCH_MODULE (the -bench patterns), OUT (directory for raw output,
# default a new temporary directory).
set -euo pipefail
old=${1:?usage: $0 OLD_CHECKOUT [rounds]}
rounds=${2:-6}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 OLD_CHECKOUT [rounds]" >&2; exit 2; }
old=$(cd "$old" && pwd)
new=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d -t sortid-compare.XXXXXX)}
mkdir -p "$out"
bench_idtype=${BENCH_IDTYPE:-'^Benchmark(NewHUID|FillHUIDs|NewHUIDParallel|NewSCRU128|NewSCRU128Parallel|Floor|FloorMonotonic)$'}
bench_module=${BENCH_MODULE:-'^BenchmarkGenerate(Parallel)?$/^(huid|scru128|uuid-v4|xid|floor)$'}

echo "# old $old vs new $new, $(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # side dir
  (cd "$2/idtype" && go test -run '^$' -bench "$bench_idtype" -benchmem -count 1 -benchtime "${BENCHTIME:-200ms}") >>"$out/idtype-$1.txt"
  (cd "$2/benchmarks" && go test -run '^$' -bench "$bench_module" -benchmem -count 1 -benchtime "${BENCHTIME:-200ms}") >>"$out/module-$1.txt"
}
: >"$out/idtype-old.txt" >"$out/idtype-new.txt" >"$out/module-old.txt" >"$out/module-new.txt"
for ((r = 1; r <= rounds; r++)); do
  echo "round $r/$rounds" >&2
  if ((r % 2)); then run old "$old"; run new "$new"; else run new "$new"; run old "$old"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); raw output: $out"
cd "$new/benchmarks"
for part in idtype module; do
  echo
  echo "## $part"
  echo '```'
  go tool benchstat "old=$out/$part-old.txt" "new=$out/$part-new.txt"
  echo '```'
done
for side in old new; do
  for base in uuid-v4 xid floor; do
    echo
    echo "## $side: ratios to $base"
    go run ../integration/cmd/benchratio -baseline "$base" <"$out/module-$side.txt"
  done
done
