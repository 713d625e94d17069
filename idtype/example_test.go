package idtype_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sortid/sortid/idtype"
)

func ExampleParseHUID() {
	h, err := idtype.ParseHUID("258037077")
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Time().Format(time.RFC3339Nano), h.Random())
	fmt.Println(h.PaddedString())

	_, err = idtype.ParseHUID("9223372036854775808")
	fmt.Println(errors.Is(err, idtype.ErrInvalidHUID))
	// Output:
	// 2026-01-01T00:00:00.123Z 87381
	// 0000000000258037077
	// true
}

func ExampleParseSCRU128() {
	id, err := idtype.ParseSCRU128("00qbtg0ferftccnfisubo489di") // case-insensitive
	if err != nil {
		panic(err)
	}
	fmt.Println(id)
	fmt.Println(id.UUIDString())
	fmt.Println(id.Time().Format(time.RFC3339Nano), id.Counter(), id.PerSecRandom(), id.PerGenRandom())

	fromPostgres, _ := idtype.ParseSCRU128("00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2")
	fmt.Println(fromPostgres == id)
	// Output:
	// 00QBTG0FERFTCCNFISUBO489DI
	// 00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2
	// 2021-10-17T11:50:39.325Z 192895179 12475634 4030997938
	// true
}

func ExampleHUIDRange() {
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	lo, hi, err := idtype.HUIDRange(from, from.Add(5*time.Minute))
	if err != nil {
		panic(err)
	}
	fmt.Printf("SELECT * FROM events WHERE id BETWEEN %d AND %d\n", lo, hi)
	fmt.Println(lo.Time().Format(time.RFC3339Nano), hi.Time().Format(time.RFC3339Nano))
	// Output:
	// SELECT * FROM events WHERE id BETWEEN 60413077094400000 AND 60413706239999999
	// 2026-11-30T10:00:00Z 2026-11-30T10:04:59.999Z
}

func ExampleSCRU128Range() {
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	lo, hi, err := idtype.SCRU128Range(from, from.Add(time.Minute))
	if err != nil {
		panic(err)
	}
	fmt.Println(lo.UUIDString())
	fmt.Println(hi.UUIDString())
	// Output:
	// 032cd7eb-d000-0000-0000-000000000000
	// 032cd7fa-75ff-ffff-ffff-ffffffffffff
}

func ExampleHUID_MarshalJSON() {
	type Order struct {
		ID     idtype.HUID     `json:"id"`
		Parent idtype.NullHUID `json:"parent"`
		Trace  idtype.SCRU128  `json:"trace"`
	}
	o := Order{
		ID:    idtype.MustParseHUID("60413077094400000"),
		Trace: idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI"),
	}
	out, _ := json.Marshal(o)
	fmt.Println(string(out)) // the HUID is a string: JavaScript numbers stop at 2^53

	var in Order
	err := json.Unmarshal([]byte(`{"id":"60413077094400000","parent":7,"trace":"00QBTG0FERFTCCNFISUBO489DI"}`), &in)
	fmt.Println(in.ID, in.Parent.V, in.Parent.Valid, err)

	// A number above 2^53 may have been rounded on its way: refused.
	err = json.Unmarshal([]byte(`{"id":60413077094400000}`), &in)
	fmt.Println(errors.Is(err, idtype.ErrInvalidHUID))
	// Output:
	// {"id":"60413077094400000","parent":null,"trace":"00QBTG0FERFTCCNFISUBO489DI"}
	// 60413077094400000 7 true <nil>
	// true
}

func ExampleNewHUIDGenerator() {
	// A generator with a fixed clock and random source is deterministic.
	clock := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 123_000_000, time.UTC) }
	random := bytes.NewReader([]byte{0x01, 0x55, 0x55})
	g := idtype.NewHUIDGenerator(idtype.WithClock(clock), idtype.WithRandom(random))
	h, err := g.Generate()
	fmt.Println(h, err)
	// Output:
	// 258037077 <nil>
}

func ExampleFillHUIDs() {
	// Keys for one bulk insert: unique, and ascending, so the batch lands at
	// the right edge of the primary-key index.
	keys := make([]idtype.HUID, 1000)
	if err := idtype.FillHUIDs(keys); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(slices.IsSorted(keys), len(slices.Compact(keys)))
	// Output:
	// true 1000
}

func ExampleHUIDCollisions() {
	// 100 000 IDs/s spread over 8 processes, each deduplicating its own IDs.
	e, err := idtype.HUIDCollisions(100_000, 8)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.3g per day, %.3g per year\n", e.PerDay, e.PerYear)
	s, _ := idtype.SCRU128Collisions(100_000, 8)
	fmt.Printf("SCRU128: %.3g per year\n", s.PerYear)
	// Output:
	// 1.8e+05 per day, 6.58e+07 per year
	// SCRU128: 7.14e-12 per year
}

// A backfill gives each imported row the SCRU128 of its original time. IDs
// made one after another at one time count up; a time outside SCRU128's
// window is refused. Fixed random bytes make the IDs below reproducible; a
// generator made without WithRandom reads crypto/rand.
func ExampleSCRU128Generator_GenerateAt() {
	random := bytes.NewReader([]byte{
		0x00, 0x00, 0x01, 0x00, // counter of the first ID
		0xab, 0xcd, 0xef, // per_sec_random
		0x11, 0x11, 0x11, 0x11, // per_gen_random
		0x22, 0x22, 0x22, 0x22, // per_gen_random of the second ID
	})
	g := idtype.NewSCRU128Generator(idtype.WithRandom(random))
	at := time.Date(2024, 3, 1, 12, 0, 0, 123_456_789, time.UTC)
	first, err := g.GenerateAt(at)
	if err != nil {
		panic(err)
	}
	second, err := g.GenerateAt(at)
	if err != nil {
		panic(err)
	}
	fmt.Println(first, first.Time().Format(time.RFC3339Nano))
	fmt.Println(second, second.Compare(first) > 0, second.Counter()-first.Counter())

	_, err = g.GenerateAt(time.Date(2019, 12, 31, 0, 0, 0, 0, time.UTC))
	fmt.Println(errors.Is(err, idtype.ErrTimeOutOfRange))
	// Output:
	// 01T6RRP9TG000G1AUDTS8H248H 2024-03-01T12:00:00.123Z
	// 01T6RRP9TG000G3AUDTSH248H2 true 1
	// true
}

// A key made by a client is checked against the clock before it is stored:
// here one made a day ago, with a day's skew allowed into the past, and one
// from a clock an hour fast, with a minute allowed into the future.
func ExampleTimeCheck() {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	check := idtype.TimeCheck{Past: 24 * time.Hour, Future: time.Minute, Now: func() time.Time { return now }}
	yesterday, _ := idtype.HUIDFromParts(now.Add(-24*time.Hour), 1)
	fast, _ := idtype.HUIDFromParts(now.Add(time.Hour), 1)
	fmt.Println(check.HUID(yesterday))
	err := check.HUID(fast)
	fmt.Println(errors.Is(err, idtype.ErrImplausibleTime))
	fmt.Println(err)
	// Output:
	// <nil>
	// true
	// idtype: ID time implausible: HUID 27458430566400001 was made at 2026-06-01T13:00:00.000Z, 1h0m0s after now (2026-06-01T12:00:00.000Z); at most 1m0s is allowed
}
