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
			var all []generated
			for rows.Next() {
				var g generated
				if err := rows.Scan(&g.h, &g.hTime, &g.s, &g.sTime, &g.b, &g.bTime); err != nil {
					t.Fatalf("scan: %v", err)
				}
				all = append(all, g)
			}
			if err := rows.Err(); err != nil || len(all) != 200 {
				t.Fatalf("rows: %d, %v", len(all), err)
			}
			after := time.Now()
			for _, g := range all {
				g.before, g.after = before, after
				g.check(t)
			}
		})
	}
}
