package integration_test

import (
	"errors"
	"testing"

	"github.com/sortid/sortid/idtype"
)

// TestStdlibRejectsBadData is TestPgxRejectsBadData through database/sql.
func TestStdlibRejectsBadData(t *testing.T) {
	t.Parallel()
	for _, path := range sqlPaths() {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			db := path.db(t)
			for _, c := range badScans() {
				target := c.target()
				err := db.QueryRowContext(t.Context(), c.query).Scan(target)
				if !errors.Is(err, c.want) {
					t.Errorf("%s: Scan into %T = %v, want an error wrapping %v", c.name, target, err, c.want)
				}
			}
			neg := idtype.HUID(-1)
			for _, v := range []any{neg, &neg, idtype.NullHUID{V: neg, Valid: true}} {
				var got int64
				err := db.QueryRowContext(t.Context(), "SELECT $1::bigint", v).Scan(&got)
				if !errors.Is(err, idtype.ErrInvalidHUID) {
					t.Errorf("send %#v: got %d, %v; want an error wrapping ErrInvalidHUID", v, got, err)
				}
			}
		})
	}
}
