package gormtype

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/pgretry"
)

// checkStatement returns [ErrRefused] for a Create whose fresh values
// could make it update or skip another row, or leave a filled field out.
// It removes GORM's own association upsert (all rows are new), holds back
// a MySQL upsert of one row for the plain INSERT tried first, and makes a
// PostgreSQL or SQLite upsert return the key of the row it stored.
func (p *plugin) checkStatement(db *gorm.DB, st *createState) error {
	stmt := db.Statement
	selected, restricted := map[string]bool{}, false
	if len(stmt.Selects)+len(stmt.Omits) > 0 {
		selected, restricted = stmt.SelectAndOmitColumns(true, false)
	}
	for _, c := range st.columns {
		if v, ok := selected[c.name]; ok && !v || !ok && restricted {
			return refusal(stmt, st, "Select or Omit leaves "+c.name+" out, so the struct would hold a key no row has",
				"include it, or declare the database default in the model (gorm:\"default:huid_generate()\")")
		}
	}
	if in, _ := stmt.Clauses["INSERT"].Expression.(clause.Insert); in.Modifier != "" {
		return refusal(stmt, st, "INSERT "+in.Modifier+" would skip or replace the row that holds a taken key", setKeys)
	}
	c, ok := stmt.Clauses["ON CONFLICT"]
	if !ok {
		return nil
	}
	if st.assoc {
		delete(stmt.Clauses, "ON CONFLICT")
		return nil
	}
	oc, isOnConflict := c.Expression.(clause.OnConflict)
	switch dialect := db.Dialector.Name(); {
	case !isOnConflict:
		return refusal(stmt, st, fmt.Sprintf("AutoID cannot read the upsert clause %T", c.Expression), setKeys)
	case oc.UpdateAll && slices.ContainsFunc(st.columns, func(c filledColumn) bool { return !isKey(stmt, c.name) }),
		slices.ContainsFunc(oc.DoUpdates, func(a clause.Assignment) bool { return st.filled(a.Column) }):
		return refusal(stmt, st, "the upsert would give the row it updates a fresh value", "list the columns to update without it in DoUpdates, or "+setKeys)
	case dialect == dialectMySQL:
		if st.rows > 1 {
			return refusal(stmt, st, "ON DUPLICATE KEY UPDATE fires on every unique key, the primary key included, and AutoID tries it plainly first for one row only",
				"create such rows one at a time, or "+setKeys)
		}
		st.upsert = &c
		delete(stmt.Clauses, "ON CONFLICT")
	case dialect != dialectPostgres && dialect != dialectSQLite:
		return refusal(stmt, st, "AutoID knows the upsert of PostgreSQL, MySQL and SQLite only", setKeys)
	case oc.DoNothing || oc.Where.Exprs != nil:
		return refusal(stmt, st, "DO NOTHING or DO UPDATE … WHERE may skip a row and leave its struct with a key no row has",
			"use DoUpdates, or "+setKeys)
	case oc.OnConstraint != "" || len(oc.Columns) == 0 || slices.ContainsFunc(oc.Columns, st.filled):
		return refusal(stmt, st, "its ON CONFLICT may fire on a fresh value (on a filled column, on no column, or ON CONSTRAINT)",
			"aim it at another unique column, or "+setKeys)
	default:
		returnKeys(stmt)
	}
	return nil
}

// isKey reports whether column is one of the statement's primary key.
func isKey(stmt *gorm.Statement, column string) bool {
	return slices.Contains(stmt.Schema.PrimaryFieldDBNames, column)
}

const setKeys = "set the keys yourself (gormtype.NewHUID(), NewSCRU128()) or give them a database default (gorm:\"default:huid_generate()\"), and AutoID leaves the statement alone"

func refusal(stmt *gorm.Statement, st *createState, why, fix string) error {
	var cols []string
	for _, c := range st.columns {
		cols = append(cols, c.name)
	}
	return fmt.Errorf("%w: a Create into %s with fresh %s: %s; %s", ErrRefused, tableName(stmt), strings.Join(cols, ", "), why, fix)
}

// filled reports whether AutoID filled column c in the statement.
func (st *createState) filled(c clause.Column) bool {
	return slices.ContainsFunc(st.columns, func(f filledColumn) bool { return strings.EqualFold(f.name, c.Name) })
}

// returnKeys makes the INSERT return the primary key, which GORM writes
// into the row: after an upsert that updated a row, that row's key. It
// keeps the columns GORM returns for database defaults.
func returnKeys(stmt *gorm.Statement) {
	var keys []clause.Column
	for _, name := range stmt.Schema.PrimaryFieldDBNames {
		keys = append(keys, clause.Column{Name: name})
	}
	if c, ok := stmt.Clauses["RETURNING"]; ok {
		r, _ := c.Expression.(clause.Returning)
		if len(r.Columns) == 0 {
			return // RETURNING *
		}
		if keys = slices.DeleteFunc(keys, func(k clause.Column) bool { return slices.Contains(r.Columns, k) }); len(keys) > 0 {
			stmt.AddClause(clause.Returning{Columns: keys})
		}
		return
	}
	for _, f := range stmt.Schema.FieldsWithDefaultDBValue {
		if f.Readable && !f.PrimaryKey {
			keys = append(keys, clause.Column{Name: f.DBName})
		}
	}
	stmt.AddClause(clause.Returning{Columns: keys})
}

// checkRetry returns [ErrRefused], wrapping err, when running the Create
// again could store a row twice: a MySQL table without transactions keeps
// the rows a failed multi-row INSERT wrote before the collision.
func (p *plugin) checkRetry(db *gorm.DB, st *createState, err error) error {
	if db.Dialector.Name() != dialectMySQL || st.rows == 1 {
		return nil
	}
	schemaName, table := tableOf(db.Statement)
	var transactions string
	q := aside(db).Raw(`SELECT e.transactions FROM information_schema.tables t
		JOIN information_schema.engines e ON e.engine = t.engine
		WHERE t.table_schema = COALESCE(NULLIF(?, ''), DATABASE()) AND t.table_name = ?`, schemaName, table).Scan(&transactions)
	if q.Error == nil && transactions == "YES" {
		return nil
	}
	return fmt.Errorf("%w: a fresh key of a %d-row INSERT into %s was taken, and AutoID cannot tell that the table's engine undid the rows written before it; use InnoDB, or insert one row at a time: %w",
		ErrRefused, st.rows, tableName(db.Statement), errors.Join(q.Error, err))
}

// hitsFilled reports whether err is a unique violation of a key that
// includes a column AutoID filled in every row of the statement (in a
// statement that mixes set and fresh values the error cannot say whose
// value was taken); known is false when err is no unique violation or
// does not say which key. cols are the key's columns.
func (p *plugin) hitsFilled(db *gorm.DB, st *createState, err error) (cols []string, hit, known bool) {
	if !isDuplicate(db, err) {
		return nil, false, false
	}
	cols, known = violatedColumns(db, err)
	hit = slices.ContainsFunc(st.columns, func(f filledColumn) bool {
		return len(f.ptrs) == st.rows && slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, f.name) })
	})
	return cols, hit, known
}

// isDuplicate reports whether err is a unique violation, on PostgreSQL also
// in the forms Citus passes on from a shard (see pgretry.IsUniqueViolation).
func isDuplicate(db *gorm.DB, err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	if db.Dialector.Name() == dialectPostgres && pgretry.IsUniqueViolation(err) {
		return true
	}
	t, ok := db.Dialector.(gorm.ErrorTranslator)
	return ok && errors.Is(t.Translate(err), gorm.ErrDuplicatedKey)
}

// violatedColumns returns the columns of the unique key a driver's error
// names: on PostgreSQL from the error's detail (pgretry.KeyColumns), the
// same on a partition or a Citus shard; elsewhere by looking the key up in
// the statement's database.
func violatedColumns(db *gorm.DB, err error) ([]string, bool) {
	var cols []string
	tx := aside(db)
	switch db.Dialector.Name() {
	case dialectPostgres:
		key := pgretry.KeyColumns(err)
		for c := range strings.SplitSeq(key, ", ") {
			if unquoted, ok := strings.CutPrefix(c, `"`); ok {
				c = strings.ReplaceAll(strings.TrimSuffix(unquoted, `"`), `""`, `"`)
			}
			cols = append(cols, c)
		}
		return cols, key != ""
	case dialectMySQL:
		msg := err.Error()
		i := strings.LastIndex(msg, " for key '")
		if i < 0 || !strings.HasSuffix(msg, "'") {
			return nil, false
		}
		index := msg[i+len(" for key '") : len(msg)-1]
		index = index[strings.LastIndexByte(index, '.')+1:] // MySQL 8 writes table.key
		schemaName, table := tableOf(db.Statement)
		tx = tx.Raw(`SELECT column_name FROM information_schema.statistics
			WHERE table_schema = COALESCE(NULLIF(?, ''), DATABASE()) AND table_name = ? AND index_name = ?`, schemaName, table, index)
	case dialectSQLite:
		const prefix = "UNIQUE constraint failed: "
		_, list, ok := strings.Cut(err.Error(), prefix)
		list, _, _ = strings.Cut(list, " (")
		for _, c := range strings.Split(list, ", ") {
			cols = append(cols, c[strings.LastIndexByte(c, '.')+1:])
		}
		return cols, ok
	default:
		return nil, false
	}
	if err := tx.Scan(&cols).Error; err != nil || len(cols) == 0 {
		return nil, false
	}
	return cols, true
}

// tableOf returns the schema (MySQL: database; "" for the connection's
// own) and the name of the statement's table. GORM keeps a qualifier only
// in TableExpr.
func tableOf(stmt *gorm.Statement) (schemaName, table string) {
	name := stmt.Table
	if e := stmt.TableExpr; e != nil && len(e.Vars) == 0 && e.SQL != "" {
		name = strings.NewReplacer("`", "", `"`, "").Replace(strings.Fields(e.SQL)[0]) // "t AS a"
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// tableName is the statement's table for messages, schema included.
func tableName(stmt *gorm.Statement) string {
	schemaName, table := tableOf(stmt)
	return strings.TrimPrefix(schemaName+"."+table, ".")
}

// readBackKey sets the row's primary key to that of the row a MySQL upsert
// met on the unique key cols, which MySQL cannot return.
func readBackKey(db *gorm.DB, cols []string) error {
	stmt := db.Statement
	where := map[string]any{}
	var row reflect.Value
	eachRow(stmt.ReflectValue, func(r reflect.Value) { row = r })
	for _, c := range cols {
		f := stmt.Schema.LookUpField(c)
		if f == nil {
			return fmt.Errorf("gormtype: read back the key of the upserted row: %s has no field for column %s", stmt.Schema.Name, c)
		}
		where[c], _ = f.ValueOf(stmt.Context, row)
	}
	stored := reflect.New(stmt.Schema.ModelType)
	err := aside(db).Unscoped().Table(tableName(stmt)).Select(stmt.Schema.PrimaryFieldDBNames).Where(where).Take(stored.Interface()).Error
	if err != nil {
		return fmt.Errorf("gormtype: read back the key of the upserted row: %w", err)
	}
	for _, f := range stmt.Schema.PrimaryFields {
		v, _ := f.ValueOf(stmt.Context, stored.Elem())
		if err := f.Set(stmt.Context, row, v); err != nil {
			return err
		}
	}
	return nil
}
