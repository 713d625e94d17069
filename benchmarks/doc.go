// Package benchmarks compares sortid's idtype against peer ID libraries:
// generation (one goroutine and RunParallel), parse and format, and
// database/sql Scan/Value, in its _test.go files, which only measure when
// run with -bench. It is its own module so that the peers never enter any
// other go.mod of the repository.
//
// integration/cmd/pgbench measures the PostgreSQL side (bulk loads, sizes,
// server-side DEFAULTs, time-window queries) with the integration tests'
// database harness, and integration/cmd/benchratio turns `go test -bench`
// output into medians, ranges and ratios; sql/run.sh measures the SQL
// generators, native and plain, beside pg_uuidv7 and bigserial in psql;
// run.sh runs the Go and pgbench parts; gorm.sh measures gormtype.AutoID.
// docs/BENCHMARKS.md shows the results with the commands that reproduce them.
package benchmarks
