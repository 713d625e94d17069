package benchmarks

import (
	"database/sql/driver"
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"

	"github.com/sortid/sortid/idtype"
)

// codec is one contender of a parse, format, Scan or Value benchmark: run
// performs the operation once on a prepared value.
type codec struct {
	name string
	run  func() error
}

// Sinks keep results alive, so the compiler cannot drop the work.
var (
	sinkHUID    idtype.HUID
	sinkSCRU    idtype.SCRU128
	sinkSCRUB   idtype.SCRU128Bytes
	sinkUUID    uuid.UUID
	sinkULID    ulid.ULID
	sinkString  string
	sinkBytes   []byte
	sinkDriverV driver.Value
)

func runCodecs(b *testing.B, codecs []codec) {
	for _, c := range codecs {
		b.Run(c.name, func(b *testing.B) {
			if err := c.run(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = c.run()
			}
		})
	}
}

func parseCodecs() []codec {
	s := onceIDs()
	return []codec{
		{"huid-decimal", func() (err error) { sinkHUID, err = idtype.ParseHUID(s.huidText); return }},
		{"scru128-base32", func() (err error) { sinkSCRU, err = idtype.ParseSCRU128(s.scruText); return }},
		{"scru128-uuid", func() (err error) { sinkSCRU, err = idtype.ParseSCRU128(s.scruUUID); return }},
		{"uuid", func() (err error) { sinkUUID, err = uuid.Parse(s.uuidText); return }},
		{"ulid", func() (err error) { sinkULID, err = ulid.Parse(s.ulidText); return }},
	}
}

func stringCodecs() []codec {
	s := onceIDs()
	return []codec{
		{"huid-decimal", func() error { sinkString = s.huid.String(); return nil }},
		{"scru128-base32", func() error { sinkString = s.scru.String(); return nil }},
		{"scru128-uuid", func() error { sinkString = s.scru.UUIDString(); return nil }},
		{"uuid", func() error { sinkString = s.uuid.String(); return nil }},
		{"ulid", func() error { sinkString = s.ulid.String(); return nil }},
	}
}

// appendCodecs write into a reused buffer: the allocation-free path of a
// JSON or log encoder. google/uuid has no appender, so ULID is the baseline.
func appendCodecs() []codec {
	s := onceIDs()
	buf := make([]byte, 0, 64)
	return []codec{
		{"huid-decimal", func() (err error) { sinkBytes, err = s.huid.AppendText(buf[:0]); return }},
		{"scru128-base32", func() (err error) { sinkBytes, err = s.scru.AppendText(buf[:0]); return }},
		{"ulid", func() error { sinkBytes = buf[:26]; return s.ulid.MarshalTextTo(sinkBytes) }},
	}
}

// scanCodecs scan what a database/sql driver hands over: an int64 for
// bigint, the UUID text for uuid (pgx's stdlib and lib/pq), 16 bytes for
// bytea.
func scanCodecs() []codec {
	s := onceIDs()
	// Boxed once, as database/sql hands Scan a driver.Value it already holds.
	var huidSrc, scruUUID, raw, uuidSrc, ulidRaw any = int64(s.huid), s.scruUUID, s.scru[:], s.uuidText, s.ulid[:]
	return []codec{
		{"huid-int64", func() error { return sinkHUID.Scan(huidSrc) }},
		{"scru128-uuidtext", func() error { return sinkSCRU.Scan(scruUUID) }},
		{"scru128bytes-bytea", func() error { return sinkSCRUB.Scan(raw) }},
		{"uuid", func() error { return sinkUUID.Scan(uuidSrc) }},
		{"ulid-bytes", func() error { return sinkULID.Scan(ulidRaw) }},
	}
}

func valueCodecs() []codec {
	s := onceIDs()
	scruB := idtype.SCRU128Bytes(s.scru)
	return []codec{
		{"huid-int64", func() (err error) { sinkDriverV, err = s.huid.Value(); return }},
		{"scru128-uuidtext", func() (err error) { sinkDriverV, err = s.scru.Value(); return }},
		{"scru128bytes-bytea", func() (err error) { sinkDriverV, err = scruB.Value(); return }},
		{"uuid", func() (err error) { sinkDriverV, err = s.uuid.Value(); return }},
		{"ulid-bytes", func() (err error) { sinkDriverV, err = s.ulid.Value(); return }},
	}
}

// BenchmarkParse parses each text form into its value type.
func BenchmarkParse(b *testing.B) { runCodecs(b, parseCodecs()) }

// BenchmarkString formats each value into a new string.
func BenchmarkString(b *testing.B) { runCodecs(b, stringCodecs()) }

// BenchmarkAppend formats each value into a reused buffer.
func BenchmarkAppend(b *testing.B) { runCodecs(b, appendCodecs()) }

// BenchmarkScan is database/sql's Scan from the driver's value.
func BenchmarkScan(b *testing.B) { runCodecs(b, scanCodecs()) }

// BenchmarkValue is database/sql's Value for the driver.
func BenchmarkValue(b *testing.B) { runCodecs(b, valueCodecs()) }
