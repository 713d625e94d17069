package integration_test

import (
	"testing"
	"time"
)

// TestStdlibScansGeneratedIDs is TestPgxScansGeneratedIDs through database/sql.
func TestStdlibScansGeneratedIDs(t *testing.T) {
	t.Parallel()
	for _, path := range sqlPaths() {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			db := path.db(t)
			before := time.Now()
			rows, err := db.QueryContext(t.Context(), generatedQuery)
			if err != nil {
				t.Fatalf("query: %v", err)
			}
			defer rows.Close()
			all := scanGenerated(t, rows)
			after := time.Now()
			for _, g := range all {
				g.before, g.after = before, after
				g.check(t)
			}
		})
	}
}
