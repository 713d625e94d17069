package integration_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/pgretry"
)

// citusItem is the model of the Citus GORM tests: a HUID key and a SCRU128
// that AutoID fills. The models of the other GORM suites that have an
// auto-filled SCRU128 (upsertItem, refuseRefAcct) give it a unique index,
// and their accounts have a unique email: Citus distributes a table by id
// only when every unique index holds id.
type citusItem struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `sortid:"auto"`
	Name string           `gorm:"size:50"`
}

// citusGormTables are the kinds of Citus table the collisions are forced
// in, with the statement that makes one of a table created by AutoMigrate.
var citusGormTables = []struct{ kind, distribute string }{
	{"distributed", "SELECT create_distributed_table('%s', 'id', shard_count := 4)"},
	{"reference", "SELECT create_reference_table('%s')"},
}

// citusGormShape is one way of creating rows with GORM: write creates rows
// (all filled by AutoID) in table through db, and one of its INSERTs is
// made to collide.
type citusGormShape struct {
	name string
	// onWorker: db is connected to the first worker, not to the
	// coordinator.
	onWorker bool
	// localShard: in a distributed table, the taken key's shard is on the
	// first worker, else on the second (a reference table's one shard is
	// on every node).
	localShard    bool
	skipDefaultTx bool
	rows          int
	// before is how many keys are drawn before those of the INSERT that
	// collides; perInsert how many that INSERT draws.
	before, perInsert int
	// savepoint: the INSERT is undone with ROLLBACK TO SAVEPOINT (GORM's
	// nested transaction), not by a ROLLBACK.
	savepoint bool
	write     func(db *gorm.DB, table string, rows []citusItem) error
}

func citusCreateOne(db *gorm.DB, table string, rows []citusItem) error {
	return retried(db, func(tx *gorm.DB) error { return tx.Table(table).Create(&rows[0]).Error })
}

var citusGormShapes = []citusGormShape{
	{name: "gorm-tx", rows: 1, perInsert: 1, write: citusCreateOne},
	// gormtype.Transaction in the caller's transaction is a savepoint.
	{name: "caller-tx", rows: 3, before: 1, perInsert: 1, savepoint: true,
		write: func(db *gorm.DB, table string, rows []citusItem) error {
			return db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Table(table).Create(&rows[0]).Error; err != nil {
					return err
				}
				err := citusCreateOne(tx, table, rows[1:]) // collides
				// Whatever its outcome, the transaction goes on: a
				// failed INSERT not undone by ROLLBACK TO SAVEPOINT
				// would make this one fail with 25P02.
				if after := tx.Table(table).Create(&rows[2]).Error; after != nil {
					return fmt.Errorf("Create after the colliding one: %v", after)
				}
				return err
			})
		}},
	{name: "no-tx", skipDefaultTx: true, rows: 1, perInsert: 1, write: citusCreateOne},
	// Three batches, so GORM opens a nested transaction, a savepoint; the
	// second collides, and every rerun draws the first batch's keys again.
	{name: "batches", rows: 5, before: 2, perInsert: 2, savepoint: true,
		write: func(db *gorm.DB, table string, rows []citusItem) error {
			return retried(db, func(tx *gorm.DB) error { return tx.Table(table).CreateInBatches(&rows, 2).Error })
		}},
	{name: "worker-gorm-tx", onWorker: true, rows: 1, perInsert: 1, write: citusCreateOne},
	{name: "worker-gorm-tx-local-shard", onWorker: true, localShard: true, rows: 1, perInsert: 1, write: citusCreateOne},
}

// TestCitusGorm forces collisions of AutoID's fresh keys on a distributed
// and on a reference table of Citus, through GORM's postgres driver on the
// coordinator (and on a worker), in gormtype.Transaction alone, in a
// caller's transaction, with SkipDefaultTransaction and around
// CreateInBatches. A Create whose first key is taken succeeds after one
// rerun, calls OnCollision once with the table and Citus's unique
// violation of key (id), and stores its rows under fresh keys that the
// structs hold; one whose every key is taken fails with ErrKeyTaken after
// Retries+1 collisions and stores nothing. The row that holds the taken
// key stays as it was. Where a savepoint undoes the INSERT, the rollback to
// it succeeds and the transaction goes on.
//
// Citus passes on the shard's unique violation as SQLSTATE 23505 naming the
// shard's index (t_pkey_102008) in the message, with the key in the detail;
// the error's constraint and table are empty, except when the violated
// shard of a distributed table is on the node the statement was sent to.
func TestCitusGorm(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := openGorm(t, postgres.Open(c.Coordinator.URL("postgres")), &gorm.Config{}, gormtype.AutoID{})
	for _, kind := range citusGormTables {
		for _, shape := range citusGormShapes {
			table := strings.ReplaceAll("citus_gorm_"+kind.kind+"_"+shape.name, "-", "_")
			// The tables are made one after another, before the cases run.
			createCitusTable(t, coord, table, kind.kind, kind.distribute)
			node, keyOn := c.Coordinator, c.Workers[1]
			if shape.onWorker {
				node = c.Workers[0]
			}
			if shape.localShard {
				keyOn = c.Workers[0]
			}
			named := kind.kind == "distributed" && shape.localShard
			t.Run(kind.kind+"/"+shape.name, func(t *testing.T) {
				t.Parallel()
				src, log := &takenFirst{}, &collisionLog{}
				db := openGorm(t, postgres.Open(node.URL("postgres")), &gorm.Config{SkipDefaultTransaction: shape.skipDefaultTx},
					gormtype.AutoID{GenerateHUID: src.generate, OnCollision: log.record})
				savepoints := recordSavepoints(t, db)
				key, shard := citusKeyOn(t, coord, table, keyOn.Port)
				taken := citusItem{ID: key, Ref: gormtype.NewSCRU128(), Name: "taken"}
				violation := citusViolation{
					constraint: fmt.Sprintf("%s_pkey_%d", table, shard),
					detail:     fmt.Sprintf("Key (id)=(%s) already exists.", key),
				}
				if named {
					violation.constraintName, violation.tableName = violation.constraint, fmt.Sprintf("%s_%d", table, shard)
				}
				if err := coord.Table(table).Create(&taken).Error; err != nil {
					t.Fatalf("seed the row with the taken key: %v", err)
				}
				// check checks the OnCollision calls, that every forced
				// key was drawn, and that AutoID rolled back to a
				// savepoint for every collision, or never.
				check := func(t *testing.T, collisions int) {
					t.Helper()
					tables, errs := log.take()
					if len(tables) != collisions {
						t.Errorf("%d OnCollision calls, want %d", len(tables), collisions)
					}
					for i := range tables {
						if tables[i] != table {
							t.Errorf("OnCollision call %d with table %q, want %q", i+1, tables[i], table)
						}
						checkCitusViolation(t, errs[i], table, violation)
					}
					if n := src.pending(); n != 0 {
						t.Errorf("%d forced keys were never drawn", n)
					}
					rollbacks, failed := savepoints.take()
					if shape.savepoint && len(rollbacks) < collisions || !shape.savepoint && len(rollbacks) > 0 || len(failed) > 0 {
						t.Errorf("rolled back to a savepoint %d times (%q), failing %q; want it at least once per collision: %v",
							len(rollbacks), rollbacks, failed, shape.savepoint)
					}
				}

				t.Run("retried", func(t *testing.T) {
					want := citusStored(t, coord, table)
					if len(want) != 1 || want[taken.ID] != taken {
						t.Fatalf("%s holds %+v, want only the seeded %+v", table, want, taken)
					}
					rows := make([]citusItem, shape.rows)
					for i := range rows {
						rows[i].Name = fmt.Sprint("new ", i)
					}
					src.next(append(make([]gormtype.HUID, shape.before), taken.ID)...)
					if err := shape.write(db, table, rows); err != nil {
						t.Fatalf("write with one taken key: %v", err)
					}
					check(t, 1)
					for _, r := range rows {
						if r.ID.IsZero() || r.ID == taken.ID || r.Ref.IsZero() {
							t.Errorf("created row %+v: a key is zero or the taken one", r)
						}
						want[r.ID] = r
					}
					checkCitusStored(t, coord, table, want)
				})

				t.Run("key-taken", func(t *testing.T) {
					want := citusStored(t, coord, table)
					rows := make([]citusItem, shape.rows)
					keys := make([]gormtype.HUID, shape.before, shape.before+(gormtype.DefaultRetries+1)*shape.perInsert)
					for len(keys) < cap(keys) {
						keys = append(keys, taken.ID)
					}
					src.next(keys...)
					err := shape.write(db, table, rows)
					if !errors.Is(err, gormtype.ErrKeyTaken) {
						t.Fatalf("write with every key taken: %v; want ErrKeyTaken", err)
					}
					check(t, gormtype.DefaultRetries+1)
					checkCitusStored(t, coord, table, want)
				})
			})
		}
	}
}

// createCitusTable creates table for citusItem with AutoMigrate on the
// coordinator and makes it a Citus table of kind with distribute.
func createCitusTable(t *testing.T, coord *gorm.DB, table, kind, distribute string) {
	t.Helper()
	if err := coord.Table(table).AutoMigrate(&citusItem{}); err != nil {
		t.Fatalf("AutoMigrate %s: %v", table, err)
	}
	if err := coord.Exec(fmt.Sprintf(distribute, table)).Error; err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(distribute, table), err)
	}
	var got string
	if err := coord.Raw("SELECT citus_table_type FROM citus_tables WHERE table_name = ?::regclass", table).Scan(&got).Error; err != nil || got != kind {
		t.Fatalf("%s is a %q table (%v), want %q", table, got, err, kind)
	}
}

// savepointLog records the ROLLBACK TO SAVEPOINT statements sent through a
// gorm.DB used by one goroutine, and the errors they met.
type savepointLog struct{ sent, failed []string }

// recordSavepoints records the ROLLBACK TO SAVEPOINT statements AutoID
// sends through db: GORM's RollbackTo runs them as raw SQL.
func recordSavepoints(t *testing.T, db *gorm.DB) *savepointLog {
	t.Helper()
	l := &savepointLog{}
	err := db.Callback().Raw().After("gorm:raw").Register("test:savepoints", func(tx *gorm.DB) {
		if sql := tx.Statement.SQL.String(); strings.HasPrefix(sql, "ROLLBACK TO SAVEPOINT") {
			l.sent = append(l.sent, sql)
			if tx.Error != nil {
				l.failed = append(l.failed, fmt.Sprintf("%s: %v", sql, tx.Error))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// take returns the statements sent so far and the errors, and forgets them.
func (l *savepointLog) take() (sent, failed []string) {
	sent, failed = l.sent, l.failed
	l.sent, l.failed = nil, nil
	return sent, failed
}

// citusViolation is the unique violation a shard raises and Citus passes
// on: constraint is the shard's index, which the message names.
type citusViolation struct {
	constraint, detail string
	// constraintName and tableName are the error's fields.
	constraintName, tableName string
}

// checkCitusViolation checks that err, the driver's error OnCollision got,
// is the unique violation want, and that pgretry reads it as a violation of
// table's primary key (id).
func checkCitusViolation(t *testing.T, err error, table string, want citusViolation) {
	t.Helper()
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		t.Fatalf("OnCollision got %T %v, want a *pgconn.PgError", err, err)
	}
	got := citusViolation{pgretry.Constraint(err), pg.Detail, pg.ConstraintName, pg.TableName}
	if pg.Code != pgretry.UniqueViolation || pg.Message != `duplicate key value violates unique constraint "`+want.constraint+`"` || got != want {
		t.Errorf("OnCollision got SQLSTATE %s, message %q, %+v; want 23505, %+v", pg.Code, pg.Message, got, want)
	}
	if !pgretry.IsUniqueViolation(err) || !pgretry.IsUniqueViolationOfKey(err, "id") || !pgretry.IsUniqueViolationOn(err, table+"_pkey") {
		t.Errorf("pgretry does not read %v as a unique violation of %s_pkey, key (id)", err, table)
	}
}

// citusKeyOn returns a fresh key whose shard of table has a placement on
// the node at port, and the shard's id.
func citusKeyOn(t *testing.T, db *gorm.DB, table string, port int) (gormtype.HUID, int64) {
	t.Helper()
	for range 100 {
		key := gormtype.NewHUID()
		var shard struct {
			ID   int64
			Here bool
		}
		err := db.Raw(`SELECT shardid AS id, bool_or(nodeport = ?) AS here FROM citus_shards
			WHERE shardid = get_shard_id_for_distribution_column(?::regclass, ?::bigint) GROUP BY shardid`, port, table, key).Scan(&shard).Error
		if err != nil || shard.ID == 0 {
			t.Fatalf("shard of key %s in %s: %+v, %v", key, table, shard, err)
		}
		if shard.Here {
			return key, shard.ID
		}
	}
	t.Fatalf("no key of 100 has its shard of %s on port %d", table, port)
	return 0, 0
}

// citusStored returns the rows of table by key.
func citusStored(t *testing.T, db *gorm.DB, table string) map[gormtype.HUID]citusItem {
	t.Helper()
	var rows []citusItem
	if err := db.Table(table).Find(&rows).Error; err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	m := make(map[gormtype.HUID]citusItem, len(rows))
	for _, r := range rows {
		m[r.ID] = r
	}
	return m
}

// checkCitusStored checks that table holds exactly the rows of want, every
// column equal.
func checkCitusStored(t *testing.T, db *gorm.DB, table string, want map[gormtype.HUID]citusItem) {
	t.Helper()
	got := citusStored(t, db, table)
	for id, w := range want {
		if g, ok := got[id]; !ok {
			t.Errorf("%s lacks row %+v", table, w)
		} else if g != w {
			t.Errorf("%s holds %+v, want %+v", table, g, w)
		}
	}
	for id, g := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s holds the unexpected row %+v", table, g)
		}
	}
}
