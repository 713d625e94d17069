package pgretry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// UniqueViolation is the SQLSTATE PostgreSQL reports when an insert or
// update would duplicate a unique key.
const UniqueViolation = "23505"

// ErrRetriesExhausted is returned, wrapping the last attempt's error, when
// every attempt of [Insert] or [InsertOn] hit a unique violation.
var ErrRetriesExhausted = errors.New("pgretry: every attempt hit a unique violation")

// ErrNoRowInserted is for insert functions using INSERT ... ON CONFLICT DO
// NOTHING RETURNING: returned (or wrapped) when no row came back, it makes
// [Insert] and [InsertOn] try again, as a unique violation does.
var ErrNoRowInserted = errors.New("pgretry: ON CONFLICT DO NOTHING inserted no row")

// ErrInvalidAttempts is returned by [Insert] and [InsertOn] when attempts is
// less than 1.
var ErrInvalidAttempts = errors.New("pgretry: attempts must be at least 1")

// sqlStater is the method *pgconn.PgError and *pq.Error share.
type sqlStater interface {
	SQLState() string
}

// SQLState returns the SQLSTATE of the first error in err's tree that has a
// SQLState() string method, and "" when there is none.
func SQLState(err error) string {
	var e sqlStater
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return ""
}

// IsUniqueViolation reports whether err is, or wraps, a database error with
// SQLSTATE 23505 (unique_violation).
func IsUniqueViolation(err error) bool {
	return SQLState(err) == UniqueViolation
}

// Constraint returns the name of the constraint a database error in err's
// tree names, or "". It reads the exported string field ConstraintName
// (*pgconn.PgError) or Constraint (*pq.Error) of the error that has the
// SQLState() method.
func Constraint(err error) string {
	var e sqlStater
	if !errors.As(err, &e) {
		return ""
	}
	v := reflect.Indirect(reflect.ValueOf(e))
	if v.Kind() != reflect.Struct {
		return ""
	}
	for _, name := range []string{"ConstraintName", "Constraint"} {
		if f := v.FieldByName(name); f.IsValid() && f.Kind() == reflect.String {
			return f.String()
		}
	}
	return ""
}

// IsUniqueViolationOn reports whether err is a unique violation of the
// named constraint, such as "events_pkey". It reports false when constraint
// is "" or the error does not name its constraint.
func IsUniqueViolationOn(err error, constraint string) bool {
	return constraint != "" && IsUniqueViolation(err) && Constraint(err) == constraint
}

// Insert calls insert up to attempts times, until it returns nil or an error
// that is neither a unique violation nor [ErrNoRowInserted]. insert must make
// a fresh ID on every call. It returns the number of repeated calls, and
// either insert's last error, ctx's error when ctx ends between attempts,
// [ErrInvalidAttempts], or an error wrapping both [ErrRetriesExhausted] and
// the last unique violation.
func Insert(ctx context.Context, attempts int, insert func(ctx context.Context) error) (retries int, err error) {
	return retry(ctx, attempts, insert, func(err error) bool {
		return IsUniqueViolation(err) || errors.Is(err, ErrNoRowInserted)
	})
}

// InsertOn is [Insert] retrying only unique violations of the named
// constraint (and [ErrNoRowInserted]); a violation of any other constraint
// is returned at once.
func InsertOn(ctx context.Context, constraint string, attempts int, insert func(ctx context.Context) error) (retries int, err error) {
	return retry(ctx, attempts, insert, func(err error) bool {
		return IsUniqueViolationOn(err, constraint) || errors.Is(err, ErrNoRowInserted)
	})
}

// retry is Insert with the test for a retryable error as a parameter.
func retry(ctx context.Context, attempts int, insert func(ctx context.Context) error, retryable func(error) bool) (int, error) {
	if attempts < 1 {
		return 0, fmt.Errorf("%w: got %d", ErrInvalidAttempts, attempts)
	}
	var err error
	for n := range attempts {
		if n > 0 {
			if cerr := ctx.Err(); cerr != nil {
				return n - 1, fmt.Errorf("pgretry: after %d attempts: %w (last error: %w)", n, cerr, err)
			}
		}
		err = insert(ctx)
		if err == nil || !retryable(err) {
			return n, err
		}
	}
	return attempts - 1, fmt.Errorf("%w (%d attempts): %w", ErrRetriesExhausted, attempts, err)
}
