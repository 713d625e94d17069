package pgretry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sortid/sortid/pgretry"
)

// pgxError mimics *pgconn.PgError: SQLState() and a ConstraintName field.
type pgxError struct {
	Code           string
	ConstraintName string
}

func (e *pgxError) Error() string    { return "pgx: SQLSTATE " + e.Code + " on " + e.ConstraintName }
func (e *pgxError) SQLState() string { return e.Code }

// pqError mimics *pq.Error: SQLState() and a Constraint field.
type pqError struct {
	Code       string
	Constraint string
}

func (e *pqError) Error() string    { return "pq: SQLSTATE " + e.Code + " on " + e.Constraint }
func (e *pqError) SQLState() string { return e.Code }

// bareError has a SQLState but no constraint field.
type bareError string

func (e bareError) Error() string    { return "bare " + string(e) }
func (e bareError) SQLState() string { return string(e) }

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		state      string
		unique     bool
		constraint string
	}{
		{"nil", nil, "", false, ""},
		{"plain", errors.New("boom"), "", false, ""},
		{"pgx unique", &pgxError{"23505", "t_pkey"}, "23505", true, "t_pkey"},
		{"pgx wrapped", fmt.Errorf("insert: %w", &pgxError{"23505", "t_pkey"}), "23505", true, "t_pkey"},
		{"pgx check", &pgxError{"23514", "t_check"}, "23514", false, "t_check"},
		{"pq unique", &pqError{"23505", "t_email_key"}, "23505", true, "t_email_key"},
		{"pq joined", errors.Join(errors.New("x"), &pqError{"23505", "k"}), "23505", true, "k"},
		{"bare unique", bareError("23505"), "23505", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pgretry.SQLState(tt.err); got != tt.state {
				t.Errorf("SQLState = %q, want %q", got, tt.state)
			}
			if got := pgretry.IsUniqueViolation(tt.err); got != tt.unique {
				t.Errorf("IsUniqueViolation = %v, want %v", got, tt.unique)
			}
			if got := pgretry.Constraint(tt.err); got != tt.constraint {
				t.Errorf("Constraint = %q, want %q", got, tt.constraint)
			}
			wantOn := tt.unique && tt.constraint != ""
			if got := pgretry.IsUniqueViolationOn(tt.err, tt.constraint); got != wantOn {
				t.Errorf("IsUniqueViolationOn(%q) = %v, want %v", tt.constraint, got, wantOn)
			}
			if pgretry.IsUniqueViolationOn(tt.err, "other") {
				t.Errorf("IsUniqueViolationOn(other) = true")
			}
		})
	}
}

// script returns an insert func that returns errs[i] on call i and nil after.
func script(errs ...error) (insert func(context.Context) error, calls *int) {
	calls = new(int)
	return func(context.Context) error {
		i := *calls
		*calls++
		if i < len(errs) {
			return errs[i]
		}
		return nil
	}, calls
}

func TestInsert(t *testing.T) {
	t.Parallel()
	dup := &pgxError{"23505", "t_pkey"}
	other := &pgxError{"23505", "t_email_key"}
	fatal := errors.New("connection reset")
	tests := []struct {
		name        string
		on          string // constraint for InsertOn; "" uses Insert
		attempts    int
		errs        []error
		wantCalls   int
		wantRetries int
		wantIs      []error // errors.Is targets the result must match
		wantNil     bool
	}{
		{"first try", "", 3, nil, 1, 0, nil, true},
		{"two collisions", "", 3, []error{dup, dup}, 3, 2, nil, true},
		{"no row inserted", "", 3, []error{fmt.Errorf("q: %w", pgretry.ErrNoRowInserted)}, 2, 1, nil, true},
		{"exhausted", "", 3, []error{dup, dup, dup, dup}, 3, 2, []error{pgretry.ErrRetriesExhausted}, false},
		{"other error stops", "", 3, []error{dup, fatal}, 2, 1, []error{fatal}, false},
		{"on: matching", "t_pkey", 2, []error{dup}, 2, 1, nil, true},
		{"on: other constraint stops", "t_pkey", 5, []error{other}, 1, 0, nil, false},
		{"insert: any constraint", "", 5, []error{other}, 2, 1, nil, true},
		{"one attempt", "", 1, []error{dup}, 1, 0, []error{pgretry.ErrRetriesExhausted}, false},
		{"zero attempts", "", 0, nil, 0, 0, []error{pgretry.ErrInvalidAttempts}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			insert, calls := script(tt.errs...)
			var retries int
			var err error
			if tt.on == "" {
				retries, err = pgretry.Insert(t.Context(), tt.attempts, insert)
			} else {
				retries, err = pgretry.InsertOn(t.Context(), tt.on, tt.attempts, insert)
			}
			if (err == nil) != tt.wantNil {
				t.Fatalf("err = %v, want nil: %v", err, tt.wantNil)
			}
			for _, target := range tt.wantIs {
				if !errors.Is(err, target) {
					t.Errorf("err = %v, want errors.Is %v", err, target)
				}
			}
			if *calls != tt.wantCalls || retries != tt.wantRetries {
				t.Errorf("calls %d, retries %d; want %d, %d", *calls, retries, tt.wantCalls, tt.wantRetries)
			}
		})
	}
}

func TestInsertExhaustedWrapsLastError(t *testing.T) {
	t.Parallel()
	last := &pqError{"23505", "t_pkey"}
	insert, _ := script(&pqError{"23505", "t_pkey"}, last)
	_, err := pgretry.Insert(t.Context(), 2, insert)
	var got *pqError
	if !errors.As(err, &got) || got != last {
		t.Errorf("errors.As found %p, want the last error %p (err %v)", got, last, err)
	}
	if !pgretry.IsUniqueViolation(err) {
		t.Errorf("IsUniqueViolation(%v) = false", err)
	}
}

func TestInsertStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	retries, err := pgretry.Insert(ctx, 10, func(context.Context) error {
		calls++
		cancel()
		return &pgxError{"23505", "t_pkey"}
	})
	if calls != 1 || retries != 0 {
		t.Errorf("calls %d, retries %d; want 1, 0", calls, retries)
	}
	if !errors.Is(err, context.Canceled) || !pgretry.IsUniqueViolation(err) {
		t.Errorf("err = %v, want context.Canceled wrapping the unique violation", err)
	}
}

// detailError mimics *pgconn.PgError and *pq.Error with a Detail field.
type detailError struct {
	Code, ConstraintName, Detail string
}

func (e *detailError) Error() string    { return "SQLSTATE " + e.Code + ": " + e.Detail }
func (e *detailError) SQLState() string { return e.Code }

// keyDetails holds details of unique violations, as PostgreSQL words them,
// with the key KeyColumns must read from them.
var keyDetails = []struct{ detail, key, values string }{
	{"Key (id)=(60661340544791426) already exists.", "id", "60661340544791426"},
	{"Key (id, created_at)=(1, 2026-12-01 00:00:00+00) already exists.", "id, created_at", "1, 2026-12-01 00:00:00+00"},
	{`Key ("Id", b)=(1, x) already exists.`, `"Id", b`, "1, x"},
	{"Key (lower(email))=(a@b.c) already exists.", "lower(email)", "a@b.c"},
	{"Key (id)=((1)=(2)) already exists.", "id", "(1)=(2)"},  // a value that looks like a key
	{"Schlüssel »(id)=(42)« existiert bereits.", "id", "42"}, // lc_messages = 'de_DE'
	{"(id)=(42) 키가 이미 있습니다.", "id", "42"},                    // Korean puts the key first
	{"", "", ""},                             // no detail: no SELECT right, or row-level security
	{"Failing row contains (1, x).", "", ""}, // a check violation's detail
	{"Key )=( odd", "", ""},                  // ")=(" before any "("
}

func TestKeyColumnsAndValues(t *testing.T) {
	t.Parallel()
	for _, tt := range keyDetails {
		err := fmt.Errorf("insert: %w", &detailError{"23505", "events_2026_12_pkey", tt.detail})
		if got := pgretry.KeyColumns(err); got != tt.key {
			t.Errorf("KeyColumns(%q) = %q, want %q", tt.detail, got, tt.key)
		}
		if got := pgretry.KeyValues(err); got != tt.values {
			t.Errorf("KeyValues(%q) = %q, want %q", tt.detail, got, tt.values)
		}
	}
	noDetail := &pgxError{"23505", "t_pkey"}
	if got, values := pgretry.KeyColumns(noDetail), pgretry.KeyValues(noDetail); got != "" || values != "" {
		t.Errorf("KeyColumns and KeyValues of an error without Detail = %q, %q", got, values)
	}
}

func TestIsUniqueViolationOfKey(t *testing.T) {
	t.Parallel()
	onID := &detailError{"23505", "events_2026_12_pkey", "Key (id)=(1) already exists."}
	tests := []struct {
		name    string
		err     error
		columns []string
		want    bool
	}{
		{"partition's key", onID, []string{"id"}, true},
		{"wrapped", fmt.Errorf("x: %w", onID), []string{"id"}, true},
		{"other column", onID, []string{"email"}, false},
		{"a column more", onID, []string{"id", "created_at"}, false},
		{"no columns", onID, nil, false},
		{"suffix of a column", &detailError{"23505", "t_key", "Key (tenant_id)=(1) already exists."}, []string{"id"}, false},
		{"composite", &detailError{"23505", "p_pkey", "Key (id, created_at)=(1, 2) already exists."}, []string{"id", "created_at"}, true},
		{"composite, other order", &detailError{"23505", "p_pkey", "Key (id, created_at)=(1, 2) already exists."}, []string{"created_at", "id"}, false},
		{"not a unique violation", &detailError{"23503", "fk", "Key (id)=(1) is not present in table \"p\"."}, []string{"id"}, false},
		{"no detail", &detailError{"23505", "events_2026_12_pkey", ""}, []string{"id"}, false},
	}
	for _, tt := range tests {
		if got := pgretry.IsUniqueViolationOfKey(tt.err, tt.columns...); got != tt.want {
			t.Errorf("%s: IsUniqueViolationOfKey(%v, %q) = %v, want %v", tt.name, tt.err, tt.columns, got, tt.want)
		}
	}
}

func TestInsertOnKey(t *testing.T) {
	t.Parallel()
	partition := &detailError{"23505", "events_2026_12_pkey", "Key (id)=(1) already exists."}
	email := &detailError{"23505", "events_2026_12_email_key", "Key (email)=(a@b.c) already exists."}
	insert, calls := script(partition, fmt.Errorf("q: %w", pgretry.ErrNoRowInserted), partition)
	retries, err := pgretry.InsertOnKey(t.Context(), []string{"id"}, 5, insert)
	if err != nil || retries != 3 || *calls != 4 {
		t.Errorf("InsertOnKey: retries %d, calls %d, err %v; want 3, 4, nil", retries, *calls, err)
	}
	insert, calls = script(email)
	if _, err := pgretry.InsertOnKey(t.Context(), []string{"id"}, 5, insert); err != email || *calls != 1 {
		t.Errorf("InsertOnKey on another key: calls %d, err %v; want 1 and that error", *calls, err)
	}
	insert, _ = script(partition, partition)
	if _, err := pgretry.InsertOnKey(t.Context(), []string{"id"}, 2, insert); !errors.Is(err, pgretry.ErrRetriesExhausted) {
		t.Errorf("InsertOnKey exhausted: %v", err)
	}
	insert, calls = script(partition)
	if _, err := pgretry.InsertOn(t.Context(), "events_pkey", 5, insert); err != partition || *calls != 1 {
		t.Errorf("InsertOn with the parent's name: calls %d, err %v; want 1 and the error", *calls, err)
	}
}

// pgError mimics the fields of *pgconn.PgError that Citus's unique
// violations fill or leave empty.
type pgError struct {
	Code, Message, Detail, TableName, ConstraintName string
}

func (e *pgError) Error() string    { return "ERROR: " + e.Message + " (SQLSTATE " + e.Code + ")" }
func (e *pgError) SQLState() string { return e.Code }

// citusCases are the forms of a unique violation seen on a Citus 13.2
// cluster (TestCitusCollisionsRetried meets each for real), and look-alikes
// that are none.
var citusCases = []struct {
	name       string
	err        *pgError
	unique     bool
	constraint string // what Constraint returns
	on         bool   // IsUniqueViolationOn(err, "t_pkey")
}{
	{"router insert", &pgError{Code: "23505", Message: `duplicate key value violates unique constraint "t_pkey_102009"`,
		Detail: "Key (id)=(42) already exists."}, true, "t_pkey_102009", true},
	{"copy through the coordinator", &pgError{Code: "XX000", Message: `duplicate key value violates unique constraint "t_pkey_102009"`,
		Detail: "Key (id)=(42) already exists."}, true, "t_pkey_102009", true},
	{"local shard", &pgError{Code: "23505", Message: `duplicate key value violates unique constraint "t_pkey_102136"`,
		Detail: "Key (id)=(42) already exists.", TableName: "t_102136", ConstraintName: "t_pkey_102136"}, true, "t_pkey_102136", true},
	{"another shard's table", &pgError{Code: "23505", Message: `duplicate key value violates unique constraint "t_pkey_102136"`,
		Detail: "Key (id)=(42) already exists.", TableName: "t_102137", ConstraintName: "t_pkey_102136"}, true, "t_pkey_102136", false},
	{"plain table, constraint t_pkey_2", &pgError{Code: "23505", Message: `duplicate key value violates unique constraint "t_pkey_2"`,
		Detail: "Key (id)=(42) already exists.", TableName: "t", ConstraintName: "t_pkey_2"}, true, "t_pkey_2", false},
	{"no shard number", &pgError{Code: "23505", Message: `duplicate key value violates unique constraint "t_pkey_x"`,
		Detail: "Key (id)=(42) already exists."}, true, "t_pkey_x", false},
	{"other internal error", &pgError{Code: "XX000", Message: "cache lookup failed for relation 1"}, false, "", false},
	{"translated message through the coordinator", &pgError{Code: "XX000", Message: "doppelter Schlüsselwert verletzt Unique-Constraint »t_pkey_102009«",
		Detail: "Schlüssel »(id)=(42)« existiert bereits."}, false, "", false},
	{"translated message", &pgError{Code: "23505", Message: "doppelter Schlüsselwert verletzt Unique-Constraint »t_pkey_102009«",
		Detail: "Schlüssel »(id)=(42)« existiert bereits."}, true, "", false},
}

func TestCitusForms(t *testing.T) {
	t.Parallel()
	for _, tt := range citusCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pgretry.IsUniqueViolation(tt.err); got != tt.unique {
				t.Errorf("IsUniqueViolation = %v, want %v", got, tt.unique)
			}
			if got := pgretry.Constraint(tt.err); got != tt.constraint {
				t.Errorf("Constraint = %q, want %q", got, tt.constraint)
			}
			if got := pgretry.IsUniqueViolationOn(tt.err, "t_pkey"); got != tt.on {
				t.Errorf("IsUniqueViolationOn(t_pkey) = %v, want %v", got, tt.on)
			}
			ofKey := tt.unique && tt.err.Detail != ""
			if got := pgretry.IsUniqueViolationOfKey(tt.err, "id"); got != ofKey {
				t.Errorf("IsUniqueViolationOfKey(id) = %v, want %v", got, tt.unique)
			}
			retried := func(name string, f func(context.Context, int, func(context.Context) error) (int, error), want bool) {
				insert, calls := script(tt.err)
				retries, err := f(t.Context(), 3, insert)
				if got := retries == 1 && err == nil; got != want {
					t.Errorf("%s: retries %d, err %v (%d calls); want retried %v", name, retries, err, *calls, want)
				}
			}
			retried("Insert", pgretry.Insert, tt.unique)
			retried("InsertOn", func(ctx context.Context, n int, f func(context.Context) error) (int, error) {
				return pgretry.InsertOn(ctx, "t_pkey", n, f)
			}, tt.on)
			retried("InsertOnKey", func(ctx context.Context, n int, f func(context.Context) error) (int, error) {
				return pgretry.InsertOnKey(ctx, []string{"id"}, n, f)
			}, ofKey)
		})
	}
}
