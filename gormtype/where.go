package gormtype

import (
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// checkWhere binds a key given inline (First(&row, id), Find, Delete,
// Where(id), Not(id), Or(id)) as one value of the primary key's type:
// GORM binds its driver Value, a SCRU128's UUID text, and lists a
// SCRU128Bytes' 16 bytes one by one. It changes a copy: a query may be
// shared.
func checkWhere(db *gorm.DB) {
	stmt := db.Statement
	c, ok := stmt.Clauses["WHERE"]
	if !ok || stmt.Schema == nil || stmt.Schema.PrioritizedPrimaryField == nil ||
		schemeOf(stmt.Schema.PrioritizedPrimaryField.FieldType) == nil {
		return
	}
	where, _ := c.Expression.(clause.Where)
	where.Exprs = bindKeys(where.Exprs, stmt.Schema.PrioritizedPrimaryField)
	c.Expression = where
	stmt.Clauses["WHERE"] = c
}

// bindKeys returns a copy of exprs with the inline keys bound, in grouped
// conditions too.
func bindKeys(exprs []clause.Expression, key *schema.Field) []clause.Expression {
	out := slices.Clone(exprs)
	for i, e := range exprs {
		switch e := e.(type) {
		case clause.IN:
			out[i] = bindKey(e, key)
		case clause.AndConditions:
			out[i] = clause.AndConditions{Exprs: bindKeys(e.Exprs, key)}
		case clause.OrConditions:
			out[i] = clause.OrConditions{Exprs: bindKeys(e.Exprs, key)}
		case clause.NotConditions:
			out[i] = clause.NotConditions{Exprs: bindKeys(e.Exprs, key)}
		}
	}
	return out
}

// bindKey binds a key given inline for the primary key as one value.
func bindKey(in clause.IN, key *schema.Field) clause.IN {
	if col, _ := in.Column.(clause.Column); col.Name != clause.PrimaryKey {
		return in
	}
	v := any(nil)
	if len(in.Values) == 1 {
		v = in.Values[0]
	} else if b, ok := bytes16(in.Values); ok {
		v = b
	}
	if id, err := asID(key, v); err == nil && id != nil {
		in.Values = []any{id}
	}
	return in
}

// bytes16 returns the 16 bytes GORM listed one by one.
func bytes16(values []any) ([]byte, bool) {
	b := make([]byte, 0, 16)
	for _, v := range values {
		if n, ok := v.(uint8); ok {
			b = append(b, n)
		}
	}
	return b, len(values) == 16 && len(b) == 16
}
