package gormtype

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// checkWhere refuses a condition that compares a column with a zero ID
// ([ErrZeroID]), which GORM writes as IS NULL; in a subquery, whose error
// GORM drops, it binds a value that the driver refuses instead. It binds a
// key given inline (First(&row, id), Find, Delete, Where(id), Not(id)) as
// one value of its type: GORM binds its Value, a SCRU128Bytes' as 16
// numbers. It refuses a statement whose subquery failed. It changes copies:
// a query may be shared.
func checkWhere(db *gorm.DB) {
	stmt := db.Statement
	var key *schema.Field
	if s := stmt.Schema; s != nil && s.PrioritizedPrimaryField != nil && schemeOf(s.PrioritizedPrimaryField.FieldType) != nil {
		key = s.PrioritizedPrimaryField
	}
	var err error
	check := func(exprs []clause.Expression) []clause.Expression {
		exprs, e := checkConditions(exprs, key)
		err = cmp.Or(err, e)
		return exprs
	}
	if c, ok := stmt.Clauses["WHERE"]; ok {
		where, _ := c.Expression.(clause.Where)
		where.Exprs = check(where.Exprs)
		c.Expression = where
		stmt.Clauses["WHERE"] = c
	}
	if c, ok := stmt.Clauses["GROUP BY"]; ok {
		group, _ := c.Expression.(clause.GroupBy)
		group.Having = check(group.Having)
		c.Expression = group
		stmt.Clauses["GROUP BY"] = c
	}
	for i, j := range stmt.Joins {
		check([]clause.Expression{clause.Expr{Vars: j.Conds}})
		if j.On != nil {
			stmt.Joins[i].On = &clause.Where{Exprs: check(j.On.Exprs)}
		}
	}
	if err != nil && !db.DryRun { // a subquery is a dry run
		db.AddError(err)
	}
}

// checkConditions returns a copy of exprs in which a comparison with a
// zero ID binds [failingID] and an inline key one value, the conditions
// in them too, and the error of the first zero ID or failed subquery.
func checkConditions(exprs []clause.Expression, key *schema.Field) (out []clause.Expression, err error) {
	out = slices.Clone(exprs)
	for i, e := range exprs {
		var vars []any
		var cond error
		switch e := e.(type) {
		case clause.Eq:
			if name, zero := zeroValue(e.Value); zero {
				out[i], cond = clause.Eq{Column: e.Column, Value: failingID(name)}, zeroCondition(e.Column)
			}
			vars = []any{e.Value}
		case clause.Neq:
			if name, zero := zeroValue(e.Value); zero {
				out[i], cond = clause.Neq{Column: e.Column, Value: failingID(name)}, zeroCondition(e.Column)
			}
			vars = []any{e.Value}
		case clause.IN:
			out[i] = bindKey(e, key)
		case clause.Expr:
			e.Vars, cond = checkVars(e.Vars, key)
			out[i], vars = e, e.Vars
		case clause.NamedExpr:
			e.Vars, cond = checkVars(e.Vars, key)
			out[i], vars = e, e.Vars
		case clause.AndConditions:
			e.Exprs, cond = checkConditions(e.Exprs, key)
			out[i] = e
		case clause.OrConditions:
			e.Exprs, cond = checkConditions(e.Exprs, key)
			out[i] = e
		case clause.NotConditions:
			e.Exprs, cond = checkConditions(e.Exprs, key)
			out[i] = e
		}
		for _, v := range vars {
			if sub, ok := v.(*gorm.DB); ok && sub.Error != nil {
				cond = cmp.Or(cond, fmt.Errorf("gormtype: a subquery failed, which GORM would write as no SQL: %w", sub.Error))
			}
		}
		err = cmp.Or(err, cond)
	}
	return out, err
}

// checkVars returns a copy of an expression's vars in which conditions
// (clause.Eq and the like, which GORM builds in place) are checked.
func checkVars(vars []any, key *schema.Field) (out []any, err error) {
	out = slices.Clone(vars)
	for i, v := range vars {
		if e, ok := v.(clause.Expression); ok {
			checked, e := checkConditions([]clause.Expression{e}, key)
			out[i], err = checked[0], cmp.Or(err, e)
		}
	}
	return out, err
}

// zeroValue reports whether v is a zero ID, a pointer to one, or a Valid
// Null of one (nil and a NULL Null are NULL), and names its type.
func zeroValue(v any) (name string, zero bool) {
	fv := reflect.ValueOf(v)
	if !fv.IsValid() || schemeOf(fv.Type()) == nil || fv.Kind() == reflect.Pointer && fv.IsNil() {
		return "", false
	}
	name, fv = schemeOf(fv.Type()).name, reflect.Indirect(fv)
	return name, isZeroID(fv) && (fv.Kind() != reflect.Struct || fv.Field(1).Bool())
}

func zeroCondition(column any) error {
	if c, ok := column.(clause.Column); ok {
		column = c.Name
	}
	return fmt.Errorf("%w: a condition compares %v with a zero ID, which GORM would write as IS NULL; give the ID it means, or nil for NULL", ErrZeroID, column)
}

// bindKey binds a key given inline for the primary key as one value.
func bindKey(in clause.IN, key *schema.Field) clause.IN {
	if col, _ := in.Column.(clause.Column); key == nil || col.Name != clause.PrimaryKey {
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
