package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestUnreachableServerNamesTheFix checks that a missing server is an error
// telling how to provide one, never a silent skip.
func TestUnreachableServerNamesTheFix(t *testing.T) {
	env := map[string]string{pgtest.EnvURL: "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=2"}
	_, err := resolveServer(context.Background(), func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "Fix one of") || !strings.Contains(err.Error(), pgtest.EnvURL) {
		t.Fatalf("resolveServer error = %v, want one naming the fix", err)
	}
}

func TestInsertSQL(t *testing.T) {
	s := insertSQL("t")
	if !strings.HasPrefix(s, "INSERT INTO t (id, n) VALUES ($1,$2),($3,$4)") || !strings.HasSuffix(s, "($1999,$2000)") {
		t.Errorf("insertSQL has the wrong shape: %.60s...%s", s, s[len(s)-20:])
	}
}

// TestWindowRowsAreUniqueAndInRange checks the window table's keys: unique,
// and inside HUIDRange's bounds exactly when the row's time is in the minute.
func TestWindowRowsAreUniqueAndInRange(t *testing.T) {
	const n = 200_000 // 18 ms apart: spans the queried minute with 3 333 rows
	seen := make(map[int64]bool, n)
	step := time.Hour / n
	var in int
	w := windowBench{}
	var err error
	if w.lo, w.hi, err = huidRangeForQuery(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ts := windowStart.Add(time.Duration(i) * step)
		id, err := huidForRow(ts, i)
		if err != nil {
			t.Fatal(err)
		}
		if seen[int64(id)] {
			t.Fatalf("row %d repeats HUID %d", i, id)
		}
		seen[int64(id)] = true
		inTime := !ts.Before(queryFrom) && ts.Before(queryTo)
		if inID := id >= w.lo && id <= w.hi; inID != inTime {
			t.Fatalf("row %d at %s: in id range %v, in time window %v", i, ts, inID, inTime)
		}
		if inTime {
			in++
		}
	}
	if in != 3334 && in != 3333 {
		t.Errorf("%d rows in the minute, want about 3333", in)
	}
}
