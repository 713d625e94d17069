package gormtype

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"gorm.io/gorm"

	"github.com/sortid/sortid/pgretry"
)

// takenKey reports whether err is a unique violation of a key that
// includes a column filled in every one of the statement's rows (in a
// statement that mixes set and fresh values the error cannot say whose
// value was taken); known is false when err is no unique violation or
// does not say which key. cols are the key's columns.
func takenKey(db *gorm.DB, err error, filled []filledColumn, rows int) (cols []string, hit, known bool) {
	if err == nil || !isDuplicate(db, err) {
		return nil, false, false
	}
	cols, known = violatedColumns(db, err)
	hit = slices.ContainsFunc(filled, func(f filledColumn) bool {
		return len(f.ptrs) == rows && slices.ContainsFunc(cols, func(c string) bool { return strings.EqualFold(c, f.name) })
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

// duplicateEntry finds a number in MySQL's "Duplicate entry 'v' for key".
var duplicateEntry = regexp.MustCompile(`Duplicate entry '(-?[0-9][0-9.e+-]*)' for key`)

// checkStoredKey returns [ErrRefused], wrapping err, when MySQL reports a
// one-row Create's fresh HUID taken as a number that is not the HUID
// drawn: the column stored another number (an INT or DECIMAL clamped to its
// maximum without STRICT_TRANS_TABLES, a DOUBLE rounded), so every draw would
// meet the same row.
func checkStoredKey(db *gorm.DB, st *attempt, err error) error {
	m := duplicateEntry.FindStringSubmatch(err.Error())
	if db.Dialector.Name() != dialectMySQL || st.rows != 1 || m == nil {
		return nil
	}
	var drawn []string
	for _, c := range st.columns {
		if !c.huid || len(c.ptrs) != 1 {
			continue
		}
		v, ok := reflect.ValueOf(c.ptrs[0]).Elem().Interface().(driver.Valuer)
		if !ok {
			return nil
		}
		d, verr := v.Value()
		if verr != nil || fmt.Sprint(d) == m[1] {
			return nil
		}
		drawn = append(drawn, fmt.Sprintf("%s %v", c.name, d))
	}
	if drawn == nil {
		return nil
	}
	return fmt.Errorf("%w: a Create into %s drew %s, and the database reports the key %s taken: the column stores another number than the HUID it is given (an INT or DECIMAL clamps it without STRICT_TRANS_TABLES, a DOUBLE rounds it); make it BIGINT: %w",
		ErrRefused, tableName(st.stmt), strings.Join(drawn, ", "), m[1], err)
}
