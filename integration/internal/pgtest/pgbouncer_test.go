package pgtest

import (
	"strings"
	"testing"
)

func TestPgBouncer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want []string // in the error; none means no error and ""
	}{
		{"unset", nil, nil},
		{"unset, CI", map[string]string{EnvCI: "true"},
			[]string{EnvPgBouncer + " is not set and CI=true", "scripts/pgbouncer.sh"}},
		{"not answering", map[string]string{EnvPgBouncer: "postgres://postgres:secret@127.0.0.1:1/postgres"},
			[]string{"no PgBouncer answers", "127.0.0.1:1", "scripts/pgbouncer.sh"}},
		{"not a URL", map[string]string{EnvPgBouncer: "mysql://x"}, []string{EnvPgBouncer, "scheme"}},
	}
	for _, tt := range tests {
		got, err := PgBouncer(t.Context(), envOf(tt.env))
		if len(tt.want) == 0 {
			if got != "" || err != nil {
				t.Errorf("%s: PgBouncer = %q, %v; want \"\", nil", tt.name, got, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: PgBouncer = %q, want an error", tt.name, got)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error shows the password: %v", tt.name, err)
		}
	}
}
