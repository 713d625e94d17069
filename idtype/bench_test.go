package idtype

import (
	"bufio"
	"crypto/rand"
	"io"
	"testing"
	"time"
)

var (
	sinkHUID    HUID
	sinkSCRU128 SCRU128
	sinkString  string
	sinkBytes   []byte
	sinkTime    time.Time
	sinkAny     any
	sinkDur     time.Duration
)

func BenchmarkNewHUID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkHUID = NewHUID()
	}
}

// BenchmarkFillHUIDs is per HUID, in batches of 1000 (a CreateInBatches
// batch): compare with BenchmarkNewHUID.
func BenchmarkFillHUIDs(b *testing.B) {
	b.ReportAllocs()
	batch := make([]HUID, 1000)
	for b.Loop() {
		if err := FillHUIDs(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/HUID")
}

func BenchmarkNewHUIDParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var h HUID
		for pb.Next() {
			h = NewHUID()
		}
		sinkHUID = h
	})
}

func BenchmarkNewSCRU128(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkSCRU128 = NewSCRU128()
	}
}

func BenchmarkNewSCRU128Parallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var id SCRU128
		for pb.Next() {
			id = NewSCRU128()
		}
		sinkSCRU128 = id
	})
}

// BenchmarkFloor is what any time-and-randomness ID costs at least: a
// time.Now() and an 8-byte read from a buffered CSPRNG.
func BenchmarkFloor(b *testing.B) {
	b.ReportAllocs()
	r := bufio.NewReaderSize(rand.Reader, 4096)
	var buf [8]byte
	for b.Loop() {
		sinkTime = time.Now()
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFloorMonotonic is the same floor with the monotonic clock read
// the default generators use instead of time.Now.
func BenchmarkFloorMonotonic(b *testing.B) {
	b.ReportAllocs()
	r := bufio.NewReaderSize(rand.Reader, 4096)
	anchor := time.Now()
	var buf [8]byte
	for b.Loop() {
		sinkDur = time.Since(anchor)
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseHUID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkHUID, _ = ParseHUID("61209018630144000")
	}
}

func BenchmarkHUIDString(b *testing.B) {
	b.ReportAllocs()
	h := HUID(61209018630144000)
	for b.Loop() {
		sinkString = h.String()
	}
}

func BenchmarkHUIDAppendText(b *testing.B) {
	b.ReportAllocs()
	h := HUID(61209018630144000)
	buf := make([]byte, 0, 32)
	for b.Loop() {
		sinkBytes, _ = h.AppendText(buf[:0])
	}
}

func BenchmarkParseSCRU128(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkSCRU128, _ = ParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	}
}

func BenchmarkParseSCRU128UUID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkSCRU128, _ = ParseSCRU128("00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2")
	}
}

func BenchmarkSCRU128String(b *testing.B) {
	b.ReportAllocs()
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	for b.Loop() {
		sinkString = id.String()
	}
}

func BenchmarkSCRU128AppendText(b *testing.B) {
	b.ReportAllocs()
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	buf := make([]byte, 0, 32)
	for b.Loop() {
		sinkBytes, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkSCRU128UUIDString(b *testing.B) {
	b.ReportAllocs()
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	for b.Loop() {
		sinkString = id.UUIDString()
	}
}

func BenchmarkHUIDScanInt64(b *testing.B) {
	b.ReportAllocs()
	var h HUID
	var src any = int64(61209018630144000)
	for b.Loop() {
		_ = h.Scan(src)
	}
	sinkHUID = h
}

func BenchmarkHUIDValue(b *testing.B) {
	b.ReportAllocs()
	h := HUID(61209018630144000)
	for b.Loop() {
		sinkAny, _ = h.Value()
	}
}

func BenchmarkSCRU128ScanBytes(b *testing.B) {
	b.ReportAllocs()
	var id SCRU128
	src := any(MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI").UUIDString())
	for b.Loop() {
		_ = id.Scan(src)
	}
	sinkSCRU128 = id
}

func BenchmarkSCRU128Value(b *testing.B) {
	b.ReportAllocs()
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	for b.Loop() {
		sinkAny, _ = id.Value()
	}
}
