package integration_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestScaleCollisionTable checks docs/SCALE.md's collision table against
// idtype's birthday-bound estimates.
func TestScaleCollisionTable(t *testing.T) {
	t.Parallel()
	checkCollisionTable(t, "docs/SCALE.md", 12)
}

// TestScaleReadOnlyTransaction: in read-only transactions, the only kind a
// hot standby runs, whether the session asks for each one or defaults to
// them, huid_generate() and scru128_generate() work and keep their session
// state from one transaction to the next (HUIDs distinct and in
// non-decreasing millisecond order, SCRU128s ascending, one session key),
// and a time window with huid_min/huid_max finds its rows; an INSERT or a
// nextval() there fails with SQLSTATE 25006, so the transactions really
// were read-only.
func TestScaleReadOnlyTransaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	setup := pgtest.Conn(t)
	execAll(t, setup,
		`CREATE TABLE scale_readonly (id huid PRIMARY KEY, n int NOT NULL)`,
		`INSERT INTO scale_readonly
		 SELECT huid_generate_at(timestamptz '2026-06-01 00:00:00+00' + g * interval '1 second'), g
		 FROM generate_series(1, 600) g`,
		`CREATE SEQUENCE scale_readonly_seq`,
	)
	from := time.Date(2026, 6, 1, 0, 1, 0, 0, time.UTC)
	to := from.Add(time.Minute)

	for _, tc := range []struct {
		name    string
		session string // run once on the connection
		begin   string // opens each transaction
	}{
		{name: "BEGIN READ ONLY", begin: "BEGIN READ ONLY"},
		{name: "default_transaction_read_only", session: "SET default_transaction_read_only = on", begin: "BEGIN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conn := pgtest.Conn(t)
			exec := func(sql string) {
				t.Helper()
				if _, err := conn.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			if tc.session != "" {
				exec(tc.session)
			}
			var huids []int64
			var scrus, keys []string
			for range 3 {
				exec(tc.begin)
				var readOnly string
				if err := conn.QueryRow(ctx, `SELECT current_setting('transaction_read_only')`).Scan(&readOnly); err != nil || readOnly != "on" {
					t.Fatalf("transaction_read_only = %q, %v; want on", readOnly, err)
				}
				rows, err := conn.Query(ctx, `SELECT huid_generate(), scru128_generate()::text FROM generate_series(1, 2000) g ORDER BY g`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var h int64
					var s string
					if err := rows.Scan(&h, &s); err != nil {
						t.Fatal(err)
					}
					huids, scrus = append(huids, h), append(scrus, s)
				}
				if err := rows.Err(); err != nil {
					t.Fatalf("generate in a read-only transaction: %v", err)
				}
				var n int
				if err := conn.QueryRow(ctx, `SELECT count(*) FROM scale_readonly WHERE id BETWEEN huid_min($1) AND huid_max($2)`,
					from, to).Scan(&n); err != nil || n != 61 {
					t.Fatalf("window holds %d rows, %v; want 61 (seconds 60 … 120)", n, err)
				}
				exec("COMMIT")
				var key string
				if err := conn.QueryRow(ctx, `SELECT current_setting('sortid.huid_key', true)`).Scan(&key); err != nil {
					t.Fatal(err)
				}
				keys = append(keys, key)
			}

			if keys[0] == "" || len(slices.Compact(slices.Clone(keys))) != 1 {
				t.Errorf("session keys after each read-only transaction %q: want one key, kept", keys)
			}
			for i := 1; i < len(huids); i++ {
				if huids[i]>>21 < huids[i-1]>>21 {
					t.Fatalf("HUID %d is in an earlier millisecond than its predecessor %d", huids[i], huids[i-1])
				}
				if scrus[i] <= scrus[i-1] {
					t.Fatalf("SCRU128 %s is not above its predecessor %s", scrus[i], scrus[i-1])
				}
			}
			if distinct := len(slices.Compact(slices.Sorted(slices.Values(huids)))); distinct != len(huids) {
				t.Errorf("%d HUIDs over 3 read-only transactions, %d distinct", len(huids), distinct)
			}

			for _, write := range []string{
				`INSERT INTO scale_readonly VALUES (huid_generate(), 0)`,
				`SELECT nextval('scale_readonly_seq')`,
			} {
				exec(tc.begin)
				_, err := conn.Exec(ctx, write)
				exec("ROLLBACK")
				if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "25006" {
					t.Errorf("%s in a read-only transaction: %v; want SQLSTATE 25006 (read_only_sql_transaction)", write, err)
				}
			}
		})
	}
}
