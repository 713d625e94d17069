package pgtest

import (
	"path"
	"strings"
	"testing"
)

func TestExcepted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		test  string
		major int
		what  string
		want  bool
	}{
		{"TestCitusPgx", 18, "Citus", true},
		{"TestCitusMigrate/psql", 18, "Citus", true},
		{"TestCitusMigrate/psql/deeper", 18, "Citus", false}, // * does not cross /
		{"TestCitusPgx", 15, "Citus", false},
		{"TestCitusPgx", 18, "pg_dump", false},
		{"TestPartmanRecipe/create", 14, "pg_partman", true},
		{"TestPartmanRecipe", 14, "pg_partman", false},
		{"TestSQLCheckTimeRestore", 16, "pg_dump", true},
		{"TestSQLCheckTimeRestore", 14, "pg_dump", false},
		{"TestSomethingElse", 18, "pg_dump", false},
	}
	for _, tt := range tests {
		e, ok := Excepted(tt.test, tt.major, tt.what)
		if ok != tt.want {
			t.Errorf("Excepted(%q, %d, %q) = %v, want %v", tt.test, tt.major, tt.what, ok, tt.want)
		}
		if ok && !strings.HasPrefix(e.SkipMessage(tt.test, tt.major), ExceptionMarker+": "+tt.test+" on PostgreSQL") {
			t.Errorf("skip message %q lacks the marker and the test", e.SkipMessage(tt.test, tt.major))
		}
	}
	if !ExceptedSomewhere(17, "pg_partman") || ExceptedSomewhere(15, "pg_partman") {
		t.Error("ExceptedSomewhere(pg_partman): want it on 17, not on 15")
	}
}

// TestExceptionsWellFormed: every listed exception names tests by valid
// patterns, versions, what is missing and why.
func TestExceptionsWellFormed(t *testing.T) {
	t.Parallel()
	for i, e := range Exceptions {
		if len(e.Tests) == 0 || len(e.Versions) == 0 || e.What == "" || e.Reason == "" {
			t.Errorf("Exceptions[%d] = %+v: every field is needed", i, e)
		}
		for _, p := range e.Tests {
			if _, err := path.Match(p, "TestX"); err != nil || !strings.HasPrefix(p, "Test") {
				t.Errorf("Exceptions[%d]: test pattern %q: %v", i, p, err)
			}
		}
	}
}

func TestVersionRE(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{
		"postgres (PostgreSQL) 18.4\n":                        "18",
		"pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)": "15",
	} {
		if m := versionRE.FindStringSubmatch(out); m == nil || m[1] != want {
			t.Errorf("versionRE on %q: %v, want %s", out, m, want)
		}
	}
}
