package integration_test

import (
	"testing"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestTroubleshootingIntegerColumn provokes docs/TROUBLESHOOTING.md's
// "integer out of range": a HUID DEFAULT on an integer column fails with
// 22003, and the fix the entry gives, ALTER … TYPE bigint, makes it work.
func TestTroubleshootingIntegerColumn(t *testing.T) {
	t.Parallel()
	const heading = "`integer out of range` on insert"
	mustSay(t, troubleshootingPage, pageEntry(t, troubleshootingPage, heading),
		"ERROR: integer out of range (SQLSTATE 22003)", "ALTER TABLE t ALTER COLUMN id TYPE bigint")
	conn := pgtest.Conn(t)
	execAll(t, conn, `CREATE TABLE t (id integer PRIMARY KEY DEFAULT huid_generate(), what text)`)
	_, err := conn.Exec(t.Context(), `INSERT INTO t (what) VALUES ('a')`)
	if sqlState(err) != "22003" || err.Error() != "ERROR: integer out of range (SQLSTATE 22003)" {
		t.Fatalf("insert into an integer HUID column: %v; want ERROR: integer out of range (SQLSTATE 22003)", err)
	}
	execAll(t, conn, `ALTER TABLE t ALTER COLUMN id TYPE bigint`, `INSERT INTO t (what) VALUES ('a')`)
}
