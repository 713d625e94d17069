// Package schema holds the ent schema of the recipe docs/recipes/ent.md.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"

	"github.com/sortid/sortid/idtype"
)

// Event is keyed by a HUID made in Go, and carries a SCRU128 trace ID in a
// uuid column and an optional parent HUID.
type Event struct {
	ent.Schema
}

// Fields of the Event.
func (Event) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").GoType(idtype.HUID(0)).DefaultFunc(idtype.NewHUID).Immutable().
			// ent makes an integer key an identity column unless told not
			// to; the DB default serves rows inserted without ent.
			Annotations(entsql.Annotation{Incremental: new(bool), DefaultExpr: "huid_generate()"}),
		field.UUID("trace", idtype.SCRU128{}).Default(idtype.NewSCRU128),
		field.Int64("parent").GoType(idtype.HUID(0)).Optional().Nillable(),
		field.String("name"),
	}
}
