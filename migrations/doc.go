// Package migrations ships the PostgreSQL side of sortid: SQL functions that generate
// and inspect HUIDs (bigint) and SCRU128 IDs (uuid or bytea) inside the database, as
// plain SQL migrations.
//
// The canonical files are sql/NNNN_name.up.sql and sql/NNNN_name.down.sql in the
// golang-migrate layout; they also run unchanged with `psql -v ON_ERROR_STOP=1 -f`.
// The goose directory holds the same migrations converted for goose, written by
// `go test ./migrations -update`; without -update that test fails when the copy drifts.
//
// The SQL needs PostgreSQL 14 or later and no extension; run by a superuser where
// sortid's native library (pgext/) is installed, up defines the generators in C
// instead, unless the setting sortid.native is off. Objects are created in the
// first schema of the search_path at migration time; the up migration refuses with
// SQLSTATE 22023 when that is pg_catalog or pg_temp, when the search_path names
// pg_catalog (then searched after the schemas before it, which could capture the
// built-ins the functions use), when a temporary type shadows a type name, or when
// a function or domain came to use an operator, function or type from outside
// pg_catalog and its own schema. The up
// migration can be run twice; the down migration removes everything the up migration
// created and fails, rather than cascade, while a table still uses one of the objects.
//
// Three ways to install:
//
//   - Apply(ctx, db) runs every up migration in one transaction (idempotent, no version
//     table).
//   - golang-migrate: source iofs.New(migrations.MigrateFS(), "."), and give sortid its
//     own version table so it does not clash with your application's migrations, e.g.
//     database URL parameter x-migrations-table=sortid_schema_migrations (or
//     postgres.Config{MigrationsTable: "sortid_schema_migrations"}).
//   - goose: goose.NewProvider(goose.DialectPostgres, db, migrations.GooseFS(),
//     goose.WithTableName("sortid_goose_db_version")) or, with the global API,
//     goose.SetTableName("sortid_goose_db_version") and goose.SetBaseFS(migrations.GooseFS()).
//
// Up and Down return the SQL text for other tools.
//
// Generator state: huid_generate() is one generator per install, whose state is the
// sequence sortid_huid_counter (its START value is the key); a role other than the one
// that ran the migration needs USAGE on it to make keys. In a read-only transaction
// huid_generate() keeps per-session state in the custom settings
// sortid.huid_state and sortid.huid_key, as scru128_generate() and scru128_generate_at()
// always do in sortid.scru128_state and sortid.scru128_at_state; see the comments in
// the up migration for the exact generator rules.
package migrations
