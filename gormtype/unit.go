package gormtype

import (
	"slices"
	"sync"

	"gorm.io/gorm"
)

// unit is what AutoID filled, and where rows were written, in work that
// one rollback undoes: a Transaction attempt, or a Create in the
// transaction GORM opened for it. It is safe for concurrent use.
type unit struct {
	mu      sync.Mutex
	list    []*filled
	written []string // the tables of the Creates that wrote rows
	kept    bool     // rows stay stored on a rollback: fields keep their IDs
	parent  *unit    // an enclosing unit, which gets everything too
}

// record adds a fill, a table written to or kept rows to u and its parents.
func (u *unit) record(f *filled, table string, kept bool) {
	for ; u != nil; u = u.parent {
		u.mu.Lock()
		if f != nil {
			u.list = append(u.list, f)
		}
		if table != "" && !slices.Contains(u.written, table) {
			u.written = append(u.written, table)
		}
		u.kept = u.kept || kept
		u.mu.Unlock()
	}
}

// reset unsets every field filled in the unit, unless its rows stay.
func (u *unit) reset() {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, f := range u.list {
		if !u.kept {
			f.reset()
		}
	}
}

// tables returns the tables written to in the outermost unit.
func (u *unit) tables() []string {
	for u != nil && u.parent != nil {
		u = u.parent
	}
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.written)
}

// units maps a transaction's connection to its unit: hooks and the
// Creates saving associations write on it too.
var units sync.Map

// connKey is the transaction under GORM's prepared-statement wrappers,
// which a Session(PrepareStmt) on a prepared tx stacks.
func connKey(pool gorm.ConnPool) gorm.ConnPool {
	for {
		p, ok := pool.(*gorm.PreparedStmtTX)
		if !ok {
			return pool
		}
		pool = p.Tx
	}
}

func unitOf(pool gorm.ConnPool) *unit {
	u, _ := units.Load(connKey(pool))
	v, _ := u.(*unit)
	return v
}

// enter starts a unit for the transaction on pool, inside the one there
// was (a savepoint's); leave restores that.
func enter(pool gorm.ConnPool) (u *unit, leave func()) {
	key, u := connKey(pool), &unit{}
	if prev, had := units.Swap(key, u); had {
		u.parent = prev.(*unit)
		return u, func() { units.Store(key, prev) }
	}
	return u, func() { units.Delete(key) }
}

// link is a statement's, handed on with GORM's settings to the Creates
// that save its associations, which see that it still runs (open).
type link struct {
	own   *filled // what AutoID filled in the statement
	unit  *unit   // where its fills and writes are recorded, if any
	leave func()  // ends the unit of the transaction GORM opened for it
	open  bool
}

const linkKey = "sortid:link"

// openLink starts the link of the statement db runs, and in a transaction
// GORM opened for it the unit that its rollback undoes.
func openLink(db *gorm.DB) *link {
	l := &link{unit: unitOf(db.Statement.ConnPool), open: true}
	if _, own := db.InstanceGet("gorm:started_transaction"); own {
		l.unit, l.leave = enter(db.Statement.ConnPool)
	}
	db.Set(linkKey, l)
	return l
}

// close ends the statement; when it failed in its own transaction, the
// fields filled in that transaction are unset.
func (l *link) close(err error) {
	l.open = false
	if l.leave != nil {
		l.leave()
		if err != nil {
			l.unit.reset()
		}
	}
}

func linkOf(db *gorm.DB) *link {
	v, _ := db.Get(linkKey)
	l, _ := v.(*link)
	return l
}
