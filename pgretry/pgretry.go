package pgretry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
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

// citusInternalError is the SQLSTATE (XX000, internal_error) under which
// Citus passes on a unique violation that a shard raised during a COPY or
// an INSERT ... SELECT through the coordinator.
const citusInternalError = "XX000"

// uniqueMessage starts the message of every unique violation, also the
// ones Citus passes on, with lc_messages in English.
const uniqueMessage = `duplicate key value violates unique constraint "`

// IsUniqueViolation reports whether err is, or wraps, a database error with
// SQLSTATE 23505 (unique_violation), or Citus's form of one: SQLSTATE XX000
// with PostgreSQL's message for a unique violation (recognised only in
// English, as lc_messages = 'C' or 'en_*' writes it).
func IsUniqueViolation(err error) bool {
	switch SQLState(err) {
	case UniqueViolation:
		return true
	case citusInternalError:
		return strings.HasPrefix(errorField(err, "Message"), uniqueMessage)
	}
	return false
}

// Constraint returns the name of the constraint a database error in err's
// tree names, or "". It reads the exported string field ConstraintName
// (*pgconn.PgError) or Constraint (*pq.Error) of the error that has the
// SQLState() method; where that is empty, as in the unique violations that
// Citus passes on from a shard, it is the name the message quotes, the
// shard's index such as "events_pkey_102009".
func Constraint(err error) string {
	if name := errorField(err, "ConstraintName", "Constraint"); name != "" {
		return name
	}
	msg := errorField(err, "Message")
	if !strings.HasPrefix(msg, uniqueMessage) || !strings.HasSuffix(msg, `"`) {
		return ""
	}
	return msg[len(uniqueMessage) : len(msg)-1]
}

// isShardOf reports whether the constraint an error names is constraint
// itself or, on Citus, its index on one shard: constraint_N for the shard
// N, where the error names no table or the shard table_N.
func isShardOf(err error, constraint string) bool {
	name := Constraint(err)
	if name == constraint {
		return true
	}
	shard, ok := strings.CutPrefix(name, constraint+"_")
	if !ok || shard == "" || strings.Trim(shard, "0123456789") != "" {
		return false
	}
	table := errorField(err, "TableName", "Table")
	return table == "" || strings.HasSuffix(table, "_"+shard)
}

// errorField returns the first of the named exported string fields of the
// error in err's tree that has the SQLState() method, or "".
func errorField(err error, names ...string) string {
	var e sqlStater
	if !errors.As(err, &e) {
		return ""
	}
	v := reflect.Indirect(reflect.ValueOf(e))
	if v.Kind() != reflect.Struct {
		return ""
	}
	for _, name := range names {
		if f := v.FieldByName(name); f.IsValid() && f.Kind() == reflect.String {
			return f.String()
		}
	}
	return ""
}

// KeyColumns returns the key of a unique violation in err's tree as
// PostgreSQL names it in the error's detail, the columns (or expressions)
// joined by ", ", e.g. "id" from "Key (id)=(42) already exists.", or "" when
// the detail names none. It reads the exported string field Detail, which
// *pgconn.PgError and *pq.Error both have.
//
// The key is the text from the detail's first "(" to its first ")=(". That
// part is not translated: with lc_messages in another language only the
// words around it change (German: Schlüssel »(id)=(42)« existiert bereits).
// PostgreSQL leaves the detail out when the role may not read the key's
// columns or the table has row-level security; KeyColumns then returns "".
func KeyColumns(err error) string {
	detail := errorField(err, "Detail")
	start := strings.IndexByte(detail, '(')
	end := strings.Index(detail, ")=(")
	if start < 0 || end <= start {
		return ""
	}
	return detail[start+1 : end]
}

// KeyValues returns the values of the key of a unique violation in err's
// tree as PostgreSQL writes them in the error's detail, joined by ", ",
// e.g. "42" from "Key (id)=(42) already exists.", or "" when the detail
// names none (see [KeyColumns]).
func KeyValues(err error) string {
	detail := errorField(err, "Detail")
	start := strings.Index(detail, ")=(")
	end := strings.LastIndexByte(detail, ')')
	if start < 0 || end <= start+2 {
		return ""
	}
	return detail[start+3 : end]
}

// IsUniqueViolationOn reports whether err is a unique violation of the
// named constraint, such as "events_pkey". On Citus a shard's copy of the
// constraint counts too: events_pkey_102009, when the error names no table
// or the shard events_102009. It reports false when constraint is "" or the
// error does not name its constraint.
func IsUniqueViolationOn(err error, constraint string) bool {
	return constraint != "" && IsUniqueViolation(err) && isShardOf(err, constraint)
}

// IsUniqueViolationOfKey reports whether err is a unique violation of the
// key made of columns, in the key's order and spelled as PostgreSQL prints
// them (an identifier that needs quotes is quoted), as [KeyColumns] reads
// it. It reports false when columns is empty or the error names no key.
func IsUniqueViolationOfKey(err error, columns ...string) bool {
	return len(columns) > 0 && IsUniqueViolation(err) && KeyColumns(err) == strings.Join(columns, ", ")
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
// is returned at once. On a partitioned table PostgreSQL names the
// partition's index, not the parent's constraint: use [InsertOnKey] there.
func InsertOn(ctx context.Context, constraint string, attempts int, insert func(ctx context.Context) error) (retries int, err error) {
	return retry(ctx, attempts, insert, func(err error) bool {
		return IsUniqueViolationOn(err, constraint) || errors.Is(err, ErrNoRowInserted)
	})
}

// InsertOnKey is [Insert] retrying only unique violations of the key made
// of columns (see [IsUniqueViolationOfKey]), and [ErrNoRowInserted]; any
// other violation is returned at once. It is InsertOn for a partitioned
// table: PostgreSQL reports a collision there under the partition's own
// index, events_2026_12_pkey for a partition events_2026_12 of events, not
// under the parent's events_pkey, but its detail names the key's columns on
// every partition, whatever the partitions and their indexes are called:
//
//	retries, err := pgretry.InsertOnKey(ctx, []string{"id"}, 5, insert)
//
// The rule reads the error alone, without querying the database, so it
// cannot tell tables apart: a violation of the same columns in another
// table that the statement writes (from a trigger, say) is retried too.
// Where PostgreSQL sends no detail (see [KeyColumns]) nothing is retried;
// [Insert] retries every unique violation.
func InsertOnKey(ctx context.Context, columns []string, attempts int, insert func(ctx context.Context) error) (retries int, err error) {
	return retry(ctx, attempts, insert, func(err error) bool {
		return IsUniqueViolationOfKey(err, columns...) || errors.Is(err, ErrNoRowInserted)
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
