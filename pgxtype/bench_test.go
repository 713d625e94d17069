package pgxtype_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// BenchmarkCodec measures the client side of one value, without a server:
// a binary scan and a binary encode, for the ID types with and without
// Register and for the built-in types they are compared with.
func BenchmarkCodec(b *testing.B) {
	registered, plain := newMap(), pgtype.NewMap()
	h, id := idtype.NewHUID(), idtype.NewSCRU128()
	cases := []struct {
		name  string
		m     *pgtype.Map
		oid   uint32
		value any
		dst   any
	}{
		{"int64", registered, pgtype.Int8OID, int64(h), new(int64)},
		{"HUID", registered, pgtype.Int8OID, h, new(idtype.HUID)},
		{"HUID-unregistered", plain, pgtype.Int8OID, h, new(idtype.HUID)},
		{"pgtype.UUID", registered, pgtype.UUIDOID, pgtype.UUID{Bytes: id, Valid: true}, new(pgtype.UUID)},
		{"SCRU128", registered, pgtype.UUIDOID, id, new(idtype.SCRU128)},
		{"SCRU128-unregistered", plain, pgtype.UUIDOID, id, new(idtype.SCRU128)},
	}
	for _, c := range cases {
		src, err := c.m.Encode(c.oid, pgtype.BinaryFormatCode, c.value, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("scan/"+c.name, func(b *testing.B) {
			plan := c.m.PlanScan(c.oid, pgtype.BinaryFormatCode, c.dst)
			for b.Loop() {
				if err := plan.Scan(src, c.dst); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode/"+c.name, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				if _, err := c.m.Encode(c.oid, pgtype.BinaryFormatCode, c.value, buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
