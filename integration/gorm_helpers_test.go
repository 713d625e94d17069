package integration_test

// The helpers of the GORM suites (gorm_*_test.go): the dialect matrix, the
// key source that forces collisions, the one checker of gormtype's errors,
// and the row counts and table resets every suite uses. Each suite names
// its tables after the guarantee it checks (fill_*, retry_*, refuse_* …):
// the PostgreSQL run database is shared by all the tests of a run; a
// MariaDB database and an SQLite in-memory database are a test's own.

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/mysqltest"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// gormDialect is a database the GORM suites run on.
type gormDialect struct {
	name string // as gorm.Dialector.Name reports it
	// isolations are the levels of the caller transactions the retry
	// write paths run in, besides GORM's own transaction.
	isolations []sql.IsolationLevel
}

// gormDialects are PostgreSQL, MariaDB and SQLite.
var gormDialects = []gormDialect{
	{"postgres", []sql.IsolationLevel{sql.LevelReadCommitted, sql.LevelRepeatableRead}},
	{"mysql", []sql.IsolationLevel{sql.LevelReadCommitted, sql.LevelRepeatableRead}},
	{"sqlite", []sql.IsolationLevel{sql.LevelDefault}},
}

// onEachDialect is the dialect matrix of the GORM suites: it runs body as
// a subtest named after each dialect, on PostgreSQL, MariaDB and SQLite, or
// on those named in only.
func onEachDialect(t *testing.T, body func(t *testing.T, d gormDialect), only ...string) {
	t.Helper()
	ran := 0
	for _, d := range gormDialects {
		if len(only) > 0 && !slices.Contains(only, d.name) {
			continue
		}
		ran++
		t.Run(d.name, func(t *testing.T) { body(t, d) })
	}
	if len(only) > 0 && ran != len(only) {
		t.Fatalf("onEachDialect: unknown dialect in %q", only)
	}
}

// open opens GORM with cfg and plugins (AutoID, or none) on the dialect's
// test database. Every open in one test reaches the same database: the
// run's on PostgreSQL, the test's own on MariaDB and SQLite.
func (d gormDialect) open(t *testing.T, cfg *gorm.Config, plugins ...gorm.Plugin) *gorm.DB {
	t.Helper()
	switch d.name {
	case "postgres":
		return openGorm(t, postgres.Open(pgtest.URL(t)), cfg, plugins...)
	case "mysql":
		return openGorm(t, mysql.Open(mysqlDSN(t)), cfg, plugins...)
	}
	name := strings.NewReplacer("/", "_", "=", "_").Replace(t.Name())
	return openGorm(t, sqlite.Open("file:"+name+"?mode=memory&cache=shared&_pragma=busy_timeout(5000)"), cfg, plugins...)
}

// mysqlDSNs holds the MariaDB database of each running test.
var mysqlDSNs sync.Map // *testing.T → string

// mysqlDSN returns the MariaDB database of t, created at its first call.
func mysqlDSN(t *testing.T) string {
	t.Helper()
	if dsn, ok := mysqlDSNs.Load(t); ok {
		return dsn.(string)
	}
	dsn := mysqltest.DSN(t)
	mysqlDSNs.Store(t, dsn)
	t.Cleanup(func() { mysqlDSNs.Delete(t) })
	return dsn
}

// openGorm opens GORM on dialector with cfg (its logger discarded) and
// registers plugins; the connections are closed when t ends.
func openGorm(t testing.TB, dialector gorm.Dialector, cfg *gorm.Config, plugins ...gorm.Plugin) *gorm.DB {
	t.Helper()
	cfg.Logger = logger.Discard
	db, err := gorm.Open(dialector, cfg)
	if err != nil {
		t.Fatalf("gorm.Open: %v", err)
	}
	for _, p := range plugins {
		if err := db.Use(p); err != nil {
			t.Fatalf("Use(%s): %v", p.Name(), err)
		}
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sqlDB.Close() })
	return db
}

// tableRow is a row of a table made by SQL, named with db.Table.
type tableRow struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

// resetTables drops models (a model, or a table by name) and migrates the
// models again.
func resetTables(t *testing.T, db *gorm.DB, models ...any) {
	t.Helper()
	if err := db.Migrator().DropTable(models...); err != nil {
		t.Fatal(err)
	}
	var migrate []any
	for _, m := range models {
		if _, isName := m.(string); !isName {
			migrate = append(migrate, m)
		}
	}
	if err := db.AutoMigrate(migrate...); err != nil {
		t.Fatal(err)
	}
}

// mustExec runs statements one by one on db.
func mustExec(t *testing.T, db *gorm.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		mustExecArgs(t, db, s)
	}
}

// mustExecArgs runs one statement with arguments on db.
func mustExecArgs(t *testing.T, db *gorm.DB, stmt string, args ...any) {
	t.Helper()
	if err := db.Exec(stmt, args...).Error; err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// mustCreate creates v, failing the test on an error; with AutoID in
// gormtype.Transaction, which retries a collision.
func mustCreate(t *testing.T, db *gorm.DB, v any) {
	t.Helper()
	create := func(tx *gorm.DB) error { return tx.Create(v).Error }
	err := create
	if _, ok := db.Config.Plugins[gormtype.AutoID{}.Name()]; ok {
		err = func(tx *gorm.DB) error { return retried(tx, create) }
	}
	if err := err(db); err != nil {
		t.Fatalf("Create(%T): %v", v, err)
	}
}

// countRows counts the rows of table (which may be "ONLY x") matching where.
func countRows(t *testing.T, db *gorm.DB, table, where string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.Raw("SELECT COUNT(*) FROM "+table+" WHERE "+where, args...).Scan(&n).Error; err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// checkCount checks that want rows of table match where.
func checkCount(t *testing.T, db *gorm.DB, want int64, table, where string, args ...any) {
	t.Helper()
	if n := countRows(t, db, table, where, args...); n != want {
		t.Errorf("%s has %d rows where %s %v, want %d", table, n, where, args, want)
	}
}

// checkStored checks that the row of want's model with key id equals want.
func checkStored[T comparable](t *testing.T, db *gorm.DB, id any, want T) {
	t.Helper()
	var got T
	if err := db.First(&got, "id = ?", id).Error; err != nil {
		t.Fatalf("%T %v: %v", want, id, err)
	}
	if got != want {
		t.Errorf("stored %+v, want %+v", got, want)
	}
}

// checkNamed checks that table holds exactly one row with key id, named name.
func checkNamed(t *testing.T, db *gorm.DB, table string, id gormtype.HUID, name string) {
	t.Helper()
	var names []string
	if err := db.Raw("SELECT name FROM "+table+" WHERE id = ?", id).Scan(&names).Error; err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("%s row %s: names %q, want [%q]", table, id, names, name)
	}
}

// checkRefused is the one checker of gormtype's errors: err wraps sentinel
// (ErrRefused, ErrZeroID, ErrSetup, ErrKeyTaken, ErrUnknownColumn) and its
// message names each of mention: the table or field, and the way out. A
// mention that starts or ends with a letter must be a whole word there. It
// reports whether err passed.
func checkRefused(t *testing.T, err, sentinel error, mention ...string) bool {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("error %v; want one wrapping %q", err, sentinel)
		return false
	}
	ok := true
	for _, m := range mention {
		expr := regexp.QuoteMeta(m)
		if regexp.MustCompile(`^\w`).MatchString(m) {
			expr = `\b` + expr
		}
		if regexp.MustCompile(`\w$`).MatchString(m) {
			expr += `\b`
		}
		if !regexp.MustCompile(expr).MatchString(err.Error()) {
			t.Errorf("error %q does not name %q", err, m)
			ok = false
		}
	}
	return ok
}

// isUniqueViolation reports whether err is a driver's unique violation.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "23505") || strings.Contains(msg, "Error 1062") || strings.Contains(msg, "UNIQUE constraint failed")
}

// takenFirst is the AutoID key source that forces collisions: it returns
// the keys put into it before fresh ones (a zero key in the queue stands
// for a fresh one), HUIDs and SCRU128s each from their own queue.
type takenFirst struct {
	mu     sync.Mutex
	queue  []gormtype.HUID
	scru   []idtype.SCRU128
	draws  int // HUIDs drawn since the last next
	drawnS int // SCRU128s drawn since the last nextSCRU128
}

// plugin returns AutoID drawing from s, with the given Retries.
func (s *takenFirst) plugin(retries int) gormtype.AutoID {
	return gormtype.AutoID{Retries: retries, GenerateHUID: s.generate, GenerateSCRU128: s.generateSCRU128}
}

func (s *takenFirst) generate() (idtype.HUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draws++
	if len(s.queue) > 0 {
		h := s.queue[0]
		s.queue = s.queue[1:]
		if !h.IsZero() {
			return h.ID(), nil
		}
	}
	return idtype.GenerateHUID()
}

func (s *takenFirst) generateSCRU128() (idtype.SCRU128, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drawnS++
	if len(s.scru) > 0 {
		id := s.scru[0]
		s.scru = s.scru[1:]
		if id != (idtype.SCRU128{}) {
			return id, nil
		}
	}
	return idtype.GenerateSCRU128()
}

// next makes the coming HUID draws return keys, and counts draws anew.
func (s *takenFirst) next(keys ...gormtype.HUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, keys...)
	s.draws = 0
}

// nextSCRU128 makes the coming SCRU128 draws return ids.
func (s *takenFirst) nextSCRU128(ids ...idtype.SCRU128) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scru = append(s.scru, ids...)
	s.drawnS = 0
}

// drawn returns how many HUIDs were drawn since the last next.
func (s *takenFirst) drawn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.draws
}

// pending reports how many forced keys, HUIDs and SCRU128s, were not drawn.
func (s *takenFirst) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) + len(s.scru)
}

// forget drops the forced keys not drawn.
func (s *takenFirst) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue, s.scru = nil, nil
}

// checkDrawn checks that every forced key was drawn: the case collided.
func (s *takenFirst) checkDrawn(t *testing.T) {
	t.Helper()
	if n := s.pending(); n != 0 {
		t.Errorf("%d forced keys were never drawn: the case did not collide", n)
	}
}

// collisionLog records AutoID.OnCollision calls.
type collisionLog struct {
	mu     sync.Mutex
	tables []string
	errs   []error
}

func (l *collisionLog) record(_ context.Context, table string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tables, l.errs = append(l.tables, table), append(l.errs, err)
}

// take returns the calls so far and forgets them.
func (l *collisionLog) take() ([]string, []error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tables, errs := l.tables, l.errs
	l.tables, l.errs = nil, nil
	return tables, errs
}

// mustHUID returns the first HUID of the millisecond at.
func mustHUID(at time.Time) gormtype.HUID {
	h, err := idtype.HUIDFromParts(at, 1)
	if err != nil {
		panic(err)
	}
	return gormtype.HUID(h)
}

// upsertForms are the clause.OnConflict forms a caller adds to a Create of
// an account with a unique email.
var upsertForms = []struct {
	name string
	oc   clause.OnConflict
}{
	{"DoNothing", clause.OnConflict{DoNothing: true}},
	{"UpdateAll", clause.OnConflict{UpdateAll: true}},
	{"EmailDoUpdates", clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}},
	{"EmailUpdateAll", clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}},
}

// upsertAllowed reports whether AutoID runs an upsert form of rows rows
// whose only fresh field is the key: on PostgreSQL and SQLite one aimed at
// a column other than the key that updates (GORM aims UpdateAll without
// columns at the key; DO NOTHING may skip a row), on MySQL none (ON
// DUPLICATE KEY UPDATE fires on the key too).
func upsertAllowed(dialect string, oc clause.OnConflict, rows int) bool {
	return dialect != "mysql" && len(oc.Columns) > 0 && !oc.DoNothing
}

// retried runs fn in gormtype.Transaction, which runs it again in a fresh
// transaction after a collision of a key AutoID filled.
func retried(db *gorm.DB, fn func(tx *gorm.DB) error) error {
	return gormtype.Transaction(db.Statement.Context, db, fn)
}

// pgURLWith returns the test database's URL as set changes it and its query.
func pgURLWith(t testing.TB, set func(u *url.URL, q url.Values)) string {
	t.Helper()
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	set(u, q)
	u.RawQuery = q.Encode()
	return u.String()
}
