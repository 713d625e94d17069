package integration_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// TestTroubleshootingColumns provokes the quiet failures of columns that
// sortid cannot see, as docs/TROUBLESHOOTING.md describes them: a MariaDB
// INT or DECIMAL(12) column that clamps a HUID in a non-strict session, a
// float column that rounds it, and a map Create on SQLite whose key becomes
// max(rowid)+1. Each case checks the entry, the symptom and the fix.
func TestTroubleshootingColumns(t *testing.T) {
	t.Parallel()
	const clampHeading = "A column that cannot hold a HUID stores another number"
	const mapHeading = "A map Create on SQLite stored the key max(rowid)+1"
	mustSay(t, troubleshootingPage+` "`+clampHeading+`"`, pageEntry(t, troubleshootingPage, clampHeading),
		"`STRICT_TRANS_TABLES`", "`SET SESSION sql_mode=''`", "`INT` column is stored as `2147483647`",
		"`DECIMAL(12)` column as `999999999999`", "with err nil", "`DOUBLE` column on MariaDB",
		"`REAL` column on SQLite", "2^53 in any mode", "the first Create stores `2147483647`",
		"`gormtype.ErrRefused`", "make it BIGINT", "fails with error 1264", "a `bigint` column", "`TestTroubleshootingColumns`")
	mustSay(t, troubleshootingPage+` "`+mapHeading+`"`, pageEntry(t, troubleshootingPage, mapHeading),
		"`INTEGER PRIMARY KEY`", "stores max(rowid)+1", "not a HUID", "with or without the plugin",
		"`db.Table(\"t\").Create(map[string]any{\"name\": \"b\"})`", "`\"@id\"`",
		"`db.Model(&Row{}).Create(map…)` does so without the plugin", "`gormtype.ErrRefused`",
		"`\"id\": gormtype.NewHUID()`", "create from a struct")

	const exact, rounded int64 = 60661340544791426, 60661340544791424 // as in TestTroubleshootingFloat
	h := gormtype.HUID(idtype.MustParseHUID("60661340544791426"))
	if int64(h) != exact || int64(float64(exact)) != rounded {
		t.Fatalf("HUID %d as a double is %d; want %d", exact, int64(float64(exact)), rounded)
	}

	t.Run("mysql", func(t *testing.T) {
		d := gormDialect{name: "mysql"}
		collisions := 0
		db := tsOneConn(t, d.open(t, &gorm.Config{}, gormtype.AutoID{OnCollision: func(context.Context, string, error) { collisions++ }}))
		mustExec(t, db, `CREATE TABLE ts_cols (id INT PRIMARY KEY, d DECIMAL(12), f DOUBLE, b BIGINT)`)
		const insert = `INSERT INTO ts_cols (id, d, f, b) VALUES (?, ?, ?, ?)`

		// Strict: refused, nothing stored.
		mustExec(t, db, `SET SESSION sql_mode='STRICT_TRANS_TABLES'`)
		tsSessionMode(t, db, true)
		if err := db.Exec(insert, h, h, h, h).Error; err == nil || !strings.Contains(err.Error(), "1264") {
			t.Errorf("strict INSERT of a HUID into INT: %v; want error 1264", err)
		}
		checkCount(t, db, 0, "ts_cols", "1 = 1")

		// Non-strict: clamped, with err nil and only warnings.
		mustExec(t, db, `SET SESSION sql_mode=''`)
		tsSessionMode(t, db, false)
		if err := db.Exec(insert, h, h, h, h).Error; err != nil {
			t.Fatalf("non-strict INSERT: %v; want err nil", err)
		}
		var warnings []struct{ Level, Message string }
		if err := db.Raw(`SHOW WARNINGS`).Scan(&warnings).Error; err != nil {
			t.Fatal(err)
		}
		if len(warnings) != 2 || warnings[0].Level != "Warning" || !strings.Contains(warnings[0].Message, "'id'") || !strings.Contains(warnings[1].Message, "'d'") {
			t.Errorf("warnings %+v; want out-of-range warnings for id and d", warnings)
		}
		var got struct {
			ID, D, B int64
			F        float64
		}
		if err := db.Raw(`SELECT id, CAST(d AS SIGNED) AS d, f, b FROM ts_cols`).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if got.ID != 2147483647 || got.D != 999999999999 || int64(got.F) != rounded || got.B != exact {
			t.Errorf("stored id %d, d %d, f %d, b %d; want 2147483647, 999999999999, %d (rounded), %d",
				got.ID, got.D, int64(got.F), got.B, rounded, exact)
		}

		// DOUBLE rounds in strict mode too.
		mustExec(t, db, `SET SESSION sql_mode='STRICT_TRANS_TABLES'`, `CREATE TABLE ts_double (f DOUBLE, b BIGINT)`)
		tsSessionMode(t, db, true)
		mustExecArgs(t, db, `INSERT INTO ts_double (f, b) VALUES (?, ?)`, h, h)
		if err := db.Raw(`SELECT f, b FROM ts_double`).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if int64(got.F) != rounded || got.B != exact {
			t.Errorf("strict: DOUBLE stored %d, BIGINT %d; want %d, %d", int64(got.F), got.B, rounded, exact)
		}

		// AutoID on an INT key, non-strict: the first Create stores
		// 2147483647; the next meets it and is refused at the first
		// draw, naming the number the column stored and BIGINT.
		mustExec(t, db, `CREATE TABLE ts_int (id INT PRIMARY KEY, name VARCHAR(50))`, `SET SESSION sql_mode=''`)
		tsSessionMode(t, db, false)
		first := tsIntRow{Name: "a"}
		if err := db.Create(&first).Error; err != nil {
			t.Fatalf("first Create into INT key: %v; want err nil", err)
		}
		var ids []int64
		if err := db.Raw(`SELECT id FROM ts_int`).Scan(&ids).Error; err != nil {
			t.Fatal(err)
		}
		if len(ids) != 1 || ids[0] != 2147483647 || int64(first.ID) == 2147483647 || first.ID.IsZero() {
			t.Errorf("first Create: struct key %d, stored %v; want a HUID in the struct and [2147483647] stored", int64(first.ID), ids)
		}
		err := db.Create(&tsIntRow{Name: "b"}).Error
		checkRefused(t, err, gormtype.ErrRefused, "ts_int", "2147483647", "make it BIGINT")
		if errors.Is(err, gormtype.ErrKeyTaken) || collisions != 0 {
			t.Errorf("Create into a clamping INT key: %v, %d calls of OnCollision; want no ErrKeyTaken and none (no fresh value was taken)", err, collisions)
		}
		checkCount(t, db, 1, "ts_int", "1 = 1")

		// Strict: the same Create fails with 1264, not ErrKeyTaken.
		mustExec(t, db, `SET SESSION sql_mode='STRICT_TRANS_TABLES'`)
		tsSessionMode(t, db, true)
		if err := db.Create(&tsIntRow{Name: "c"}).Error; err == nil || !strings.Contains(err.Error(), "1264") {
			t.Errorf("strict Create into INT key: %v; want error 1264", err)
		}

		// Fix: the bigint column AutoMigrate makes keeps each HUID, even
		// in a non-strict session.
		resetTables(t, db, &tsBigRow{})
		var typ string
		if err := db.Raw(`SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ts_big' AND COLUMN_NAME = 'id'`).Scan(&typ).Error; err != nil || typ != "bigint" {
			t.Errorf("AutoMigrate made id %q, %v; want bigint", typ, err)
		}
		mustExec(t, db, `SET SESSION sql_mode=''`)
		tsSessionMode(t, db, false)
		for _, name := range []string{"a", "b"} {
			r := tsBigRow{Name: name}
			mustCreate(t, db, &r)
			checkNamed(t, db, "ts_big", r.ID, name)
		}
	})

	t.Run("sqlite-real", func(t *testing.T) {
		db := gormDialect{name: "sqlite"}.open(t, &gorm.Config{})
		mustExec(t, db, `CREATE TABLE ts_real (k INTEGER PRIMARY KEY, f REAL, i INTEGER)`)
		mustExecArgs(t, db, `INSERT INTO ts_real (k, f, i) VALUES (1, ?, ?)`, h, h)
		var got struct{ F, I int64 }
		if err := db.Raw(`SELECT CAST(f AS INTEGER) AS f, i FROM ts_real`).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if got.F != rounded || got.I != exact {
			t.Errorf("REAL stored %d, INTEGER %d; want %d (rounded), %d", got.F, got.I, rounded, exact)
		}
	})

	t.Run("sqlite-map", func(t *testing.T) {
		for _, plugin := range []bool{false, true} {
			name := "plain"
			if plugin {
				name = "AutoID"
			}
			t.Run(name, func(t *testing.T) {
				var plugins []gorm.Plugin
				if plugin {
					plugins = append(plugins, gormtype.AutoID{})
				}
				db := gormDialect{name: "sqlite"}.open(t, &gorm.Config{}, plugins...)
				resetTables(t, db, &tsMapRow{})
				var ddl string
				if err := db.Raw(`SELECT sql FROM sqlite_master WHERE name = 'ts_map'`).Scan(&ddl).Error; err != nil || !strings.Contains(ddl, "`id` integer") || !strings.Contains(ddl, "PRIMARY KEY (`id`)") {
					t.Fatalf("AutoMigrate made %q, %v; want an integer PRIMARY KEY id", ddl, err)
				}
				top := gormtype.NewHUID()
				mustCreate(t, db, &tsMapRow{ID: top, Name: "a"})

				// db.Table: the key becomes max+1, written back as "@id".
				m := map[string]any{"name": "b"}
				if err := db.Table("ts_map").Create(m).Error; err != nil {
					t.Fatalf("Table map Create: %v; want err nil", err)
				}
				checkNamed(t, db, "ts_map", top+1, "b")
				if m["@id"] != int64(top+1) {
					t.Errorf("map after Create %v; want \"@id\": %d", m, int64(top+1))
				}

				// db.Model: max+1 without the plugin; refused with it.
				m = map[string]any{"name": "c"}
				err := db.Model(&tsMapRow{}).Create(m).Error
				if plugin {
					checkRefused(t, err, gormtype.ErrRefused, "ts_map", `"id"`, "set it in the map", "create from a struct")
					checkCount(t, db, 0, "ts_map", "name = ?", "c")
				} else {
					if err != nil {
						t.Fatalf("Model map Create: %v; want err nil", err)
					}
					checkNamed(t, db, "ts_map", top+2, "c")
					if _, ok := m["id"]; ok {
						t.Errorf("map after Create %v; want no \"id\"", m)
					}
				}

				// Fix: the key set in the map, or a struct Create.
				fresh := gormtype.NewHUID()
				mustCreate(t, db.Model(&tsMapRow{}), map[string]any{"id": fresh, "name": "d"})
				checkNamed(t, db, "ts_map", fresh, "d")
				if plugin {
					r := tsMapRow{Name: "e"}
					mustCreate(t, db, &r)
					if r.ID.IsZero() || r.ID == max(top, fresh)+1 {
						t.Errorf("struct Create stored key %d; want a fresh HUID, not max+1", int64(r.ID))
					}
					checkNamed(t, db, "ts_map", r.ID, "e")
				}
			})
		}
	})
}

// tsIntRow is a row of ts_int, a table with an INT key made by SQL.
type tsIntRow struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (tsIntRow) TableName() string { return "ts_int" }

// tsBigRow is tsIntRow in the table AutoMigrate makes.
type tsBigRow struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (tsBigRow) TableName() string { return "ts_big" }

// tsMapRow is a row of ts_map, created from maps.
type tsMapRow struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (tsMapRow) TableName() string { return "ts_map" }

// tsOneConn limits db to one connection, so that a SET SESSION reaches
// every later statement of the test, and only the test's own connection.
func tsOneConn(t *testing.T, db *gorm.DB) *gorm.DB {
	t.Helper()
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetMaxIdleConns(1)
	sqlDB.SetConnMaxLifetime(0)
	sqlDB.SetConnMaxIdleTime(0)
	return db
}

// tsSessionMode checks that the session's sql_mode is strict or not.
func tsSessionMode(t *testing.T, db *gorm.DB, strict bool) {
	t.Helper()
	var mode string
	if err := db.Raw(`SELECT @@SESSION.sql_mode`).Scan(&mode).Error; err != nil {
		t.Fatal(err)
	}
	if got := strings.Contains(mode, "STRICT_TRANS_TABLES"); got != strict {
		t.Fatalf("session sql_mode %q: strict %v, want %v", mode, got, strict)
	}
}
