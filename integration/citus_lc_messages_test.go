package integration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgcluster"
	"github.com/sortid/sortid/pgretry"
)

// germanLocale is a locale whose PostgreSQL messages are not English.
const germanLocale = "de_DE.UTF-8"

// germanUniqueMessage starts a unique violation's message in German.
const germanUniqueMessage = "doppelter Schlüsselwert verletzt Unique-Constraint »"

// setServerLcMessages sets lc_messages in node's configuration and waits
// until new sessions on it start with it.
func setServerLcMessages(t *testing.T, c *pgcluster.Citus, node *pgcluster.Cluster, value string) {
	t.Helper()
	c.Exec(t, node, fmt.Sprintf("ALTER SYSTEM SET lc_messages = '%s'", value))
	c.Exec(t, node, "SELECT pg_reload_conf()")
	// The postmaster rereads the file after pg_reload_conf returns.
	deadline := time.Now().Add(pgcluster.StartTimeout)
	for {
		conn, err := pgx.Connect(t.Context(), node.URL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = conn.QueryRow(t.Context(), "SHOW lc_messages").Scan(&got)
		conn.Close(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got == value {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: lc_messages is %q, want %q", node.Name, got, value)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// requireGerman reports a server that cannot write German messages with
// pgcluster.Missing: the OS lacks the locale, or PostgreSQL its catalog.
func requireGerman(t *testing.T, node *pgcluster.Cluster) {
	t.Helper()
	conn := node.Connect(t, "postgres")
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "SET lc_messages = '"+germanLocale+"'"); err != nil {
		pgcluster.Missing(t, node.Host.Major, "the "+germanLocale+" locale",
			"apt-get install -y locales && localedef -i de_DE -f UTF-8 "+germanLocale+" ("+err.Error()+")")
	}
	_, err := conn.Exec(t.Context(), "SELECT 1/0")
	if !strings.Contains(fmt.Sprint(err), "Division durch Null") {
		pgcluster.Missing(t, node.Host.Major, "PostgreSQL's German messages",
			fmt.Sprintf("a PostgreSQL built with NLS and its German catalog, postgres-%d.mo (got %v)", node.Host.Major, err))
	}
}

// TestCitusLcMessages finds whose lc_messages decides the language of the
// XX000 unique violation that a COPY or an INSERT ... SELECT through the
// coordinator passes on from a shard, and so whether
// pgretry.IsUniqueViolation recognises it: the setting of Citus's own
// sessions on the node holding the placement (its configuration, or a
// database or role setting, which Citus propagates from the coordinator),
// not the client's session nor the coordinator's configuration; a SET
// LOCAL reaches them only with citus.propagate_set_commands = 'local'.
func TestCitusLcMessages(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	requireGerman(t, c.Coordinator)
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord,
		"CREATE TABLE lc_dist (id bigint PRIMARY KEY, b text)",
		"SELECT create_distributed_table('lc_dist', 'id')",
		"INSERT INTO lc_dist VALUES (1, 'taken')",
		"CREATE TABLE lc_ref (id bigint PRIMARY KEY, b text)",
		"SELECT create_reference_table('lc_ref')",
		"INSERT INTO lc_ref VALUES (1, 'taken')")
	// Each form inserts the taken key 1 and gets the XX000 form; a reference
	// table has a placement on every node.
	forms := []struct {
		name   string
		ref    bool
		insert func(ctx context.Context, conn *pgx.Conn) error
	}{
		{"COPY into a distributed table", false, func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.CopyFrom(ctx, pgx.Identifier{"lc_dist"}, []string{"id", "b"}, pgx.CopyFromRows([][]any{{int64(1), "new"}}))
			return err
		}},
		{"INSERT ... SELECT into a distributed table", false, func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "INSERT INTO lc_dist SELECT 1, 'new' FROM generate_series(1, 1)")
			return err
		}},
		{"COPY into a reference table", true, func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.CopyFrom(ctx, pgx.Identifier{"lc_ref"}, []string{"id", "b"}, pgx.CopyFromRows([][]any{{int64(1), "new"}}))
			return err
		}},
	}
	const de = germanLocale
	cases := []struct {
		name string
		// lc_messages in the configuration of the coordinator and of the workers.
		coordinator, workers string
		// setup and teardown run on the coordinator around the case.
		setup, teardown string
		// session runs in the client's session before the insert.
		session []string
		english bool
		// ref: the case is run on the reference table too, whose
		// placements are on every node: not where the nodes disagree, as
		// any placement may report first, nor in a transaction block, where
		// Citus writes the coordinator's placement in the client's session,
		// which reports 23505.
		ref bool
	}{
		{"every node English, client's session German", "C", "C", "", "", []string{"SET lc_messages = '" + de + "'"}, true, true},
		{"coordinator German, workers English", de, "C", "", "", nil, true, false},
		{"workers German, client's session English", "C", de, "", "", []string{"SET lc_messages = 'C'"}, false, false},
		{"every node German, client's session English", de, de, "", "", []string{"SET lc_messages = 'C'"}, false, true},
		{"every node German, ALTER DATABASE on the coordinator", de, de,
			"ALTER DATABASE postgres SET lc_messages = 'C'", "ALTER DATABASE postgres RESET lc_messages", nil, true, true},
		{"every node German, ALTER ROLE on the coordinator", de, de,
			"ALTER ROLE postgres SET lc_messages = 'C'", "ALTER ROLE postgres RESET lc_messages", nil, true, true},
		{"every node German, SET LOCAL propagated", de, de, "", "",
			[]string{"SET citus.propagate_set_commands = 'local'", "BEGIN", "SET LOCAL lc_messages = 'C'"}, true, false},
		{"every node German, SET LOCAL not propagated", de, de, "", "",
			[]string{"BEGIN", "SET LOCAL lc_messages = 'C'"}, false, false},
	}
	servers := map[*pgcluster.Cluster]string{}
	for _, tt := range cases {
		for _, n := range c.Nodes() {
			want := tt.workers
			if n == c.Coordinator {
				want = tt.coordinator
			}
			if servers[n] != want {
				setServerLcMessages(t, c, n, want)
				servers[n] = want
			}
		}
		if tt.setup != "" {
			execAll(t, coord, tt.setup)
		}
		for _, f := range forms {
			if f.ref && !tt.ref {
				continue
			}
			// A new session, as a failed insert ends a transaction, and
			// Citus's sessions on the workers start with the case's settings.
			conn, err := pgx.Connect(t.Context(), c.Coordinator.URL("postgres"))
			if err != nil {
				t.Fatal(err)
			}
			execAll(t, conn, tt.session...)
			err = f.insert(t.Context(), conn)
			conn.Close(context.Background())
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "XX000" {
				t.Errorf("%s: %s: %v; want SQLSTATE XX000", tt.name, f.name, err)
				continue
			}
			english := strings.HasPrefix(pgErr.Message, `duplicate key value violates unique constraint "`)
			german := strings.HasPrefix(pgErr.Message, germanUniqueMessage)
			if english != tt.english || german == tt.english {
				t.Errorf("%s: %s: message %q; want it in English %v", tt.name, f.name, pgErr.Message, tt.english)
			}
			if got := pgretry.IsUniqueViolation(err); got != tt.english {
				t.Errorf("%s: %s: pgretry.IsUniqueViolation = %v, want %v (%q)", tt.name, f.name, got, tt.english, pgErr.Message)
			}
		}
		if tt.teardown != "" {
			execAll(t, coord, tt.teardown)
		}
	}
}
