// Package benchmarks compares sortid's idtype against peer ID libraries:
// generation (one goroutine and RunParallel), parse and format, and
// database/sql Scan/Value, in its _test.go files, which only measure when
// run with -bench. It is its own module so that the peers never enter any
// other go.mod of the repository.
//
// integration/cmd/pgbench measures the PostgreSQL side (bulk loads, sizes,
// server-side DEFAULTs, time-window queries) with the integration tests'
// database harness, and integration/cmd/benchratio turns `go test -bench`
// output into medians, ranges and ratios; sql/run.sh prices the SQL
// generators and unshipped designs in psql; run.sh runs the Go and pgbench
// parts, and docs/BENCHMARKS.md records runs.
package benchmarks
