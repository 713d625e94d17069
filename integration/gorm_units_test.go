package integration_test

// The units suite: the fields AutoID filled in work that one rollback
// undoes (a gormtype.Transaction attempt, or a plain Create in the
// transaction GORM opens for it) are unset when that work fails, however
// fn reaches the transaction: through tx, another context, a session, a
// goroutine, a hook or a nested Transaction. On MariaDB a collision after
// rows went to a table that keeps them on a rollback (MyISAM, Aria), or
// whose engine cannot be read (a view, a temporary table), is refused
// rather than run again. Each test names its tables with a prefix of its
// own (GORM's NamingStrategy.TablePrefix), so that the tests run in
// parallel on the run's shared PostgreSQL database.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/gormtype"
)

// openUnitDB opens d with cfg and plugins, naming every table of a model
// with prefix.
func openUnitDB(t *testing.T, d gormDialect, prefix string, cfg *gorm.Config, plugins ...gorm.Plugin) *gorm.DB {
	t.Helper()
	cfg.NamingStrategy = schema.NamingStrategy{TablePrefix: prefix}
	return d.open(t, cfg, plugins...)
}

// unitAccount has a fresh field besides its key, and a unique email.
type unitAccount struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Email string           `gorm:"size:100;uniqueIndex"`
}

// openUnitAccounts opens d with AutoID (Retries 1) drawing from a
// takenFirst source, and an empty table prefix+"unit_accounts" holding one
// account, "taken@x".
func openUnitAccounts(t *testing.T, d gormDialect, prefix string) (*takenFirst, *gorm.DB, unitAccount) {
	t.Helper()
	src := &takenFirst{}
	db := openUnitDB(t, d, prefix, &gorm.Config{}, src.plugin(1))
	resetTables(t, db, &unitAccount{})
	taken := unitAccount{ID: gormtype.NewHUID(), Trace: gormtype.NewSCRU128(), Email: "taken@x"}
	mustCreate(t, db, &taken)
	return src, db, taken
}

// checkUnitUnset checks that the fields AutoID filled in accounts are zero.
func checkUnitUnset(t *testing.T, step string, accounts ...*unitAccount) {
	t.Helper()
	for _, a := range accounts {
		if !a.ID.IsZero() || !a.Trace.IsZero() {
			t.Errorf("%s: %s holds ID %s, Trace %s; want both zero", step, a.Email, a.ID, a.Trace)
		}
	}
}

// TestGormUnitOtherContexts: fn's writes through tx under another context,
// a session of it, a nested Transaction or a goroutine belong to the
// attempt: their fields are unset before a rerun and when Transaction
// returns an error, and each row is stored once. So are they when fn
// panics; the panic goes on.
func TestGormUnitOtherContexts(t *testing.T) {
	t.Parallel()
	type ctxKey struct{}
	ways := []struct {
		name  string
		write func(ctx context.Context, tx *gorm.DB, a *unitAccount) error
	}{
		{"tx", func(_ context.Context, tx *gorm.DB, a *unitAccount) error {
			return tx.Create(a).Error
		}},
		{"tx.WithContext(caller's)", func(ctx context.Context, tx *gorm.DB, a *unitAccount) error {
			return tx.WithContext(ctx).Create(a).Error
		}},
		{"tx.WithContext(Background)", func(_ context.Context, tx *gorm.DB, a *unitAccount) error {
			return tx.WithContext(context.Background()).Create(a).Error
		}},
		{"tx.Session(Context)", func(ctx context.Context, tx *gorm.DB, a *unitAccount) error {
			return tx.Session(&gorm.Session{Context: ctx}).Create(a).Error
		}},
		{"tx.Session(NewDB)", func(_ context.Context, tx *gorm.DB, a *unitAccount) error {
			return tx.Session(&gorm.Session{NewDB: true}).Create(a).Error
		}},
		{"tx.Session(PrepareStmt) twice", func(_ context.Context, tx *gorm.DB, a *unitAccount) error {
			prepared := &gorm.Session{PrepareStmt: true} // each wraps the transaction once more
			return tx.Session(prepared).Session(prepared).Create(a).Error
		}},
		{"nested Transaction on tx.WithContext", func(ctx context.Context, tx *gorm.DB, a *unitAccount) error {
			return gormtype.Transaction(ctx, tx.WithContext(ctx), func(tx *gorm.DB) error { return tx.Create(a).Error })
		}},
		{"goroutine on tx.WithContext", func(ctx context.Context, tx *gorm.DB, a *unitAccount) error {
			errc := make(chan error)
			go func() { errc <- tx.WithContext(ctx).Create(a).Error }()
			return <-errc
		}},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, way := range ways {
			for _, failure := range []string{"fn-error", "rerun", "retries-spent"} {
				t.Run(way.name+"/"+failure, func(t *testing.T) {
					src, db, taken := openUnitAccounts(t, d, "ctx_")
					switch failure {
					case "rerun": // a fresh, b taken; then both fresh
						src.next(0, taken.ID)
					case "retries-spent": // b taken in both attempts (Retries 1)
						src.next(0, taken.ID, 0, taken.ID)
					}
					ctx := context.WithValue(context.Background(), ctxKey{}, "caller")
					errBoom := errors.New("boom")
					a, b := unitAccount{Email: "a@x"}, unitAccount{Email: "b@x"}
					attempts := 0
					err := gormtype.Transaction(ctx, db, func(tx *gorm.DB) error {
						attempts++
						checkUnitUnset(t, fmt.Sprintf("start of attempt %d", attempts), &a, &b)
						if err := way.write(ctx, tx, &a); err != nil {
							return err
						}
						if failure == "fn-error" {
							return errBoom
						}
						return tx.Create(&b).Error
					})
					src.checkDrawn(t)
					switch failure {
					case "fn-error":
						if !errors.Is(err, errBoom) || attempts != 1 {
							t.Errorf("Transaction: %v after %d attempts; want fn's error after 1", err, attempts)
						}
					case "rerun":
						if err != nil || attempts != 2 {
							t.Fatalf("Transaction: %v after %d attempts; want nil after 2", err, attempts)
						}
						checkCount(t, db, 1, "ctx_unit_accounts", "email = 'a@x' AND id = ? AND trace = ?", a.ID, a.Trace)
						checkCount(t, db, 1, "ctx_unit_accounts", "email = 'b@x' AND id = ?", b.ID)
						checkCount(t, db, 3, "ctx_unit_accounts", "1 = 1")
						return
					case "retries-spent":
						checkRefused(t, err, gormtype.ErrKeyTaken, "ctx_unit_accounts")
						if attempts != 2 {
							t.Errorf("Transaction ran fn %d times; want 2 (Retries 1)", attempts)
						}
					}
					checkUnitUnset(t, "after the failed Transaction", &a, &b)
					checkCount(t, db, 1, "ctx_unit_accounts", "1 = 1")
				})
			}
		}
	})
}

// TestGormUnitNestedTransaction: a Transaction nested on tx retries its
// own collision in a savepoint; when the outer attempt then collides, the
// rerun starts with every key of the attempt unset, the nested one's too,
// and each row is stored once, under a fresh key.
func TestGormUnitNestedTransaction(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src, db, taken := openUnitAccounts(t, d, "nest_")
		// Outer attempt 1: before (fresh), inner a (taken, then fresh), b
		// (taken). Outer attempt 2: before, a, b fresh.
		src.next(0, taken.ID, 0, taken.ID)
		before, a, b := unitAccount{Email: "before@x"}, unitAccount{Email: "a@x"}, unitAccount{Email: "b@x"}
		attempts := 0
		err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
			attempts++
			checkUnitUnset(t, fmt.Sprintf("start of outer attempt %d", attempts), &before, &a, &b)
			if err := tx.Create(&before).Error; err != nil {
				return err
			}
			if err := gormtype.Transaction(tx.Statement.Context, tx, func(tx *gorm.DB) error { return tx.Create(&a).Error }); err != nil {
				return err
			}
			return tx.Create(&b).Error
		})
		if err != nil || attempts != 2 {
			t.Fatalf("Transaction: %v after %d outer attempts; want nil after 2", err, attempts)
		}
		src.checkDrawn(t)
		for _, r := range []unitAccount{before, a, b} {
			if r.ID == taken.ID {
				t.Errorf("%s kept the taken key", r.Email)
			}
			checkCount(t, db, 1, "nest_unit_accounts", "email = ? AND id = ? AND trace = ?", r.Email, r.ID, r.Trace)
		}
		checkCount(t, db, 4, "nest_unit_accounts", "1 = 1")
	})
}

// TestGormUnitGoroutinesOnTx: Creates run on tx from several goroutines
// belong to the attempt: when fn then fails, or a later Create collides,
// every key they filled is unset, before the rerun too.
func TestGormUnitGoroutinesOnTx(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, failure := range []string{"fn-error", "rerun"} {
			t.Run(failure, func(t *testing.T) {
				src, db, taken := openUnitAccounts(t, d, "go_")
				rows := make([]unitAccount, 8)
				for i := range rows {
					rows[i].Email = fmt.Sprintf("g%d@x", i)
				}
				last := unitAccount{Email: "last@x"}
				if failure == "rerun" { // the goroutines' keys fresh, last's taken; then all fresh
					src.next(0, 0, 0, 0, 0, 0, 0, 0, taken.ID)
				}
				errBoom := errors.New("boom")
				attempts := 0
				err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
					attempts++
					for i := range rows {
						checkUnitUnset(t, fmt.Sprintf("start of attempt %d", attempts), &rows[i])
					}
					errs := make([]error, len(rows))
					var wg sync.WaitGroup
					for i := range rows {
						wg.Go(func() { errs[i] = tx.Create(&rows[i]).Error })
					}
					wg.Wait()
					if err := errors.Join(errs...); err != nil {
						t.Errorf("a Create on a goroutine: %v", err)
						return err
					}
					if failure == "fn-error" {
						return errBoom
					}
					return tx.Create(&last).Error
				})
				src.checkDrawn(t)
				if failure == "fn-error" {
					if !errors.Is(err, errBoom) {
						t.Fatalf("Transaction: %v; want fn's error", err)
					}
					for i := range rows {
						checkUnitUnset(t, "after the failed Transaction", &rows[i])
					}
					checkCount(t, db, 1, "go_unit_accounts", "1 = 1")
					return
				}
				if err != nil || attempts != 2 {
					t.Fatalf("Transaction: %v after %d attempts; want nil after 2", err, attempts)
				}
				for _, r := range append(rows, last) {
					checkCount(t, db, 1, "go_unit_accounts", "email = ? AND id = ? AND trace = ?", r.Email, r.ID, r.Trace)
				}
				checkCount(t, db, 1+int64(len(rows))+1, "go_unit_accounts", "1 = 1")
			})
		}
	})
}

// unitHookedRow's BeforeCreate writes two audit rows when it has them: one
// through gormtype.Transaction on the hook's tx, one through the hook's tx.
type unitHookedRow struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50;uniqueIndex"`
	Audit *unitAudit    `gorm:"-"`
	Note  *unitAudit    `gorm:"-"`
}

func (h *unitHookedRow) BeforeCreate(tx *gorm.DB) error {
	if h.Audit == nil {
		return nil
	}
	if err := gormtype.Transaction(tx.Statement.Context, tx, func(tx *gorm.DB) error { return tx.Create(h.Audit).Error }); err != nil {
		return err
	}
	return tx.Create(h.Note).Error
}

type unitAudit struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Note string        `gorm:"size:50"`
}

// TestGormUnitHookWritesInPlainCreate: a plain Create in GORM's own
// transaction whose INSERT fails after its BeforeCreate hook wrote rows
// (through gormtype.Transaction on the hook's tx, and through the hook's
// tx) unsets their keys with the rollback, as gormtype.Transaction does,
// whether its name or its fresh key was taken. gormtype.Transaction reruns
// the Create whose key was taken, and the hook's rows are stored once.
func TestGormUnitHookWritesInPlainCreate(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, mode := range []string{"plain", "gormtype.Transaction"} {
			for _, taken := range []string{"name", "key"} {
				t.Run(mode+"/"+taken, func(t *testing.T) {
					src := &takenFirst{}
					db := openUnitDB(t, d, "hook_", &gorm.Config{}, src.plugin(0))
					resetTables(t, db, &unitHookedRow{}, &unitAudit{})
					first := unitHookedRow{Name: "dup"}
					mustCreate(t, db, &first) // no audits: the hook writes nothing
					h := unitHookedRow{Name: "dup", Audit: &unitAudit{Note: "via Transaction"}, Note: &unitAudit{Note: "via hook tx"}}
					if taken == "key" {
						h.Name = "new"
						src.next(first.ID)
					}
					var err error
					if mode == "plain" {
						err = db.Create(&h).Error
					} else {
						err = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error { return tx.Create(&h).Error })
					}
					src.checkDrawn(t)
					if taken == "key" && mode != "plain" {
						if err != nil {
							t.Fatalf("Transaction of a Create whose key was taken: %v", err)
						}
						checkNamed(t, db, "hook_unit_hooked_rows", h.ID, "new")
						checkCount(t, db, 1, "hook_unit_audits", "id = ? AND note = 'via Transaction'", h.Audit.ID)
						checkCount(t, db, 1, "hook_unit_audits", "id = ? AND note = 'via hook tx'", h.Note.ID)
						checkCount(t, db, 2, "hook_unit_audits", "1 = 1")
						return
					}
					if taken == "key" {
						checkRefused(t, err, gormtype.ErrKeyTaken, "hook_unit_hooked_rows")
					} else if !isUniqueViolation(err) {
						t.Fatalf("Create with a taken name: %v; want the unique violation", err)
					}
					checkCount(t, db, 0, "hook_unit_audits", "1 = 1")
					checkCount(t, db, 1, "hook_unit_hooked_rows", "1 = 1")
					for what, id := range map[string]gormtype.HUID{"hooked row": h.ID, "Audit (Transaction in the hook)": h.Audit.ID, "Note (hook's tx)": h.Note.ID} {
						if !id.IsZero() {
							t.Errorf("%s holds key %s after the failed Create rolled it back; want zero", what, id)
						}
					}
				})
			}
		}
	})
}

// TestGormUnitDisableNestedTransaction: in a caller's transaction with
// DisableNestedTransaction, where no savepoint could undo a failed attempt,
// Transaction returns ErrSetup naming the setting and runs nothing; the
// caller's transaction goes on. Outside a transaction it runs and retries.
func TestGormUnitDisableNestedTransaction(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := openUnitDB(t, d, "dnt_", &gorm.Config{DisableNestedTransaction: true, DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &unitOwner{}, &unitPet{}, &unitToy{})
		victim := unitToy{ID: gormtype.NewHUID(), PetID: gormtype.NewHUID(), Name: "victim"}
		mustCreate(t, db, &victim)

		calls := 0
		inCaller := unitPet{Name: "in-caller", Toys: []unitToy{{Name: "t"}}}
		after := unitOwner{Name: "after"}
		err := db.Transaction(func(tx *gorm.DB) error {
			err := gormtype.Transaction(context.Background(), tx, func(tx *gorm.DB) error {
				calls++
				return tx.Create(&inCaller).Error
			})
			checkRefused(t, err, gormtype.ErrSetup, "DisableNestedTransaction")
			return tx.Create(&after).Error
		})
		if err != nil {
			t.Fatalf("the caller's transaction: %v", err)
		}
		if calls != 0 {
			t.Errorf("fn ran %d times; want none", calls)
		}
		checkHeldKey(t, db, "refused pet", "dnt_unit_pets", inCaller.ID, "in-caller")
		checkNamed(t, db, "dnt_unit_owners", after.ID, "after")

		src.next(0, victim.ID) // the pet's key fresh, its toy's taken
		alone := unitPet{Name: "alone", Toys: []unitToy{{Name: "t"}}}
		err = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error { return tx.Create(&alone).Error })
		if err != nil {
			t.Fatalf("Transaction outside a transaction: %v", err)
		}
		src.checkDrawn(t)
		checkNamed(t, db, "dnt_unit_pets", alone.ID, "alone")
		checkCount(t, db, 1, "dnt_unit_toys", "id = ? AND pet_id = ?", alone.Toys[0].ID, alone.ID)
		checkCount(t, db, 2, "dnt_unit_toys", "1 = 1")
	})
}

// unitOwner, unitPet and unitToy are a tree: a pet belongs to an owner and
// has many toys; pets have unique names.
type unitOwner struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

type unitPet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50;uniqueIndex"`
	OwnerID *gormtype.HUID
	Owner   *unitOwner
	Toys    []unitToy `gorm:"foreignKey:PetID"`
}

type unitToy struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	PetID gormtype.HUID
	Name  string `gorm:"size:50"`
}

// unitPost and unitTag are a many2many.
type unitPost struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
	Tags []unitTag     `gorm:"many2many:unit_post_tags"`
}

type unitTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

// unitSeedKey is the key of a pet seeded under a name a test then takes;
// checkHeldKey leaves it out.
var unitSeedKey = gormtype.NewHUID()

// checkHeldKey checks a struct against its table: its key is set exactly
// when a row named name is stored, and then that row holds it.
func checkHeldKey(t *testing.T, db *gorm.DB, step, table string, id gormtype.HUID, name string) {
	t.Helper()
	n := countRows(t, db, table, "name = ? AND id <> ?", name, unitSeedKey)
	switch {
	case id.IsZero() && n != 0:
		t.Errorf("%s: %s %q is stored %d times, but its struct's key is zero", step, table, name, n)
	case !id.IsZero() && countRows(t, db, table, "id = ? AND name = ?", id, name) != 1:
		t.Errorf("%s: %s %q holds key %s, which no row of that name has (%d rows of that name)", step, table, name, id, n)
	}
}

// treeModes are the transactions a tree's Create runs in: GORM's own,
// none (SkipDefaultTransaction), and a caller's that commits after the
// Create failed.
var treeModes = []string{"gorm-tx", "skip", "caller-tx"}

// runTreeMode runs create on db in mode's transaction and returns its error.
func runTreeMode(db *gorm.DB, mode string, create func(tx *gorm.DB) error) error {
	if mode != "caller-tx" {
		return create(db)
	}
	var err error
	_ = db.Transaction(func(tx *gorm.DB) error { err = create(tx); return nil })
	return err
}

// openTree opens d with AutoID drawing from a takenFirst source, in mode's
// configuration, and makes the tables of the tree with prefix.
func openTree(t *testing.T, d gormDialect, prefix, mode string) (*takenFirst, *gorm.DB) {
	t.Helper()
	src := &takenFirst{}
	db := openUnitDB(t, d, prefix, &gorm.Config{SkipDefaultTransaction: mode == "skip", DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
	resetTables(t, db, &unitOwner{}, &unitPet{}, &unitToy{}, &unitPost{}, &unitTag{})
	return src, db
}

// checkedTree reports whether a tree's keys can be checked against its
// rows after a failed Create in mode: a failed statement aborts a caller's
// PostgreSQL transaction, whose commit then stores nothing, while the rows
// written before keep their keys (docs/gorm.md).
func checkedTree(d gormDialect, mode string) bool {
	return !(mode == "caller-tx" && d.name == "postgres")
}

// TestGormUnitTreeBelongsTo: when a pet's INSERT fails (a taken name, or
// its fresh key taken) after its belongs-to owner was stored, each key is
// set exactly when its row is stored: in GORM's transaction both are
// unset, without one or in a caller's that commits the owner keeps its.
func TestGormUnitTreeBelongsTo(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, mode := range treeModes {
			for _, failure := range []string{"name", "key"} {
				t.Run(mode+"/"+failure, func(t *testing.T) {
					src, db := openTree(t, d, "bt_", mode)
					mustExecArgs(t, db, "INSERT INTO bt_unit_pets (id, name, owner_id) VALUES (?, 'dup', ?)", unitSeedKey, gormtype.NewHUID())
					p := unitPet{Name: "dup", Owner: &unitOwner{Name: "o"}}
					if failure == "key" {
						p.Name = "mine"
						src.next(unitSeedKey) // the pet's key (filled first), then the owner's fresh
					}
					err := runTreeMode(db, mode, func(tx *gorm.DB) error { return tx.Create(&p).Error })
					src.checkDrawn(t)
					if failure == "key" {
						checkRefused(t, err, gormtype.ErrKeyTaken, "bt_unit_pets")
					} else if !isUniqueViolation(err) {
						t.Errorf("Create with a taken name: %v; want the unique violation", err)
					}
					if !checkedTree(d, mode) {
						return
					}
					checkHeldKey(t, db, "pet", "bt_unit_pets", p.ID, p.Name)
					checkHeldKey(t, db, "owner", "bt_unit_owners", p.Owner.ID, "o")
				})
			}
		}
	})
}

// TestGormUnitTreeHasManyMany2Many: when the fresh key of a pet's second
// toy, or of a post's second tag, is taken, the Create fails with
// ErrKeyTaken and each key of the tree is set exactly when its row is
// stored; in GORM's transaction no join row stays.
func TestGormUnitTreeHasManyMany2Many(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, mode := range treeModes {
			t.Run(mode, func(t *testing.T) {
				src, db := openTree(t, d, "hm_", mode)
				victimToy := unitToy{ID: gormtype.NewHUID(), PetID: gormtype.NewHUID(), Name: "victim"}
				victimTag := unitTag{ID: gormtype.NewHUID(), Name: "victim"}
				mustCreate(t, db, &victimToy)
				mustCreate(t, db, &victimTag)

				src.next(0, 0, 0, victimToy.ID) // pet, owner, toy 1, toy 2 (taken)
				p := unitPet{Name: "p", Owner: &unitOwner{Name: "o"}, Toys: []unitToy{{Name: "t1"}, {Name: "t2"}}}
				err := runTreeMode(db, mode, func(tx *gorm.DB) error { return tx.Create(&p).Error })
				src.checkDrawn(t)
				checkRefused(t, err, gormtype.ErrKeyTaken, "hm_unit_toys")
				if checkedTree(d, mode) {
					checkHeldKey(t, db, "has-many pet", "hm_unit_pets", p.ID, "p")
					checkHeldKey(t, db, "has-many owner", "hm_unit_owners", p.Owner.ID, "o")
					for _, toy := range p.Toys {
						checkHeldKey(t, db, "has-many toy", "hm_unit_toys", toy.ID, toy.Name)
					}
				}

				src.next(0, 0, victimTag.ID) // post, tag 1, tag 2 (taken)
				post := unitPost{Name: "post", Tags: []unitTag{{Name: "g1"}, {Name: "g2"}}}
				err = runTreeMode(db, mode, func(tx *gorm.DB) error { return tx.Create(&post).Error })
				src.checkDrawn(t)
				checkRefused(t, err, gormtype.ErrKeyTaken, "hm_unit_tags")
				if checkedTree(d, mode) {
					checkHeldKey(t, db, "many2many post", "hm_unit_posts", post.ID, "post")
					for _, tag := range post.Tags {
						checkHeldKey(t, db, "many2many tag", "hm_unit_tags", tag.ID, tag.Name)
					}
				}
				if mode == "gorm-tx" {
					checkCount(t, db, 0, "hm_unit_post_tags", "1 = 1")
				}
			})
		}
	})
}

// TestGormUnitTreeSaveFirstOrCreate: the Creates that Save and
// FirstOrCreate make leave each key set exactly when its row is stored:
// a Save of a new pet whose toy collides, a Save of new rows (stored or
// refused), a FirstOrCreate whose key is taken; in Transaction a
// FirstOrCreate is rerun with a fresh key, and fails with ErrKeyTaken
// when every attempt's key is taken.
func TestGormUnitTreeSaveFirstOrCreate(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src, db := openTree(t, d, "sfc_", "gorm-tx")
		victimToy := unitToy{ID: gormtype.NewHUID(), PetID: gormtype.NewHUID(), Name: "victim"}
		mustCreate(t, db, &victimToy)
		victimOwner := unitOwner{ID: gormtype.NewHUID(), Name: "victim"}
		mustCreate(t, db, &victimOwner)

		src.next(0, victimToy.ID) // the pet's key fresh, its toy's taken
		p := unitPet{Name: "saved", Toys: []unitToy{{Name: "st"}}}
		checkRefused(t, db.Save(&p).Error, gormtype.ErrKeyTaken, "sfc_unit_toys")
		src.checkDrawn(t)
		checkHeldKey(t, db, "Save of a new pet", "sfc_unit_pets", p.ID, "saved")
		checkHeldKey(t, db, "Save of a new pet", "sfc_unit_toys", p.Toys[0].ID, "st")

		rows := []unitOwner{{Name: "s1"}, {Name: "s2"}}
		if err := db.Save(&rows).Error; err != nil && !errors.Is(err, gormtype.ErrRefused) {
			t.Errorf("Save of a slice of new rows: %v; want it stored or ErrRefused", err)
		}
		for _, r := range rows {
			checkHeldKey(t, db, "Save of new rows", "sfc_unit_owners", r.ID, r.Name)
		}

		src.next(victimOwner.ID)
		o := unitOwner{}
		checkRefused(t, db.Where(unitOwner{Name: "foc"}).FirstOrCreate(&o).Error, gormtype.ErrKeyTaken, "sfc_unit_owners")
		src.checkDrawn(t)
		checkHeldKey(t, db, "FirstOrCreate", "sfc_unit_owners", o.ID, "foc")

		for _, every := range []bool{false, true} {
			t.Run(fmt.Sprintf("Transaction/taken-every-attempt=%v", every), func(t *testing.T) {
				name := fmt.Sprintf("foc-every-%v", every)
				attempts := 0
				o := unitOwner{}
				err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
					attempts++
					if attempts == 1 || every {
						src.next(victimOwner.ID)
					}
					o = unitOwner{}
					return tx.Where(unitOwner{Name: name}).FirstOrCreate(&o).Error
				})
				src.checkDrawn(t)
				if every {
					checkRefused(t, err, gormtype.ErrKeyTaken, "sfc_unit_owners")
					if attempts != gormtype.DefaultRetries+1 {
						t.Errorf("fn ran %d times; want %d", attempts, gormtype.DefaultRetries+1)
					}
				} else if err != nil || attempts != 2 {
					t.Errorf("Transaction: %v after %d attempts; want nil after 2", err, attempts)
				}
				checkHeldKey(t, db, "FirstOrCreate in Transaction", "sfc_unit_owners", o.ID, name)
				checkNamed(t, db, "sfc_unit_owners", victimOwner.ID, "victim")
			})
		}
	})
}

// TestGormUnitUpdateLinkEnds: an Update ends its statement's link, so a
// Create on the same GORM chain afterwards is checked as a Create of its
// own, not let through as the save of an association: the forms AutoID
// refuses on a fresh chain are refused on the reused one too.
func TestGormUnitUpdateLinkEnds(t *testing.T) {
	t.Parallel()
	forms := []struct {
		name  string
		apply func(q *gorm.DB) *gorm.DB
	}{
		{"OnConflictDoNothing", func(q *gorm.DB) *gorm.DB {
			return q.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoNothing: true})
		}},
		{"OmitKey", func(q *gorm.DB) *gorm.DB { return q.Omit("id") }},
		{"InsertModifier", func(q *gorm.DB) *gorm.DB { return q.Clauses(clause.Insert{Modifier: "IGNORE"}) }},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		_, db, _ := openUnitAccounts(t, d, "upd_")
		for _, form := range forms {
			for _, reused := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/after-Update=%v", form.name, reused), func(t *testing.T) {
					q := db.Model(&unitAccount{}).Where("email = ?", "nobody@x")
					if reused {
						if err := q.Update("email", "still-nobody@x").Error; err != nil {
							t.Fatalf("Update: %v", err)
						}
					}
					row := unitAccount{Email: "new@x"}
					checkRefused(t, form.apply(q).Create(&row).Error, gormtype.ErrRefused, "upd_unit_accounts")
					checkUnitUnset(t, "refused Create", &row)
					checkCount(t, db, 0, "upd_unit_accounts", "email = 'new@x'")
				})
			}
		}
		checkCount(t, db, 1, "upd_unit_accounts", "1 = 1")
	})
}

// TestGormUnitMyISAMJoinTable: on MariaDB, a collision in a Transaction
// after GORM wrote a many2many's join rows into a MyISAM or Aria table is
// refused with ErrRefused naming the join table and InnoDB, not rerun: the
// join table holds the one row of the attempt, with the keys the structs
// hold. With InnoDB the attempt is rerun; without a collision MyISAM
// works.
func TestGormUnitMyISAMJoinTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		engine  string
		collide bool
	}{
		{"InnoDB", true},
		{"MyISAM", true},
		{"Aria", true},
		{"MyISAM", false},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/collide=%v", c.engine, c.collide), func(t *testing.T) {
				src := &takenFirst{}
				db := openUnitDB(t, d, "join_", &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
				resetTables(t, db, &unitPost{}, &unitTag{})
				mustExec(t, db, "ALTER TABLE join_unit_post_tags ENGINE="+c.engine)
				victim := unitTag{ID: gormtype.NewHUID(), Name: "victim"}
				mustCreate(t, db, &victim)
				if c.collide {
					src.next(0, 0, victim.ID) // post, its tag, then the second Create's tag
				}
				p := unitPost{Name: "p", Tags: []unitTag{{Name: "t"}}}
				other := unitTag{Name: "other"}
				attempts := 0
				err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
					attempts++
					if err := tx.Create(&p).Error; err != nil {
						return err
					}
					return tx.Create(&other).Error
				})
				src.checkDrawn(t)
				checkCount(t, db, 1, "join_unit_post_tags", "1 = 1")
				checkCount(t, db, 1, "join_unit_post_tags", "unit_post_id = ? AND unit_tag_id = ?", p.ID, p.Tags[0].ID)
				if c.engine != "InnoDB" && c.collide {
					checkRefused(t, err, gormtype.ErrRefused, "join_unit_post_tags", "InnoDB")
					if errors.Is(err, gormtype.ErrKeyTaken) {
						t.Errorf("%v wraps ErrKeyTaken, which invites a rerun", err)
					}
					if attempts != 1 {
						t.Errorf("fn ran %d times; want once", attempts)
					}
					if !other.ID.IsZero() {
						t.Errorf("the colliding tag holds key %s; want zero", other.ID)
					}
					return
				}
				if err != nil {
					t.Fatalf("Transaction: %v", err)
				}
				if want := map[bool]int{false: 1, true: 2}[c.collide]; attempts != want {
					t.Errorf("fn ran %d times; want %d", attempts, want)
				}
				checkNamed(t, db, "join_unit_posts", p.ID, "p")
				checkNamed(t, db, "join_unit_tags", p.Tags[0].ID, "t")
				checkNamed(t, db, "join_unit_tags", other.ID, "other")
				checkCount(t, db, 3, "join_unit_tags", "1 = 1")
			})
		}
	}, "mysql")
}

// TestGormUnitRefuseUnreadableEngine: on MariaDB, a collision in a
// Transaction after a row was written through a view over a MyISAM table,
// or into a temporary MyISAM table, is refused with ErrRefused naming the
// table and InnoDB, not rerun: the row is stored once, with the key its
// struct holds.
func TestGormUnitRefuseUnreadableEngine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		setup        []string
		table, count string // written to, and where its rows are read
	}{
		{"view over MyISAM", []string{
			"CREATE TABLE unit_view_base (id bigint PRIMARY KEY, name varchar(50)) ENGINE=MyISAM",
			"CREATE VIEW unit_view AS SELECT id, name FROM unit_view_base",
		}, "unit_view", "unit_view_base"},
		{"temporary MyISAM", []string{
			"CREATE TEMPORARY TABLE unit_temporary (id bigint PRIMARY KEY, name varchar(50)) ENGINE=MyISAM",
		}, "unit_temporary", "unit_temporary"},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				src := &takenFirst{}
				db := d.open(t, &gorm.Config{}, src.plugin(0))
				sqlDB, err := db.DB()
				if err != nil {
					t.Fatal(err)
				}
				sqlDB.SetMaxOpenConns(1) // a temporary table lives on one connection
				mustExec(t, db, c.setup...)
				mustExec(t, db, "CREATE TABLE unit_engine_inno (id bigint PRIMARY KEY, name varchar(50)) ENGINE=InnoDB")
				victim := gormtype.NewHUID()
				mustExecArgs(t, db, "INSERT INTO unit_engine_inno (id, name) VALUES (?, 'victim')", victim)
				src.next(0, victim) // a fresh, b taken
				a, b := tableRow{Name: "a"}, tableRow{Name: "b"}
				attempts := 0
				err = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
					attempts++
					if err := tx.Table(c.table).Create(&a).Error; err != nil {
						return err
					}
					return tx.Table("unit_engine_inno").Create(&b).Error
				})
				src.checkDrawn(t)
				checkRefused(t, err, gormtype.ErrRefused, c.table, "InnoDB")
				if errors.Is(err, gormtype.ErrKeyTaken) {
					t.Errorf("%v wraps ErrKeyTaken, which invites a rerun", err)
				}
				if attempts != 1 {
					t.Errorf("fn ran %d times; want once", attempts)
				}
				checkCount(t, db, 1, c.count, "1 = 1")
				checkNamed(t, db, c.count, a.ID, "a")
				if !b.ID.IsZero() {
					t.Errorf("the colliding row holds key %s; want zero", b.ID)
				}
				checkNamed(t, db, "unit_engine_inno", victim, "victim")
				checkCount(t, db, 1, "unit_engine_inno", "1 = 1")
			})
		}
	}, "mysql")
}

// TestGormUnitPanicInFn: when fn panics after a Create, the transaction is
// rolled back, the fields AutoID filled are unset, and the panic reaches
// the caller.
func TestGormUnitPanicInFn(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		_, db, _ := openUnitAccounts(t, d, "panic_")
		a := unitAccount{Email: "a@x"}
		recovered := func() (p any) {
			defer func() { p = recover() }()
			_ = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
				if err := tx.Create(&a).Error; err != nil {
					return err
				}
				panic("boom")
			})
			return nil
		}()
		if recovered != "boom" {
			t.Errorf("recovered %v; want fn's panic", recovered)
		}
		checkUnitUnset(t, "after the panic", &a)
		checkCount(t, db, 1, "panic_unit_accounts", "1 = 1")
	})
}

// TestGormUnitMyISAMUpdateDelete: on MariaDB, a collision in a Transaction
// after an Update or a Delete wrote to a MyISAM table is refused with
// ErrRefused naming the table and InnoDB, not rerun: the write is done
// once. With InnoDB the attempt is rerun.
func TestGormUnitMyISAMUpdateDelete(t *testing.T) {
	t.Parallel()
	writes := map[string]func(tx *gorm.DB) error{
		"Update": func(tx *gorm.DB) error {
			return tx.Table("unit_counters").Where("id = 1").Update("n", gorm.Expr("n + 1")).Error
		},
		"Delete": func(tx *gorm.DB) error {
			return tx.Table("unit_counters").Where("n < 0 OR id = 2").Delete(&struct{}{}).Error
		},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for name, write := range writes {
			for _, engine := range []string{"MyISAM", "InnoDB"} {
				t.Run(name+"/"+engine, func(t *testing.T) {
					src := &takenFirst{}
					db := d.open(t, &gorm.Config{}, src.plugin(0))
					mustExec(t, db, "CREATE TABLE unit_counters (id int PRIMARY KEY, n int) ENGINE="+engine,
						"INSERT INTO unit_counters VALUES (1, 0), (2, 0)",
						"CREATE TABLE unit_engine_inno (id bigint PRIMARY KEY, name varchar(50)) ENGINE=InnoDB")
					victim := gormtype.NewHUID()
					mustExecArgs(t, db, "INSERT INTO unit_engine_inno (id, name) VALUES (?, 'victim')", victim)
					src.next(victim)
					b, attempts := tableRow{Name: "b"}, 0
					err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
						attempts++
						if err := write(tx); err != nil {
							return err
						}
						return tx.Table("unit_engine_inno").Create(&b).Error
					})
					src.checkDrawn(t)
					if engine == "MyISAM" {
						checkRefused(t, err, gormtype.ErrRefused, "unit_counters", "InnoDB")
						if attempts != 1 || !b.ID.IsZero() {
							t.Errorf("fn ran %d times, the row holds key %s; want once, zero", attempts, b.ID)
						}
					} else if err != nil || attempts != 2 {
						t.Errorf("Transaction: %v after %d attempts; want nil after 2", err, attempts)
					}
					checkCount(t, db, 1, "unit_counters", map[string]string{"Update": "n = 1", "Delete": "1 = 1"}[name])
				})
			}
		}
	}, "mysql")
}
