package integration_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// badInputs are calls that must raise, with the SQLSTATE and a fragment of
// the message naming the bad value.
var badInputs = []struct {
	call, state, names string
}{
	{"huid_timestamp(-1)", "22003", "-1"},
	{"huid_min('2025-12-31 23:59:59.999999+00')", "22008", "2025-12-31"},
	{"huid_max('2165-05-15 07:35:11.104+00')", "22008", "2165-05-15"},
	{"huid_generate_at('2025-12-31 23:59:59.999+00')", "22008", "2025-12-31"},
	{"huid_generate_at('infinity')", "22008", "infinity"},
	{"scru128_min('2019-12-31 23:59:59.999999+00')", "22008", "2019-12-31"},
	{"scru128_max('2577-06-22 06:20:44.416+00')", "22008", "2577-06-22"},
	{"scru128_min_bytea('-infinity')", "22008", "infinity"},
	{"scru128_generate_at('2020-01-01 00:00:00.000999+00')", "22008", "2020-01-01"},
	{"scru128_generate_at('2577-06-22 06:20:44.415+00')", "22008", "2577-06-22"},
	{"scru128_generate_at_bytea('infinity')", "22008", "infinity"},
	{"scru128_from_text('nope')", "22P02", "nope"},
	{"scru128_from_text('80000000000000000000000000')", "22P02", "80000000000000000000000000"},
	{"scru128_from_text('7VVVVVVVVVVVVVVVVVVVVVVVVW')", "22P02", "7VVVVVVVVVVVVVVVVVVVVVVVVW"},
	{"scru128_from_text('00PP2Q3JHOU5BOG3RB2PN3AFH')", "22P02", "00PP2Q3JHOU5BOG3RB2PN3AFH"},
	{"scru128_from_text(' 00PP2Q3JHOU5BOG3RB2PN3AFH8')", "22P02", "00PP2Q3JHOU5BOG3RB2PN3AFH8"},
	{"scru128_from_text_bytea('')", "22P02", "''"},
	{"scru128_timestamp('\\x00'::bytea)", "22023", "length 1"},
	{"scru128_to_text(decode(repeat('00', 17), 'hex'))", "22023", "length 17"},
	{"(-1)::huid", "23514", "huid"},
}

// goodEdges are the window edges, which must not raise.
var goodEdges = []string{
	"huid_min('2026-01-01 00:00:00+00')",
	"huid_max('2165-05-15 07:35:11.103999+00')",
	"scru128_min('2020-01-01 00:00:00+00')",
	"scru128_max('2577-06-22 06:20:44.415999+00')",
	"scru128_generate_at('2020-01-01 00:00:00.001+00')",
	"scru128_generate_at_bytea('2577-06-22 06:20:44.414999+00')",
	"scru128_from_text('7VVVVVVVVVVVVVVVVVVVVVVVVV')",
	"scru128_from_text('0000000000000000000000000v')",
	"huid_timestamp(0)",
}

// TestSQLBadInputRaises: every bad input raises its SQLSTATE with a message
// naming the input; the window edges do not.
func TestSQLBadInputRaises(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	for _, tc := range badInputs {
		err := selectOne(t.Context(), conn, tc.call)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != tc.state || !strings.Contains(pgErr.Message, tc.names) {
			t.Errorf("SELECT %s: err %v, want SQLSTATE %s naming %q", tc.call, err, tc.state, tc.names)
		}
	}
	for _, call := range goodEdges {
		if err := selectOne(t.Context(), conn, call); err != nil {
			t.Errorf("SELECT %s: %v", call, err)
		}
	}
}

func selectOne(ctx context.Context, conn *pgx.Conn, expr string) error {
	var v any
	return conn.QueryRow(ctx, "SELECT "+expr).Scan(&v)
}

// hijackDDL creates functions and an operator in schema evil that shadow
// what the sortid functions call, if they resolved names at run time.
var hijackDDL = []string{
	`CREATE FUNCTION evil.gen_random_uuid() RETURNS uuid LANGUAGE sql AS $$SELECT '00000000-0000-4000-8000-000000000000'::uuid$$`,
	`CREATE FUNCTION evil.clock_timestamp() RETURNS timestamptz LANGUAGE sql AS $$SELECT '2030-01-01'::timestamptz$$`,
	`CREATE FUNCTION evil.date_part(text, timestamptz) RETURNS double precision LANGUAGE sql AS $$SELECT 0::float8$$`,
	`CREATE FUNCTION evil.floor(double precision) RETURNS double precision LANGUAGE sql AS $$SELECT 0::float8$$`,
	`CREATE FUNCTION evil.floor(numeric) RETURNS numeric LANGUAGE sql AS $$SELECT 0::numeric$$`,
	`CREATE FUNCTION evil.set_config(text, text, boolean) RETURNS text LANGUAGE sql AS $$SELECT '1'$$`,
	`CREATE FUNCTION evil.current_setting(text, boolean) RETURNS text LANGUAGE sql AS $$SELECT '1'$$`,
	`CREATE FUNCTION evil.lpad(text, int, text) RETURNS text LANGUAGE sql AS $$SELECT 'evil'$$`,
	`CREATE FUNCTION evil.substr(text, int, int) RETURNS text LANGUAGE sql AS $$SELECT '0'$$`,
	`CREATE FUNCTION evil.split_part(text, text, int) RETURNS text LANGUAGE sql AS $$SELECT '1'$$`,
	`CREATE FUNCTION evil.to_hex(bigint) RETURNS text LANGUAGE sql AS $$SELECT 'evil'$$`,
	`CREATE FUNCTION evil.string_agg(text, text) RETURNS text LANGUAGE sql AS $$SELECT 'evil'$$`,
	`CREATE FUNCTION evil.hashint8extended(bigint, bigint) RETURNS bigint LANGUAGE sql AS $$SELECT 0::bigint$$`,
	`CREATE FUNCTION evil.int8pl_evil(bigint, bigint) RETURNS bigint LANGUAGE sql AS $$SELECT 42::bigint$$`,
	`CREATE FUNCTION evil.int8_int4_evil(bigint, int) RETURNS bigint LANGUAGE sql AS $$SELECT 42::bigint$$`,
	`CREATE OPERATOR evil.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8pl_evil)`,
	`CREATE OPERATOR evil.# (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8pl_evil)`,
	`CREATE OPERATOR evil.& (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8pl_evil)`,
	`CREATE OPERATOR evil.| (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.int8pl_evil)`,
	`CREATE OPERATOR evil.>> (LEFTARG = bigint, RIGHTARG = int, FUNCTION = evil.int8_int4_evil)`,
	`CREATE OPERATOR evil.<< (LEFTARG = bigint, RIGHTARG = int, FUNCTION = evil.int8_int4_evil)`,
	`CREATE FUNCTION evil.sortid_require(boolean, text, text, anycompatible) RETURNS boolean LANGUAGE sql AS $$SELECT true$$`,
	`CREATE FUNCTION evil.huid_min(timestamptz) RETURNS bigint LANGUAGE sql AS $$SELECT 42::bigint$$`,
}

// hijackProbe computes deterministic results of the sortid functions, checks
// of the generators, and whether bad input still raises.
const hijackProbe = `SELECT concat_ws(' | ',
	public.huid_min('2026-02-01 12:00:00.123456+00'), public.huid_max('2026-02-01+00'),
	public.huid_timestamp(123456789012345), public.sortid_huid_mix(123456789012345, 42),
	public.scru128_min('2030-01-01+00'), public.scru128_max('2030-01-01+00'),
	public.scru128_to_text('017fa1de-54ba-4a5b-bf6a-0c9cf97d98d0'::uuid),
	public.scru128_from_text('00PP2Q3JHOU5BOG3RB2PN3AFH8'),
	public.scru128_timestamp('017fa1de-54ba-4a5b-bf6a-0c9cf97d98d0'::uuid),
	public.scru128_timestamp(public.scru128_generate_at('2030-01-01 00:00:00.123456+00')),
	public.scru128_timestamp(public.scru128_generate_at_bytea('2030-01-01 00:00:00.123456+00')),
	public.scru128_generate_at('2030-01-01+00') OPERATOR(pg_catalog.<) public.scru128_generate_at('2030-01-01+00'),
	abs(extract(epoch FROM pg_catalog.clock_timestamp() - public.huid_timestamp(public.huid_generate()))) < 1,
	abs(extract(epoch FROM pg_catalog.clock_timestamp() - public.scru128_timestamp(public.scru128_generate()))) < 1,
	public.scru128_generate() OPERATOR(pg_catalog.<) public.scru128_generate(),
	public.huid_generate() OPERATOR(pg_catalog.<>) public.huid_generate())`

// TestSQLSearchPathHijack: functions and an operator shadowing the built-ins
// (and sortid_require) in a schema ahead of pg_catalog / public in the
// search_path change no result of the sortid functions, and bad input still
// raises.
func TestSQLSearchPathHijack(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := pgtest.Conn(t)
	var want string
	if err := conn.QueryRow(ctx, hijackProbe).Scan(&want); err != nil {
		t.Fatalf("probe: %v", err)
	}
	// The schema is database-wide, but only this connection's search_path names it.
	if _, err := conn.Exec(ctx, "CREATE SCHEMA evil"); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "DROP SCHEMA evil CASCADE") })
	for _, ddl := range hijackDDL {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	// Each path comes with a query showing the shadowing is in effect (42).
	// pg_catalog is searched first unless the path names it later.
	for _, tc := range []struct{ path, shadowed string }{
		{"evil, public", "huid_min('2026-02-01+00')"},
		{"evil, pg_catalog, public", "1::bigint + 1::bigint"},
	} {
		path := tc.path
		if _, err := conn.Exec(ctx, "SET search_path = "+path); err != nil {
			t.Fatalf("set search_path: %v", err)
		}
		var shadow int64
		if err := conn.QueryRow(ctx, "SELECT "+tc.shadowed).Scan(&shadow); err != nil || shadow != 42 {
			t.Fatalf("search_path %s: shadowing not in effect (%s = %d, %v)", path, tc.shadowed, shadow, err)
		}
		var got string
		if err := conn.QueryRow(ctx, hijackProbe).Scan(&got); err != nil || got != want {
			t.Errorf("search_path %s: probe = %q (%v), want %q", path, got, err, want)
		}
		err := selectOne(ctx, conn, "public.huid_timestamp(-1)")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "22003" {
			t.Errorf("search_path %s: huid_timestamp(-1) err %v, want SQLSTATE 22003", path, err)
		}
	}
}
