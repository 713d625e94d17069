package pgretry_test

import (
	"context"
	"fmt"

	"github.com/sortid/sortid/pgretry"
)

// dbError stands in for *pgconn.PgError or *pq.Error.
type dbError struct {
	Code, ConstraintName string
}

func (e *dbError) Error() string {
	return "duplicate key value violates unique constraint " + e.ConstraintName
}
func (e *dbError) SQLState() string { return e.Code }

func ExampleInsertOn() {
	taken := map[int]bool{7: true, 8: true} // IDs already in the table
	next := 6
	retries, err := pgretry.InsertOn(context.Background(), "events_pkey", 5, func(ctx context.Context) error {
		next++ // a fresh ID on every attempt, as DEFAULT huid_generate() makes
		if taken[next] {
			return &dbError{Code: "23505", ConstraintName: "events_pkey"}
		}
		taken[next] = true
		return nil
	})
	fmt.Println("inserted", next, "after", retries, "retries, err:", err)
	// Output: inserted 9 after 2 retries, err: <nil>
}

func ExampleIsUniqueViolation() {
	err := fmt.Errorf("insert event: %w", &dbError{Code: "23505", ConstraintName: "events_pkey"})
	fmt.Println(pgretry.IsUniqueViolation(err), pgretry.Constraint(err))
	// Output: true events_pkey
}
