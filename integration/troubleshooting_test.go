package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgxtype"
)

// The tests of this file provoke the mistakes docs/TROUBLESHOOTING.md
// describes, check that each entry says what the test sees, and that its
// fix holds. docs/gorm.md's warning about AutoMigrate rests on
// TestTroubleshootingAutoMigrate too.

// pageEntry returns the text of the entry of a Markdown page (named
// relative to the repository root) under the heading that is exactly
// heading, up to the next heading, with runs of white space made one space
// so that phrases can be looked for across line breaks.
func pageEntry(t *testing.T, page, heading string) string {
	t.Helper()
	text, err := os.ReadFile("../" + page)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(heading) + `\n`).FindIndex(text)
	if m == nil {
		t.Fatalf("%s has no heading %q", page, heading)
	}
	body := string(text[m[1]:])
	if next := regexp.MustCompile(`(?m)^#+ `).FindStringIndex(body); next != nil {
		body = body[:next[0]]
	}
	return strings.Join(strings.Fields(body), " ")
}

// mustSay fails the test for each phrase that entry, from pageEntry, lacks.
func mustSay(t *testing.T, where, entry string, phrases ...string) {
	t.Helper()
	for _, p := range phrases {
		if !strings.Contains(entry, strings.Join(strings.Fields(p), " ")) {
			t.Errorf("%s does not say %q", where, p)
		}
	}
}

// tsConnect connects to dbURL in mode, with pgxtype registered or not.
func tsConnect(t *testing.T, dbURL string, mode pgx.QueryExecMode, register bool) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	if register {
		pgxtype.Register(conn.TypeMap())
	}
	return conn
}

// TestTroubleshootingBytea: an idtype.SCRU128 bound to a plain bytea column
// through pgx is stored as its 36 characters of UUID text, in every mode
// without pgxtype.Register, and with it in the modes that do not learn the
// parameter types (the others refuse it with ErrColumnForm). The fix,
// idtype.SCRU128Bytes, stores 16 bytes on every path, and the scru128_bytes
// domain refuses the 36 bytes.
func TestTroubleshootingBytea(t *testing.T) {
	t.Parallel()
	const where = troubleshootingPage + ` "A bytea column holds 36 bytes per SCRU128"`
	mustSay(t, where, pageEntry(t, troubleshootingPage, "A `bytea` column holds 36 bytes per SCRU128"),
		"`octet_length", "36", "UUID text", "without `pgxtype.Register`", "every query mode",
		"`pgxtype.ErrColumnForm`", "`QueryExecModeExec` and `QueryExecModeSimpleProtocol` still store",
		"`idtype.SCRU128Bytes`", "16 bytes on every path", "`scru128_bytes`", "23514")
	dbURL, _ := migratedDatabase(t)
	ctx := t.Context()
	setup := tsConnect(t, dbURL, pgx.QueryExecModeCacheStatement, false)
	execAll(t, setup, `CREATE TABLE ts_avatars (k int PRIMARY KEY, b bytea, d scru128_bytes)`)
	k := 0
	// insert writes v into column col of a new row through conn and returns
	// the bytes stored, or the error.
	insert := func(conn *pgx.Conn, col string, v any) ([]byte, error) {
		k++
		if _, err := conn.Exec(ctx, fmt.Sprintf(`INSERT INTO ts_avatars (k, %s) VALUES ($1, $2)`, col), k, v); err != nil {
			return nil, err
		}
		var stored []byte
		err := setup.QueryRow(ctx, fmt.Sprintf(`SELECT %s FROM ts_avatars WHERE k = $1`, col), k).Scan(&stored)
		return stored, err
	}
	id := idtype.NewSCRU128()
	for _, mode := range pgxModes {
		for _, register := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/register=%v", mode, register), func(t *testing.T) {
				conn := tsConnect(t, dbURL, mode, register)
				stored, err := insert(conn, "b", id)
				switch {
				case register && learnsParamTypes(mode):
					if !errors.Is(err, pgxtype.ErrColumnForm) {
						t.Errorf("SCRU128 into bytea: stored %q, %v; want ErrColumnForm", stored, err)
					}
				case err != nil || len(stored) != 36 || string(stored) != id.UUIDString():
					t.Errorf("SCRU128 into bytea: stored %q (%d bytes), %v; want the 36 bytes of %s", stored, len(stored), err, id.UUIDString())
				}
				stored, err = insert(conn, "b", idtype.SCRU128Bytes(id))
				if err != nil || string(stored) != string(id[:]) {
					t.Errorf("SCRU128Bytes into bytea: stored %x, %v; want the 16 bytes %x", stored, err, id[:])
				}
				var pgErr *pgconn.PgError
				stored, err = insert(conn, "d", id)
				if !(register && learnsParamTypes(mode) && errors.Is(err, pgxtype.ErrColumnForm)) &&
					!(errors.As(err, &pgErr) && pgErr.Code == "23514") {
					t.Errorf("SCRU128 into scru128_bytes: stored %q, %v; want SQLSTATE 23514", stored, err)
				}
			})
		}
	}
}

// learnsParamTypes reports whether pgx asks the server for the parameters'
// types before it encodes them in mode (see pgxModes).
func learnsParamTypes(mode pgx.QueryExecMode) bool {
	return mode != pgx.QueryExecModeExec && mode != pgx.QueryExecModeSimpleProtocol
}

// TestTroubleshootingFloat: a HUID above 2^53 in a double precision column
// is rounded: without pgxtype.Register in every mode and in CopyFrom; with
// it pgx refuses in the modes that learn the parameter types and in
// CopyFrom, and the other modes still round. Changing the column to bigint
// afterwards keeps the rounded number; a bigint column keeps the HUID.
func TestTroubleshootingFloat(t *testing.T) {
	t.Parallel()
	const exact, rounded = "60661340544791426", "60661340544791424"
	const where = troubleshootingPage + ` "A HUID comes back changed from a float column"`
	mustSay(t, where, pageEntry(t, troubleshootingPage, "A HUID comes back changed from a float column"),
		"`"+exact+"`", "`"+rounded+"`", "`double precision`", "2^53", "after 2026-02-19",
		"Without `pgxtype.Register`", "in every query mode and in `CopyFrom`",
		"`pgxtype.ErrInexactColumn`", "`QueryExecModeExec` and `QueryExecModeSimpleProtocol`",
		"to `bigint` afterwards keeps the rounded", "`bigint`")
	twoPow53 := idtype.HUID(1 << 53)
	before, _, err := idtype.HUIDRange(time.Date(2026, 2, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 19, 0, 0, 1, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := idtype.HUIDRange(time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 20, 0, 0, 1, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if before >= twoPow53 || after <= twoPow53 {
		t.Errorf("HUIDs of 2026-02-19 start at %d, of 2026-02-20 at %d; want 2^53 = %d between them", before, after, twoPow53)
	}
	h := idtype.MustParseHUID(exact)
	if f := float64(h); strconv.FormatFloat(f, 'f', 0, 64) != rounded || float64(int64(h)-2) != f {
		t.Fatalf("float64(%s) = %s; the example no longer rounds to %s", exact, strconv.FormatFloat(f, 'f', 0, 64), rounded)
	}
	dbURL, _ := migratedDatabase(t)
	ctx := t.Context()
	setup := tsConnect(t, dbURL, pgx.QueryExecModeCacheStatement, false)
	type path struct {
		mode    pgx.QueryExecMode
		copy    bool
		refuses bool // with Register
	}
	var paths []path
	for _, mode := range pgxModes {
		paths = append(paths, path{mode: mode, refuses: learnsParamTypes(mode)})
	}
	paths = append(paths, path{mode: pgx.QueryExecModeCacheStatement, copy: true, refuses: true})
	for _, p := range paths {
		for _, register := range []bool{false, true} {
			name := fmt.Sprintf("%v/copy=%v/register=%v", p.mode, p.copy, register)
			t.Run(name, func(t *testing.T) {
				conn := tsConnect(t, dbURL, p.mode, register)
				for _, column := range []string{"double precision", "bigint"} {
					table := tableName("ts_float")
					execAll(t, setup, fmt.Sprintf(`CREATE TABLE %s (k int PRIMARY KEY, f %s)`, table, column))
					err := insertFloat(ctx, conn, p.copy, table, h)
					var stored []string
					rows, qerr := setup.Query(ctx, `SELECT f::bigint::text FROM `+table)
					if qerr == nil {
						stored, qerr = pgx.CollectRows(rows, pgx.RowTo[string])
					}
					if qerr != nil {
						t.Fatal(qerr)
					}
					switch {
					case column == "bigint":
						if err != nil || len(stored) != 1 || stored[0] != exact {
							t.Errorf("bigint column: stored %q, %v; want %s", stored, err, exact)
						}
					case register && p.refuses:
						if !refusedInexact(err) || len(stored) != 0 {
							t.Errorf("float column: stored %q, %v; want ErrInexactColumn and nothing stored", stored, err)
						}
					case err != nil || len(stored) != 1 || stored[0] != rounded:
						t.Errorf("float column: stored %q, %v; want %s, rounded", stored, err, rounded)
					default:
						// The rounded number stays when the column becomes bigint.
						var now string
						execAll(t, setup, fmt.Sprintf(`ALTER TABLE %s ALTER COLUMN f TYPE bigint`, table))
						if err := setup.QueryRow(ctx, `SELECT f::text FROM `+table).Scan(&now); err != nil || now != rounded {
							t.Errorf("after ALTER COLUMN f TYPE bigint: %q, %v; want %s", now, err, rounded)
						}
					}
				}
			})
		}
	}
}

// TestTroubleshootingJSON: an int64 DTO field marshals a HUID as a JSON
// number, which JavaScript reads as a double, another number; idtype.HUID,
// gormtype.HUID and the ,string option marshal it as a string that
// unmarshals back to the same HUID.
func TestTroubleshootingJSON(t *testing.T) {
	t.Parallel()
	const where = troubleshootingPage + ` "JavaScript reads another ID than the server sent"`
	entry := pageEntry(t, troubleshootingPage, "JavaScript reads another ID than the server sent")
	const exact = "60661340544791426"
	h := idtype.MustParseHUID(exact)
	number, err := json.Marshal(struct {
		ID int64 `json:"id"`
	}{int64(h)})
	if err != nil {
		t.Fatal(err)
	}
	// JavaScript's JSON.parse makes every number a double (an IEEE 754
	// binary64, as Go's float64), and prints it with the fewest digits that
	// read back as the same double, as strconv's shortest form does.
	var parsed struct {
		ID float64 `json:"id"`
	}
	if err := json.Unmarshal(number, &parsed); err != nil {
		t.Fatal(err)
	}
	js := strconv.FormatFloat(parsed.ID, 'f', -1, 64)
	if string(number) != `{"id":`+exact+`}` || js == exact {
		t.Errorf("int64 field: %s, read by JavaScript as %s; want a number read as another one", number, js)
	}
	mustSay(t, where, entry, "`ID int64`", "`"+string(number)+"`", "`JSON.parse`", "`"+js+"`", "2^53")
	fixes := []struct {
		says    string
		v, back any
	}{
		{"`idtype.HUID`", struct {
			ID idtype.HUID `json:"id"`
		}{h}, new(struct {
			ID idtype.HUID `json:"id"`
		})},
		{"`gormtype.HUID`", struct {
			ID gormtype.HUID `json:"id"`
		}{gormtype.HUID(h)}, new(struct {
			ID gormtype.HUID `json:"id"`
		})},
		{"`json:\"id,string\"`", struct {
			ID int64 `json:"id,string"`
		}{int64(h)}, new(struct {
			ID int64 `json:"id,string"`
		})},
	}
	for _, f := range fixes {
		out, err := json.Marshal(f.v)
		if err != nil || string(out) != `{"id":"`+exact+`"}` {
			t.Errorf("%s: %s, %v; want a string", f.says, out, err)
			continue
		}
		mustSay(t, where, entry, f.says, "`"+string(out)+"`")
		if err := json.Unmarshal(out, f.back); err != nil || !reflect.DeepEqual(reflect.ValueOf(f.back).Elem().Interface(), f.v) {
			t.Errorf("%s: %s unmarshals to %+v, %v; want %+v", f.says, out, f.back, err, f.v)
		}
	}
}

// sqlRecorder is a GORM logger that keeps the SQL of every statement.
type sqlRecorder struct {
	logger.Interface
	mu    sync.Mutex
	stmts []string
}

func (r *sqlRecorder) LogMode(logger.LogLevel) logger.Interface { return r }

func (r *sqlRecorder) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	sql, _ := fc()
	r.mu.Lock()
	r.stmts = append(r.stmts, sql)
	r.mu.Unlock()
}

func (r *sqlRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stmts
	r.stmts = nil
	return s
}

// tsGorm opens GORM on dbURL with the statements recorded, and with the
// AutoID plugin when autoID.
func tsGorm(t *testing.T, dbURL string, autoID bool) (*gorm.DB, *sqlRecorder) {
	t.Helper()
	rec := &sqlRecorder{Interface: logger.Discard}
	db, err := gorm.Open(postgres.Open(dbURL), &gorm.Config{Logger: rec})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sqlDB.Close() })
	if autoID {
		if err := db.Use(gormtype.AutoID{}); err != nil {
			t.Fatal(err)
		}
	}
	return db, rec
}

// TestTroubleshootingGormSetup: an idtype type in a GORM model makes a
// Create fail with ErrSetup under AutoID, as the page quotes it, and plain
// GORM number the key 1, 2 …; with gormtype.HUID the Create gets a HUID.
func TestTroubleshootingGormSetup(t *testing.T) {
	t.Parallel()
	heading := "`gormtype: set-up error`"
	entry := pageEntry(t, troubleshootingPage, heading)
	where := troubleshootingPage + " " + heading
	dbURL, _ := migratedDatabase(t)
	type Invoice struct {
		ID    idtype.HUID `gorm:"primaryKey"`
		Total int
	}
	type Receipt struct {
		ID    gormtype.HUID `gorm:"primaryKey"`
		Total int
	}
	withPlugin, _ := tsGorm(t, dbURL, true)
	plain, _ := tsGorm(t, dbURL, false)
	if err := plain.AutoMigrate(&Receipt{}); err != nil {
		t.Fatal(err)
	}

	// idtype.HUID under AutoID: ErrSetup.
	err := withPlugin.Create(&Invoice{Total: 1}).Error
	if !errors.Is(err, gormtype.ErrSetup) {
		t.Errorf("Create of an idtype.HUID key with AutoID: %v; want ErrSetup", err)
	} else {
		mustSay(t, where, entry, "```text "+err.Error())
	}
	// Plain GORM: an auto-increment key, 1, 2.
	if err := plain.AutoMigrate(&Invoice{}); err != nil {
		t.Fatal(err)
	}
	var keys []idtype.HUID
	for range 2 {
		inv := Invoice{Total: 1}
		if err := plain.Create(&inv).Error; err != nil {
			t.Fatal(err)
		}
		keys = append(keys, inv.ID)
	}
	if id := tsColumns(t, plain, "invoices")["id"]; keys[0] != 1 || keys[1] != 2 || !strings.HasPrefix(id.dflt, "nextval(") {
		t.Errorf("plain GORM stored keys %v, the key column's default %q; want 1 and 2 from a sequence", keys, id.dflt)
	}
	mustSay(t, where, entry, "Without `AutoID`", "1, 2, 3")

	// The fix: gormtype.HUID, with AutoID.
	r := Receipt{Total: 1}
	if err := withPlugin.Create(&r).Error; err != nil || r.ID.Time().Before(time.Now().Add(-time.Minute)) {
		t.Errorf("Create with gormtype.HUID and AutoID: key %d, %v; want a fresh HUID", r.ID, err)
	}
	mustSay(t, where, entry, "`gormtype.HUID`", "`db.Use(gormtype.AutoID{})`")
}

// tsColumn is a column as the catalog describes it.
type tsColumn struct{ typ, nullable, dflt string }

// tsColumns returns the columns of table by name.
func tsColumns(t *testing.T, db *gorm.DB, table string) map[string]tsColumn {
	t.Helper()
	rows, err := db.Raw(`SELECT column_name, data_type, is_nullable, coalesce(column_default, 'none')
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`, table).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols := map[string]tsColumn{}
	for rows.Next() {
		var name string
		var c tsColumn
		if err := rows.Scan(&name, &c.typ, &c.nullable, &c.dflt); err != nil {
			t.Fatal(err)
		}
		cols[name] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}

// ordersDDL is the table the migrations of an application would make.
const ordersDDL = `CREATE TABLE orders (
	id    bigint  PRIMARY KEY DEFAULT huid_generate(),
	trace uuid    NOT NULL DEFAULT scru128_generate(),
	total integer NOT NULL)`

// ordersAsMade is ordersDDL's columns in the catalog.
var ordersAsMade = map[string]tsColumn{
	"id":    {"bigint", "NO", "huid_generate()"},
	"trace": {"uuid", "NO", "scru128_generate()"},
	"total": {"integer", "NO", "none"},
}

// TestTroubleshootingAutoMigrate: GORM's AutoMigrate on a table made by SQL,
// with a model that has no default or not null tags, drops the DEFAULT and
// NOT NULL of its columns but the key's (and widens an int column to
// bigint); the tags the pages show keep the table as made, and a Create
// lets the DEFAULT fill the field. TROUBLESHOOTING.md and gorm.md both say so.
func TestTroubleshootingAutoMigrate(t *testing.T) {
	t.Parallel()
	heading := "`AutoMigrate` dropped a column's DEFAULT and NOT NULL"
	entry := pageEntry(t, troubleshootingPage, heading)
	where := troubleshootingPage + " " + heading
	gormPage := pageEntry(t, "docs/gorm.md", "Tables made by SQL")
	type Order struct {
		ID    gormtype.HUID `gorm:"primaryKey"`
		Trace gormtype.SCRU128
		Total int
	}
	type TaggedOrder struct {
		ID    gormtype.HUID    `gorm:"primaryKey"`
		Trace gormtype.SCRU128 `gorm:"default:scru128_generate();not null"`
		Total int              `gorm:"type:integer;not null"`
	}
	for _, c := range []struct {
		model   any
		columns map[string]tsColumn
	}{{&Order{}, map[string]tsColumn{
		"id":    ordersAsMade["id"],
		"trace": {"uuid", "YES", "none"},
		"total": {"bigint", "YES", "none"},
	}}, {&TaggedOrder{}, ordersAsMade}} {
		name := reflect.TypeOf(c.model).Elem().Name()
		t.Run(name, func(t *testing.T) {
			dbURL, _ := migratedDatabase(t)
			db, rec := tsGorm(t, dbURL, true)
			if err := db.Exec(ordersDDL).Error; err != nil {
				t.Fatal(err)
			}
			if got := tsColumns(t, db, "orders"); !reflect.DeepEqual(got, ordersAsMade) {
				t.Fatalf("table as made: %v; want %v", got, ordersAsMade)
			}
			rec.take()
			if err := db.Table("orders").AutoMigrate(c.model); err != nil {
				t.Fatal(err)
			}
			var alters []string
			for _, s := range rec.take() {
				if strings.HasPrefix(s, "ALTER TABLE") {
					alters = append(alters, s)
				}
			}
			if got := tsColumns(t, db, "orders"); !reflect.DeepEqual(got, c.columns) {
				t.Errorf("after AutoMigrate (%q): %v; want %v", alters, got, c.columns)
			}
			// An INSERT from SQL that leaves the columns with DEFAULTs out.
			var trace *string
			err := db.Raw(`INSERT INTO orders (total) VALUES (1) RETURNING trace::text`).Scan(&trace).Error
			switch name {
			case "Order":
				want := []string{
					`ALTER TABLE "orders" ALTER COLUMN "trace" DROP NOT NULL`,
					`ALTER TABLE "orders" ALTER COLUMN "trace" DROP DEFAULT`,
					`ALTER TABLE "orders" ALTER COLUMN "total" TYPE bigint USING "total"::bigint`,
					`ALTER TABLE "orders" ALTER COLUMN "total" DROP NOT NULL`,
				}
				if !reflect.DeepEqual(alters, want) {
					t.Errorf("AutoMigrate ran %q; want %q", alters, want)
				}
				mustSay(t, where, entry, want[0], want[1], "`trace uuid NOT NULL DEFAULT scru128_generate()`")
				if err != nil || trace != nil {
					t.Errorf("INSERT from SQL after AutoMigrate: trace %v, %v; want NULL", trace, err)
				}
				mustSay(t, where, entry, "stores NULL", "keeps its DEFAULT", "`bigint`")
				// Through GORM with AutoID, a Create names what is missing.
				cerr := db.Table("orders").Create(&Order{Total: 3}).Error
				checkRefused(t, cerr, gormtype.ErrZeroID, "Order.Trace", `sortid:"auto"`, `gorm:"default:`)
				if cerr != nil && strings.Contains(cerr.Error(), "db.Use") {
					t.Errorf("Create with AutoID registered: %v; want no advice to register it", cerr)
				}
				mustSay(t, where, entry, "`gormtype.ErrZeroID`", "`Order.Trace`", "`sortid:\"auto\"`")
			case "TaggedOrder":
				if len(alters) != 0 {
					t.Errorf("AutoMigrate ran %q; want no ALTER", alters)
				}
				if err != nil || trace == nil {
					t.Errorf("INSERT from SQL after AutoMigrate: trace %v, %v; want a SCRU128 from the DEFAULT", trace, err)
				}
				// A Create through GORM leaves the zero Trace to the DEFAULT.
				o := TaggedOrder{Total: 2}
				var stored string
				cerr := db.Table("orders").Create(&o).Error
				if cerr == nil {
					cerr = db.Raw(`SELECT trace::text FROM orders WHERE total = 2`).Scan(&stored).Error
				}
				if cerr != nil || o.Trace.IsZero() || stored != o.Trace.ID().UUIDString() || math.Abs(time.Since(o.Trace.Time()).Minutes()) > 1 {
					t.Errorf("Create: field %v, stored %q, %v; want the DEFAULT's fresh SCRU128 in both", o.Trace, stored, cerr)
				}
				typ := reflect.TypeOf(c.model).Elem()
				for _, f := range []string{"Trace", "Total"} {
					sf, _ := typ.FieldByName(f)
					tag := "`" + string(sf.Tag) + "`"
					mustSay(t, where, entry, tag)
					mustSay(t, "docs/gorm.md Tables made by SQL", gormPage, tag)
				}
				mustSay(t, "docs/gorm.md Tables made by SQL", gormPage, "AutoMigrate", "DEFAULT", "NOT NULL", "`RETURNING`")
				mustSay(t, where, entry, "`RETURNING`")
			}
		})
	}
}
