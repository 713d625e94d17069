package integration_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgretry"
	"github.com/sortid/sortid/pgxtype"
)

// sqlReferencePage is the page that documents every object of the migration.
const sqlReferencePage = "docs/SQL.md"

var (
	// A function's heading: name(arguments) → result, VOLATILITY[, STRICT]
	// [, PARALLEL UNSAFE|RESTRICTED].
	functionHeadingRE = regexp.MustCompile(`^### (\w+\(.*\) → [\w ]+(?:\[\])?, (?:VOLATILE|STABLE|IMMUTABLE)(?:, STRICT)?(?:, PARALLEL (?:UNSAFE|RESTRICTED))?)$`)
	// A domain's heading: name: domain over base type.
	domainHeadingRE = regexp.MustCompile(`^### (\w+: domain over [\w ]+)$`)
	// A sequence's heading: name: sequence.
	sequenceHeadingRE = regexp.MustCompile(`^### (\w+: sequence)$`)
	// An example with its result: a statement, then "-- result".
	exampleResultRE = regexp.MustCompile(`^(.+;) +-- (.+)$`)
	// An example that raises: a statement, then "→ ERROR SQLSTATE: message".
	exampleErrorRE = regexp.MustCompile(`^(.+) → ERROR (\w{5}): (.+)$`)
)

// catalogObjects returns the signature of every function, domain and
// sequence in the current schema of a migrated database, written as
// docs/SQL.md's headings write them, and fails the test if the schema holds
// any other kind of object, which the page has no way to describe.
func catalogObjects(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, _ := conn.Query(t.Context(), `
		SELECT p.proname || '(' || pg_get_function_arguments(p.oid) || ') → '
		       || format_type(p.prorettype, NULL) || ', '
		       || CASE p.provolatile WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END
		       || CASE WHEN p.proisstrict THEN ', STRICT' ELSE '' END
		       || CASE p.proparallel WHEN 'u' THEN ', PARALLEL UNSAFE' WHEN 'r' THEN ', PARALLEL RESTRICTED' ELSE '' END
		FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
		UNION ALL
		SELECT t.typname || ': domain over ' || format_type(t.typbasetype, NULL)
		FROM pg_type t WHERE t.typnamespace = current_schema()::regnamespace AND t.typtype = 'd'
		UNION ALL
		SELECT c.relname || ': sequence'
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'S'`)
	objects, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range objects {
		objects[i] = strings.ReplaceAll(o, "timestamp with time zone", "timestamptz")
	}
	var others []string
	rows, _ = conn.Query(t.Context(), `
		SELECT 'relation ' || relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind <> 'S'
		UNION ALL
		SELECT 'type ' || typname FROM pg_type
		WHERE typnamespace = current_schema()::regnamespace AND typtype <> 'd' AND typcategory <> 'A'
		UNION ALL
		SELECT 'operator ' || oprname FROM pg_operator WHERE oprnamespace = current_schema()::regnamespace`)
	if others, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(others) > 0 {
		t.Errorf("the migration creates %v, which %s has no section for", others, sqlReferencePage)
	}
	return objects
}

// referenceHeadings returns the signature in each object heading of
// docs/SQL.md with the heading's line, and fails the test on a ### heading
// that is not a function's, a domain's or a sequence's.
func referenceHeadings(t *testing.T) (signatures []string, lines []int) {
	t.Helper()
	text, err := os.ReadFile("../" + sqlReferencePage)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(text), "\n") {
		if !strings.HasPrefix(line, "### ") {
			continue
		}
		m := functionHeadingRE.FindStringSubmatch(line)
		if m == nil {
			m = domainHeadingRE.FindStringSubmatch(line)
		}
		if m == nil {
			m = sequenceHeadingRE.FindStringSubmatch(line)
		}
		if m == nil {
			t.Errorf("%s:%d: heading %q is none of `### name(args) → type, VOLATILITY[, STRICT][, PARALLEL UNSAFE]`, `### name: domain over type` and `### name: sequence`", sqlReferencePage, i+1, line)
			continue
		}
		signatures = append(signatures, m[1])
		lines = append(lines, i+1)
	}
	return signatures, lines
}

// TestSQLReferenceMatchesCatalog: every function of docs/SQL.md exists in a
// freshly migrated database with the arguments, result type, volatility,
// strictness and parallel safety its heading gives, every domain with its base type, every
// sequence, and every function, domain and sequence of that database has its heading.
func TestSQLReferenceMatchesCatalog(t *testing.T) {
	t.Parallel()
	dbURL, _ := migratedDatabase(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	catalog := catalogObjects(t, conn)
	page, _ := referenceHeadings(t)
	for _, o := range catalog {
		if !slices.Contains(page, o) {
			t.Errorf("the migration creates %q, which %s has no heading for", o, sqlReferencePage)
		}
	}
	for _, o := range page {
		if !slices.Contains(catalog, o) {
			t.Errorf("%s has the heading %q, which the migrated database does not match", sqlReferencePage, o)
		}
	}
	if len(catalog) < 20 {
		t.Errorf("found %d functions and domains in the migrated database, want at least 20: %v", len(catalog), catalog)
	}
}

// TestSQLReferenceExamples runs every example of docs/SQL.md with TimeZone
// UTC: a statement followed by `-- result` in a sql block must return that
// (columns joined by " | ", booleans as true and false, NULL as NULL), and a
// `statement → ERROR SQLSTATE: message` line of a text block must fail with
// that SQLSTATE and exactly that message. Every object's section must have
// at least one example.
func TestSQLReferenceExamples(t *testing.T) {
	t.Parallel()
	dbURL, _ := migratedDatabase(t)
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.RuntimeParams["TimeZone"] = "UTC"
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	headings, headingLines := referenceHeadings(t)
	examples := make([]int, len(headings))
	section := func(line int) int { // index of the heading above line, or -1
		i := len(headingLines) - 1
		for i >= 0 && headingLines[i] > line {
			i--
		}
		return i
	}
	checked := 0
	for _, b := range docBlocks(t, sqlReferencePage) {
		for n, line := range strings.Split(b.body, "\n") {
			at := b.line + 1 + n
			var ok bool
			switch b.lang {
			case "sql":
				if m := exampleResultRE.FindStringSubmatch(line); m != nil {
					got, err := queryText(t.Context(), conn, m[1])
					if err != nil || got != m[2] {
						t.Errorf("%s:%d: %s gives %q (error %v), the page says %q", sqlReferencePage, at, m[1], got, err, m[2])
					}
					ok = true
				}
			case "text":
				if m := exampleErrorRE.FindStringSubmatch(line); m != nil {
					_, err := conn.Exec(t.Context(), m[1])
					var pgErr *pgconn.PgError
					if !errors.As(err, &pgErr) || pgErr.Code != m[2] || pgErr.Message != m[3] {
						t.Errorf("%s:%d: %s fails with %v, the page says SQLSTATE %s: %s", sqlReferencePage, at, m[1], err, m[2], m[3])
					}
					ok = true
				}
			}
			if ok {
				checked++
				if s := section(at); s >= 0 {
					examples[s]++
				}
			}
		}
	}
	for i, h := range headings {
		if examples[i] == 0 {
			t.Errorf("%s:%d: %q has no example with its result", sqlReferencePage, headingLines[i], h)
		}
	}
	if checked < len(headings) {
		t.Fatalf("checked %d examples for %d headings; this test lost its way of finding them", checked, len(headings))
	}
}

// queryText runs a one-row statement and returns its columns' text joined by
// " | ", booleans as true and false and NULL as NULL.
func queryText(ctx context.Context, conn *pgx.Conn, sql string) (string, error) {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	if !rows.Next() {
		return "", errors.Join(rows.Err(), errors.New("no row"))
	}
	var cells []string
	for i, v := range rows.RawValues() {
		switch {
		case v == nil:
			cells = append(cells, "NULL")
		case rows.FieldDescriptions()[i].DataTypeOID == pgtype.BoolOID:
			cells = append(cells, map[string]string{"t": "true", "f": "false"}[string(v)])
		default:
			cells = append(cells, string(v))
		}
	}
	rows.Close()
	return strings.Join(cells, " | "), rows.Err()
}

// troubleshootingPage quotes the errors TestTroubleshootingErrors provokes.
const troubleshootingPage = "docs/TROUBLESHOOTING.md"

// TestTroubleshootingErrors provokes each error docs/TROUBLESHOOTING.md
// quotes, checks that the error's text matches the quote (… standing for
// any text, such as an OID), that the page quotes it verbatim, and that the
// page's fix makes the same call succeed.
func TestTroubleshootingErrors(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../" + troubleshootingPage)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	freshURL, _ := freshDatabase(t)
	migratedURL, migratedDB := migratedDatabase(t)
	connect := func(t *testing.T, dbURL string, mode pgx.QueryExecMode) *pgx.Conn {
		t.Helper()
		cfg, err := pgx.ParseConfig(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = mode
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		return conn
	}
	setup := connect(t, migratedURL, pgx.QueryExecModeCacheStatement)
	execAll(t, setup,
		`CREATE TABLE ts_arrays (ids huid[], avatars scru128_bytes[])`,
		`CREATE TABLE ts_users (id bigint PRIMARY KEY, avatar scru128_bytes)`,
		`CREATE TABLE ts_events (id bigint PRIMARY KEY, body text)`)

	type troubleCase struct {
		name  string
		quote string
		// provoke returns the error the page quotes; fixed repeats the call
		// as the page's fix says, and must succeed.
		provoke, fixed func(t *testing.T) error
	}
	cases := []troubleCase{{
		name:  "type does not exist",
		quote: `ERROR: type "huid" does not exist (SQLSTATE 42704)`,
		provoke: func(t *testing.T) error {
			_, err := connect(t, freshURL, pgx.QueryExecModeCacheStatement).Exec(ctx, `CREATE TABLE t (id huid PRIMARY KEY)`)
			return err
		},
		fixed: func(t *testing.T) error {
			_, err := setup.Exec(ctx, `CREATE TABLE t (id huid PRIMARY KEY)`)
			return err
		},
	}, {
		name:  "function does not exist",
		quote: `ERROR: function huid_generate() does not exist (SQLSTATE 42883)`,
		provoke: func(t *testing.T) error {
			_, err := connect(t, freshURL, pgx.QueryExecModeCacheStatement).Exec(ctx, `SELECT huid_generate()`)
			return err
		},
		fixed: func(t *testing.T) error {
			_, err := setup.Exec(ctx, `SELECT huid_generate()`)
			return err
		},
	}, {
		name:  "cannot scan unknown type",
		quote: `cannot scan unknown type (OID …) in text format into *[]idtype.HUID`,
		provoke: func(t *testing.T) error {
			var ids []idtype.HUID
			return connect(t, migratedURL, pgx.QueryExecModeCacheStatement).QueryRow(ctx, `SELECT ARRAY[1, 2]::huid[]`).Scan(&ids)
		},
		fixed: func(t *testing.T) error {
			conn := connect(t, migratedURL, pgx.QueryExecModeCacheStatement)
			pgxtype.Register(conn.TypeMap())
			var ids []idtype.HUID
			return conn.QueryRow(ctx, `SELECT ARRAY[1, 2]::huid[]`).Scan(&ids)
		},
	}, {
		name:  "unable to encode unknown type",
		quote: `unable to encode []idtype.HUID{…} into text format for unknown type (OID …): cannot find encode plan`,
		provoke: func(t *testing.T) error {
			_, err := connect(t, migratedURL, pgx.QueryExecModeCacheStatement).Exec(ctx,
				`INSERT INTO ts_arrays (ids) VALUES ($1)`, []idtype.HUID{idtype.NewHUID()})
			return err
		},
		fixed: func(t *testing.T) error {
			conn := connect(t, migratedURL, pgx.QueryExecModeCacheStatement)
			if _, err := pgxtype.LoadDomains(ctx, conn); err != nil {
				return err
			}
			_, err := conn.Exec(ctx, `INSERT INTO ts_arrays (ids) VALUES ($1)`, []idtype.HUID{idtype.NewHUID()})
			return err
		},
	}, {
		name:  "uuid text into scru128_bytes through database/sql",
		quote: `ERROR: value for domain scru128_bytes violates check constraint "scru128_bytes_length" (SQLSTATE 23514)`,
		provoke: func(t *testing.T) error {
			_, err := migratedDB.ExecContext(ctx, `INSERT INTO ts_users (id, avatar) VALUES ($1, $2)`,
				idtype.NewHUID(), idtype.NewSCRU128().UUIDString())
			return err
		},
		fixed: func(t *testing.T) error {
			_, err := migratedDB.ExecContext(ctx, `INSERT INTO ts_users (id, avatar) VALUES ($1, $2)`,
				idtype.NewHUID(), idtype.SCRU128Bytes(idtype.NewSCRU128()))
			return err
		},
	}, {
		name:  "uuid form refused by pgx after LoadDomains",
		quote: `pgxtype: SCRU128 form does not match the column type: idtype.SCRU128 cannot be stored in a bytea column; use idtype.SCRU128Bytes or idtype.NullSCRU128Bytes`,
		provoke: func(t *testing.T) error {
			conn := connect(t, migratedURL, pgx.QueryExecModeCacheStatement)
			if _, err := pgxtype.LoadDomains(ctx, conn); err != nil {
				return err
			}
			_, err := conn.Exec(ctx, `INSERT INTO ts_users (id, avatar) VALUES ($1, $2)`, idtype.NewHUID(), idtype.NewSCRU128())
			if !errors.Is(err, pgxtype.ErrColumnForm) {
				t.Errorf("error %v does not wrap pgxtype.ErrColumnForm", err)
			}
			return err
		},
		fixed: func(t *testing.T) error {
			conn := connect(t, migratedURL, pgx.QueryExecModeCacheStatement)
			if _, err := pgxtype.LoadDomains(ctx, conn); err != nil {
				return err
			}
			_, err := conn.Exec(ctx, `INSERT INTO ts_users (id, avatar) VALUES ($1, $2)`,
				idtype.NewHUID(), idtype.SCRU128Bytes(idtype.NewSCRU128()))
			return err
		},
	}, {
		name:  "HUID key collision",
		quote: `ERROR: duplicate key value violates unique constraint "ts_events_pkey" (SQLSTATE 23505)`,
		provoke: func(t *testing.T) error {
			id := idtype.NewHUID()
			if _, err := setup.Exec(ctx, `INSERT INTO ts_events (id, body) VALUES ($1, 'first')`, id); err != nil {
				return err
			}
			_, err := setup.Exec(ctx, `INSERT INTO ts_events (id, body) VALUES ($1, 'second')`, id)
			if !pgretry.IsUniqueViolationOn(err, "ts_events_pkey") {
				t.Errorf("error %v is not a unique violation of ts_events_pkey for pgretry", err)
			}
			return err
		},
		fixed: func(t *testing.T) error {
			// The first attempt reuses a taken key, as a collision does;
			// pgretry.InsertOn runs the insert again, with a fresh key.
			taken := idtype.NewHUID()
			if _, err := setup.Exec(ctx, `INSERT INTO ts_events (id, body) VALUES ($1, 'first')`, taken); err != nil {
				return err
			}
			attempt := 0
			retries, err := pgretry.InsertOn(ctx, "ts_events_pkey", 5, func(ctx context.Context) error {
				id := idtype.NewHUID()
				if attempt++; attempt == 1 {
					id = taken
				}
				_, err := setup.Exec(ctx, `INSERT INTO ts_events (id, body) VALUES ($1, 'second')`, id)
				return err
			})
			if err == nil && retries != 1 {
				t.Errorf("pgretry.InsertOn retried %d times, want 1", retries)
			}
			return err
		},
	}}
	// The uuid form reaches a scru128_bytes column as 36 bytes of UUID text
	// in the modes that send no parameter types, and in every mode until
	// pgxtype.LoadDomains has taught pgx the domain.
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		insert := func(t *testing.T, avatar any) error {
			conn := connect(t, migratedURL, mode)
			pgxtype.Register(conn.TypeMap())
			_, err := conn.Exec(ctx, `INSERT INTO ts_users (id, avatar) VALUES ($1, $2)`, idtype.NewHUID(), avatar)
			return err
		}
		cases = append(cases, troubleCase{
			name:    "uuid form into scru128_bytes through pgx " + mode.String(),
			quote:   `ERROR: value for domain scru128_bytes violates check constraint "scru128_bytes_length" (SQLSTATE 23514)`,
			provoke: func(t *testing.T) error { return insert(t, idtype.NewSCRU128()) },
			fixed:   func(t *testing.T) error { return insert(t, idtype.SCRU128Bytes(idtype.NewSCRU128())) },
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(string(page), c.quote) {
				t.Errorf("%s does not quote %q", troubleshootingPage, c.quote)
			}
			pattern := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(c.quote), "…", ".+?") + "$")
			err := c.provoke(t)
			if err == nil {
				t.Fatalf("no error; the page quotes %q", c.quote)
			}
			// pgx prefixes what it quotes with where it failed, such as
			// "can't scan into dest[0] (col: array): ".
			msg := err.Error()
			if !matchesSuffix(pattern, msg) {
				t.Errorf("error %q does not end with the quoted %q", msg, c.quote)
			}
			if err := c.fixed(t); err != nil {
				t.Errorf("after the page's fix: %v", err)
			}
		})
	}
}

// matchesSuffix reports whether pattern, anchored at both ends, matches msg
// or a part of msg that starts after one of its ": " separators.
func matchesSuffix(pattern *regexp.Regexp, msg string) bool {
	for {
		if pattern.MatchString(msg) {
			return true
		}
		i := strings.Index(msg, ": ")
		if i < 0 {
			return false
		}
		msg = msg[i+2:]
	}
}
