package benchmarks

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"

	"github.com/sortid/sortid/idtype"
)

// generator is one contender of the generation benchmarks.
type generator struct {
	name string
	// start returns a function that makes one ID and a function that
	// returns the last one made in its text form (for the validity tests).
	// Each goroutine of a parallel benchmark calls start once, so state a
	// contender keeps per caller (the floor's buffer) stays unshared, while
	// state inside a library (its global generator) stays shared, as in use.
	start func() (next func(), last func() string)
	// parse parses the text form back, to prove the ID is well formed.
	parse func(string) error
}

// snowflakeNode is the one node of the process, as an application would
// have; its Generate takes a mutex.
var snowflakeNode = func() *snowflake.Node {
	n, err := snowflake.NewNode(1)
	if err != nil {
		panic(err)
	}
	return n
}()

// ulidMonotonic is ULID's monotonic entropy over crypto/rand, locked so
// that goroutines can share it (ulid.Make instead uses math/rand).
var ulidMonotonic = &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(rand.Reader, 0)}

// floorSource is the cheapest thing a time-sortable generator can do: read
// the clock and take 8 bytes from a buffer refilled 4 KiB at a time from
// crypto/rand. Nothing dedupes, orders within a millisecond or locks.
type floorSource struct {
	buf [4096]byte
	pos int
}

func newFloorSource() *floorSource { return &floorSource{pos: 4096} }

func (f *floorSource) next() uint64 {
	if f.pos+8 > len(f.buf) {
		_, _ = rand.Read(f.buf[:]) // crypto/rand.Read never fails; it crashes instead
		f.pos = 0
	}
	r := binary.LittleEndian.Uint64(f.buf[f.pos:])
	f.pos += 8
	return uint64(time.Now().UnixMilli())<<21 | r&(1<<21-1)
}

// stateless wraps a generator function without per-caller state.
func stateless[T any](gen func() T, text func(T) string) func() (func(), func() string) {
	return func() (func(), func() string) {
		var last T
		return func() { last = gen() }, func() string { return text(last) }
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func parseErr[T any](f func(string) (T, error)) func(string) error {
	return func(s string) error { _, err := f(s); return err }
}

// generators lists the contenders in the order they appear in the tables.
var generators = []generator{
	{"huid", stateless(idtype.NewHUID, idtype.HUID.String), parseErr(idtype.ParseHUID)},
	{"scru128", stateless(idtype.NewSCRU128, idtype.SCRU128.String), parseErr(idtype.ParseSCRU128)},
	{"uuid-v4", stateless(func() uuid.UUID { return must(uuid.NewRandom()) }, uuid.UUID.String), parseErr(uuid.Parse)},
	{"uuid-v7", stateless(func() uuid.UUID { return must(uuid.NewV7()) }, uuid.UUID.String), parseErr(uuid.Parse)},
	{"ulid-make", stateless(ulid.Make, ulid.ULID.String), parseErr(ulid.ParseStrict)},
	{"ulid-monotonic-crypto", stateless(func() ulid.ULID { return must(ulid.New(ulid.Now(), ulidMonotonic)) }, ulid.ULID.String), parseErr(ulid.ParseStrict)},
	{"xid", stateless(xid.New, xid.ID.String), parseErr(xid.FromString)},
	{"ksuid", stateless(ksuid.New, ksuid.KSUID.String), parseErr(ksuid.Parse)},
	{"snowflake", stateless(snowflakeNode.Generate, snowflake.ID.String), parseErr(snowflake.ParseString)},
	{"floor", func() (func(), func() string) {
		src := newFloorSource()
		var last uint64
		return func() { last = src.next() }, func() string { return idtype.HUID(last &^ (1 << 63)).String() }
	}, parseErr(idtype.ParseHUID)},
}

// onceIDs holds one sample of each encoding for the parse, format and SQL
// benchmarks, made once so every benchmark sees the same values.
var onceIDs = sync.OnceValue(func() sampleIDs {
	s := sampleIDs{huid: idtype.NewHUID(), scru: idtype.NewSCRU128(), uuid: must(uuid.NewV7()), ulid: ulid.Make()}
	s.huidText, s.scruText, s.scruUUID = s.huid.String(), s.scru.String(), s.scru.UUIDString()
	s.uuidText, s.ulidText = s.uuid.String(), s.ulid.String()
	return s
})

type sampleIDs struct {
	huid                         idtype.HUID
	scru                         idtype.SCRU128
	uuid                         uuid.UUID
	ulid                         ulid.ULID
	huidText, scruText, scruUUID string
	uuidText, ulidText           string
}
