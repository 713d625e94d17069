package integration_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// AutoID retries a colliding Create in the transaction GORM began for it
// without a savepoint when the INSERT is the first statement there, by
// replacing the aborted transaction. These tests make the first HUID drawn
// collide and check that nothing written before the INSERT in the same
// transaction is lost, and that transactions a fresh BEGIN cannot rebuild
// keep their state.

type restartWriter struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

func (restartWriter) TableName() string { return "restart_writers" }

type restartPost struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	WriterID gormtype.HUID
	Writer   restartWriter // belongs-to: GORM inserts it before the post
	Tenant   string        `gorm:"default:current_setting('sortid.tenant', true)"`
}

func (restartPost) TableName() string { return "restart_posts" }

type restartAudit struct {
	ID   int64 `gorm:"primaryKey"`
	What string
}

func (restartAudit) TableName() string { return "restart_audits" }

// collidingOnce returns an AutoID generator whose next draw after arm() is
// taken, and the ID it collides with.
func collidingOnce() (gen func() (idtype.HUID, error), taken gormtype.HUID, arm func()) {
	taken = gormtype.NewHUID()
	armed := false
	gen = func() (idtype.HUID, error) {
		if armed {
			armed = false
			return taken.ID(), nil
		}
		return idtype.GenerateHUID()
	}
	return gen, taken, func() { armed = true }
}

// openRestartDB opens GORM with the plugins before, then AutoID, on fresh
// restart_* tables.
func openRestartDB(t *testing.T, dialector gorm.Dialector, cfg *gorm.Config, plugin gormtype.AutoID, before ...gorm.Plugin) *gorm.DB {
	t.Helper()
	db := openGorm(t, dialector, cfg, append(before, plugin)...)
	if err := db.Migrator().DropTable(&restartPost{}, &restartWriter{}, &restartAudit{}, &restartHooked{}); err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(&restartWriter{}, &restartPost{}, &restartAudit{}, &restartHooked{}); err != nil {
		t.Fatal(err)
	}
	return db
}

// seedTaken stores a writer and a post with the ID the next armed draw
// collides with, and returns the writer.
func seedTaken(t *testing.T, db *gorm.DB, taken gormtype.HUID) restartWriter {
	t.Helper()
	w := restartWriter{Name: "seed"}
	if err := db.Create(&w).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&restartPost{ID: taken, WriterID: w.ID}).Error; err != nil {
		t.Fatal(err)
	}
	return w
}

// createCollidingPost seeds the taken ID, creates a post whose ID collides
// once, and checks that the audit row that writer (a callback or plugin)
// adds in the post's transaction survives the retry. It returns the seeded
// writer.
func createCollidingPost(t *testing.T, db *gorm.DB, taken gormtype.HUID, arm func(), writer string) restartWriter {
	t.Helper()
	w := seedTaken(t, db, taken)
	before := countRows(t, db, &restartAudit{})
	arm()
	if err := db.Create(&restartPost{WriterID: w.ID}).Error; err != nil {
		t.Fatalf("Create after a collision: %v", err)
	}
	if after := countRows(t, db, &restartAudit{}); after != before+1 {
		t.Fatalf("audit rows written by %s: %d, want %d", writer, after, before+1)
	}
	return w
}

func countRows(t *testing.T, db *gorm.DB, model any) int64 {
	t.Helper()
	var n int64
	if err := db.Model(model).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGormRestartFirstInsert(t *testing.T) {
	for _, prepare := range []bool{false, true} {
		t.Run(fmt.Sprintf("PrepareStmt=%v", prepare), func(t *testing.T) {
			gen, taken, arm := collidingOnce()
			db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{PrepareStmt: prepare}, gormtype.AutoID{NewHUID: gen})
			w := seedTaken(t, db, taken)
			arm()
			post := restartPost{WriterID: w.ID}
			res := db.Create(&post)
			if res.Error != nil || res.RowsAffected != 1 || post.ID == taken || post.ID.IsZero() {
				t.Fatalf("Create after a collision: %v, %d rows, ID %v (taken %v)", res.Error, res.RowsAffected, post.ID, taken)
			}
			var back restartPost
			if err := db.First(&back, "id = ?", post.ID).Error; err != nil || back.WriterID != w.ID {
				t.Fatalf("stored post: %+v, %v", back, err)
			}
		})
	}
}

func TestGormRestartKeepsBelongsTo(t *testing.T) {
	gen, taken, arm := collidingOnce()
	db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
	seedTaken(t, db, taken)
	arm() // the post's ID is drawn first, then its writer's
	post := restartPost{Writer: restartWriter{Name: "inserted before the post"}}
	if err := db.Create(&post).Error; err != nil {
		t.Fatalf("Create with a belongs-to after a collision: %v", err)
	}
	var w restartWriter
	if err := db.First(&w, "id = ?", post.WriterID).Error; err != nil || w.Name != "inserted before the post" {
		t.Fatalf("the writer inserted before the colliding post: %+v, %v", w, err)
	}
}

func TestGormRestartKeepsOtherCallbacksWrites(t *testing.T) {
	gen, taken, arm := collidingOnce()
	db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
	failAfterAudit := false
	audit := func(db *gorm.DB) {
		if db.Statement.Table == "restart_posts" {
			db.AddError(db.Session(&gorm.Session{NewDB: true}).Create(&restartAudit{What: "post"}).Error)
			if failAfterAudit {
				db.AddError(errors.New("audit refused"))
			}
		}
	}
	if err := db.Callback().Create().Before("gorm:create").Register("test:audit", audit); err != nil {
		t.Fatal(err)
	}
	w := createCollidingPost(t, db, taken, arm, "a callback before the INSERT")
	before := countRows(t, db, &restartAudit{})
	// A callback failing before the INSERT rolls the transaction back,
	// audit row included, and gives the connection back.
	failAfterAudit = true
	if err := db.Create(&restartPost{WriterID: w.ID}).Error; err == nil || !strings.Contains(err.Error(), "audit refused") {
		t.Fatalf("Create with a failing callback: %v, want \"audit refused\"", err)
	}
	if after := countRows(t, db, &restartAudit{}); after != before {
		t.Fatalf("audit rows after a rolled-back Create: %d, want %d", after, before)
	}
	sqlDB, _ := db.DB()
	if inUse := sqlDB.Stats().InUse; inUse != 0 {
		t.Fatalf("%d connections still in use after the rolled-back Create", inUse)
	}
}

// tenantPool is a connection pool whose transactions set a tenant when they
// begin, as multi-tenant applications do for row-level security.
type tenantPool struct{ *sql.DB }

func (p tenantPool) GetDBConn() (*sql.DB, error) { return p.DB, nil }

func (p tenantPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	tx, err := p.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL sortid.tenant = 'seven'"); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

func TestGormRestartKeepsCustomPoolState(t *testing.T) {
	sqlDB := pgtest.StdDB(t)
	gen, taken, arm := collidingOnce()
	db := openRestartDB(t, postgres.New(postgres.Config{Conn: tenantPool{sqlDB}}), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
	w := seedTaken(t, db, taken)
	arm()
	post := restartPost{WriterID: w.ID}
	if err := db.Create(&post).Error; err != nil {
		t.Fatalf("Create after a collision: %v", err)
	}
	if post.Tenant != "seven" {
		t.Fatalf("tenant set when the transaction began: %q after the retry, want \"seven\"", post.Tenant)
	}
}

// statementLog is a database/sql driver over pgx's that records the SQL it
// is given, to count the savepoint statements AutoID sends.
type statementLog struct {
	driver.Connector
	mu   sync.Mutex
	sqls []string
}

func (l *statementLog) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := l.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &loggedConn{Conn: c, log: l}, nil
}

func (l *statementLog) record(query string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sqls = append(l.sqls, query)
}

// take returns AutoID's transaction statements recorded since the last
// take: its savepoint's, and the restart of a transaction.
func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, q := range l.sqls {
		if strings.Contains(q, "sortid_autoid") || q == "ROLLBACK; BEGIN" {
			out = append(out, q)
		}
	}
	l.sqls = nil
	return out
}

type loggedConn struct {
	driver.Conn
	log *statementLog
}

func (c *loggedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.log.record(query)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *loggedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.log.record(query)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *loggedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.log.record(query)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *loggedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *loggedConn) CheckNamedValue(v *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(v)
}

func (c *loggedConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

// TestGormSavepointStatements pins down the statements AutoID adds on
// PostgreSQL: none for a Create that is first in GORM's transaction, one
// ROLLBACK; BEGIN when it collides; SAVEPOINT and RELEASE per insert in a
// longer transaction, and ROLLBACK TO on a collision there.
func TestGormSavepointStatements(t *testing.T) {
	cfg, err := pgx.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	log := &statementLog{Connector: stdlib.GetConnector(*cfg)}
	sqlDB := sql.OpenDB(log)
	t.Cleanup(func() { _ = sqlDB.Close() })
	gen, taken, arm := collidingOnce()
	db := openRestartDB(t, postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
	w := seedTaken(t, db, taken)
	check := func(what string, want ...string) {
		t.Helper()
		if got := log.take(); !slices.Equal(got, want) {
			t.Errorf("%s sent %q, want %q", what, got, want)
		}
	}
	log.take()
	if err := db.Create(&restartPost{WriterID: w.ID}).Error; err != nil {
		t.Fatal(err)
	}
	check("Create")
	arm()
	if err := db.Create(&restartPost{WriterID: w.ID}).Error; err != nil {
		t.Fatal(err)
	}
	check("colliding Create", "ROLLBACK; BEGIN")
	if err := db.Create(&restartPost{Writer: restartWriter{Name: "belongs-to"}}).Error; err != nil {
		t.Fatal(err)
	}
	check("Create after a belongs-to insert",
		"SAVEPOINT sortid_autoid", "RELEASE SAVEPOINT sortid_autoid", // the writer, in the post's transaction
		"SAVEPOINT sortid_autoid") // the post; the COMMIT ends it
	if err := db.Create(&restartHooked{Name: "h"}).Error; err != nil {
		t.Fatal(err)
	}
	check("Create of a model with a BeforeCreate hook", "SAVEPOINT sortid_autoid")
	err = db.Transaction(func(tx *gorm.DB) error {
		arm()
		return tx.CreateInBatches(&[]restartPost{{WriterID: w.ID}, {WriterID: w.ID}, {WriterID: w.ID}}, 2).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	check("CreateInBatches in a transaction, first batch colliding",
		"SAVEPOINT sortid_autoid", "ROLLBACK TO SAVEPOINT sortid_autoid", "RELEASE SAVEPOINT sortid_autoid",
		"SAVEPOINT sortid_autoid", "RELEASE SAVEPOINT sortid_autoid")
}

// TestGormRestartStaysAtomic: after a collision the retried INSERT runs in
// a transaction again, which a later failure of the same Create rolls back.
func TestGormRestartStaysAtomic(t *testing.T) {
	gen, taken, arm := collidingOnce()
	db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
	refuse := func(db *gorm.DB) {
		if db.Statement.Table == "restart_posts" {
			db.AddError(errors.New("refused after the insert"))
		}
	}
	err := db.Callback().Create().After("gorm:create").Before("gorm:commit_or_rollback_transaction").Register("test:refuse", refuse)
	if err != nil {
		t.Fatal(err)
	}
	w := restartWriter{Name: "w"}
	if err := db.Create(&w).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Session(&gorm.Session{SkipHooks: true}).Exec("INSERT INTO restart_posts (id, writer_id) VALUES (?, ?)", taken, w.ID).Error; err != nil {
		t.Fatal(err)
	}
	arm()
	post := restartPost{WriterID: w.ID}
	if err := db.Create(&post).Error; err == nil {
		t.Fatal("Create with a failing callback after the insert succeeded")
	}
	if n := countRows(t, db, &restartPost{}); n != 1 {
		t.Fatalf("posts after the rolled-back Create: %d, want 1 (the seed): the retried insert escaped the transaction", n)
	}
}

// auditBegin is a plugin that wraps gorm:begin_transaction to write in the
// new transaction, as audit and row-level-security plugins do.
type auditBegin struct{}

func (auditBegin) Name() string { return "test:audit-begin" }

func (auditBegin) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	begin := create.Get("gorm:begin_transaction")
	return create.Replace("gorm:begin_transaction", func(db *gorm.DB) {
		begin(db)
		if _, ok := db.InstanceGet("gorm:started_transaction"); ok && db.Statement.Table == "restart_posts" {
			_, err := db.Statement.ConnPool.ExecContext(db.Statement.Context, "INSERT INTO restart_audits (what) VALUES ('begin')")
			db.AddError(err)
		}
	})
}

// TestGormRestartKeepsStateItCannotSee: statements AutoID cannot watch
// (a wrapped gorm:begin_transaction, a custom pool on the session, a
// transaction the caller began on a pinned connection) survive a retry.
func TestGormRestartKeepsStateItCannotSee(t *testing.T) {
	t.Run("WrappedBegin", func(t *testing.T) {
		gen, taken, arm := collidingOnce()
		db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{NewHUID: gen}, auditBegin{})
		createCollidingPost(t, db, taken, arm, "the wrapped begin")
	})
	t.Run("SessionPool", func(t *testing.T) {
		gen, taken, arm := collidingOnce()
		db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
		w := seedTaken(t, db, taken)
		sqlDB, err := db.DB()
		if err != nil {
			t.Fatal(err)
		}
		tenant := db.Session(&gorm.Session{NewDB: true})
		tenant.Statement.ConnPool = tenantPool{sqlDB}
		arm()
		post := restartPost{WriterID: w.ID}
		if err := tenant.Create(&post).Error; err != nil {
			t.Fatalf("Create after a collision: %v", err)
		}
		if post.Tenant != "seven" {
			t.Fatalf("tenant set when the session's pool began the transaction: %q after the retry, want \"seven\"", post.Tenant)
		}
	})
	t.Run("CallerBeganOnConnection", func(t *testing.T) {
		gen, taken, arm := collidingOnce()
		db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{NewHUID: gen})
		w := seedTaken(t, db, taken)
		before := countRows(t, db, &restartAudit{})
		err := db.Connection(func(conn *gorm.DB) error {
			c := conn.Session(&gorm.Session{NewDB: true})
			if err := c.Exec("BEGIN").Error; err != nil {
				return err
			}
			if err := c.Create(&restartAudit{What: "caller"}).Error; err != nil {
				return err
			}
			arm()
			if err := c.Create(&restartPost{WriterID: w.ID}).Error; err != nil {
				return err
			}
			return c.Exec("COMMIT").Error
		})
		if err != nil {
			t.Fatalf("caller's transaction with a collision: %v", err)
		}
		if after := countRows(t, db, &restartAudit{}); after != before+1 {
			t.Fatalf("audit rows of the caller's transaction: %d, want %d", after, before+1)
		}
	})
}

// TestGormWatchedTransactionIsATransaction: callbacks before the INSERT
// that use prepared statements or db.DB() get the transaction's behaviour
// while AutoID watches it.
func TestGormWatchedTransactionIsATransaction(t *testing.T) {
	db := openRestartDB(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, gormtype.AutoID{})
	var dbErr error
	audit := func(db *gorm.DB) {
		if db.Statement.Table == "restart_posts" {
			db.AddError(db.Session(&gorm.Session{NewDB: true, PrepareStmt: true}).Create(&restartAudit{What: "post"}).Error)
			_, dbErr = db.DB()
			db.AddError(errors.New("refused"))
		}
	}
	if err := db.Callback().Create().Before("gorm:create").Register("test:audit", audit); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&restartPost{}).Error; err == nil {
		t.Fatal("Create with a refusing callback succeeded")
	}
	if dbErr != nil {
		t.Errorf("db.DB() in a callback before the INSERT: %v", dbErr)
	}
	if n := countRows(t, db, &restartAudit{}); n != 0 {
		t.Errorf("audit rows after the rolled-back Create: %d, want 0 (a prepared statement left the transaction)", n)
	}
}

type restartHooked struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

func (restartHooked) TableName() string { return "restart_hooked" }

func (*restartHooked) BeforeCreate(*gorm.DB) error { return nil }
