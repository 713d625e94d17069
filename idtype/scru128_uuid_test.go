package idtype_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
)

// TestParseSCRU128ReadsOtherUUIDs pins what ParseSCRU128's doc says of
// UUIDs of other kinds: they parse, and their SCRU128 time is meaningless.
func TestParseSCRU128ReadsOtherUUIDs(t *testing.T) {
	t.Parallel()
	made := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var v7 idtype.SCRU128
	binary.BigEndian.PutUint64(v7[0:8], uint64(made.UnixMilli())<<16|0x7000)
	binary.BigEndian.PutUint64(v7[8:16], 0x8000000000000000)
	tests := []struct {
		name     string
		uuid     string
		wantYear int
	}{
		{"UUIDv7 made in 2026", v7.UUIDString(), 2023},
		{"UUIDv4", "d3e2062e-fef6-4ca6-b3b0-319e0ae65289", 2481},
		{"UUIDv4 of all ones but the version and variant", "ffffffff-ffff-4fff-bfff-ffffffffffff", 2577},
	}
	for _, tt := range tests {
		id, err := idtype.ParseSCRU128(tt.uuid)
		if err != nil {
			t.Errorf("%s: ParseSCRU128(%s): %v", tt.name, tt.uuid, err)
			continue
		}
		if got := id.Time().Year(); got != tt.wantYear {
			t.Errorf("%s: ParseSCRU128(%s).Time() is in %d, want %d", tt.name, tt.uuid, got, tt.wantYear)
		}
	}
}
