package integration_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgxtype"
)

// The PgBouncer tests run through the PgBouncer in SORTID_TEST_PGBOUNCER
// (scripts/pgbouncer.sh): transaction pooling with fewer server sessions per
// database than bouncerClients, so that clients really share them.
const (
	bouncerClients = 8
	bouncerInserts = 250 // per client and mode
)

// bouncerDB creates a fresh database with the sortid functions and returns
// its URL through PgBouncer and a direct database/sql handle to it. Without
// a PgBouncer it skips, or fails under CI=true (pgtest.PgBouncer).
func bouncerDB(t *testing.T) (string, *sql.DB) {
	t.Helper()
	bouncer, err := pgtest.PgBouncer(t.Context(), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if bouncer == "" {
		t.Skipf("no PgBouncer: set %s, e.g. with eval \"$(scripts/pgbouncer.sh)\" (under CI=true this fails)", pgtest.EnvPgBouncer)
	}
	dbURL, db := migratedDatabase(t)
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	via, err := pgtest.WithDatabase(bouncer, cfg.Database)
	if err != nil {
		t.Fatal(err)
	}
	return via, db
}

// queryRowFunc is QueryRow of a pgx.Conn or of a database/sql Conn.
type queryRowFunc func(ctx context.Context, query string, args ...any) interface{ Scan(...any) error }

// bouncerClient opens one client connection to url in a mode: a pgx query
// exec mode name, or "database/sql" followed by the DSN's
// default_query_exec_mode ("" for the driver's default).
type bouncerClient struct {
	mode string
	open func(t *testing.T, url string) queryRowFunc
}

// pgxClient connects with pgx in mode, with pgxtype.LoadDomains run on
// connect as the recipe's AfterConnect does.
func pgxClient(mode pgx.QueryExecMode, loadDomains bool) bouncerClient {
	return bouncerClient{mode: "pgx " + mode.String(), open: func(t *testing.T, url string) queryRowFunc {
		t.Helper()
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = mode
		conn, err := pgx.ConnectConfig(t.Context(), cfg)
		if err != nil {
			t.Fatalf("connect through PgBouncer: %v", err)
		}
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		if loadDomains {
			if loaded, err := pgxtype.LoadDomains(t.Context(), conn); err != nil || len(loaded) != 2 {
				t.Fatalf("pgxtype.LoadDomains through PgBouncer = %v, %v; want both domains", loaded, err)
			}
		}
		return func(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
			return conn.QueryRow(ctx, q, args...)
		}
	}}
}

// stdlibClient opens a database/sql Conn (pgx's stdlib driver) with the DSN's
// default_query_exec_mode set to mode, or left at the default when mode is "".
func stdlibClient(mode string) bouncerClient {
	return bouncerClient{mode: "database/sql " + mode, open: func(t *testing.T, url string) queryRowFunc {
		t.Helper()
		dsn := url
		if mode != "" {
			var err error
			if dsn, err = pgtest.WithParam(url, "default_query_exec_mode", mode); err != nil {
				t.Fatal(err)
			}
		}
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatalf("connect through PgBouncer: %v", err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return func(ctx context.Context, q string, args ...any) interface{ Scan(...any) error } {
			return conn.QueryRowContext(ctx, q, args...)
		}
	}}
}

// bouncerRow is one insert: what the client sent and what it got back.
type bouncerRow struct {
	seq     int64
	pid     int32
	id      idtype.HUID
	trace   idtype.SCRU128
	goID    idtype.HUID
	goTrace idtype.SCRU128Bytes
}

const bouncerTable = `CREATE TABLE bouncer_rows (
	mode     text NOT NULL,
	client   int  NOT NULL,
	n        int  NOT NULL,
	seq      bigint GENERATED ALWAYS AS IDENTITY,
	pid      int    NOT NULL DEFAULT pg_backend_pid(),
	id       bigint NOT NULL UNIQUE DEFAULT huid_generate(),
	trace    uuid   NOT NULL UNIQUE DEFAULT scru128_generate(),
	go_id    huid   NOT NULL UNIQUE,
	go_trace scru128_bytes NOT NULL UNIQUE,
	PRIMARY KEY (mode, client, n))`

// TestPgBouncerConcurrentDefaults inserts from bouncerClients clients at once
// through PgBouncer in transaction mode, in each query mode the recipe names,
// with keys made by the column DEFAULTs and by Go, and checks that every
// value read back is the one written or returned, that no key repeats where
// sortid promises it does not (huid_generate() across all server sessions:
// the server is one generator), and what sharing server sessions changes: a
// client's inserts run on several server sessions, so its SCRU128 keys from
// scru128_generate() are not guaranteed to ascend, while each server
// session's keys still do.
func TestPgBouncerConcurrentDefaults(t *testing.T) {
	t.Parallel()
	via, db := bouncerDB(t)
	if _, err := db.ExecContext(t.Context(), bouncerTable); err != nil {
		t.Fatal(err)
	}
	clients := []bouncerClient{
		pgxClient(pgx.QueryExecModeSimpleProtocol, true),
		pgxClient(pgx.QueryExecModeExec, true),
		pgxClient(pgx.QueryExecModeDescribeExec, true),
		pgxClient(pgx.QueryExecModeCacheDescribe, true),
		stdlibClient("simple_protocol"),
	}
	switches, inversions := 0, 0
	for _, c := range clients {
		sent := insertThroughBouncer(t, c, via)
		checkBouncerRows(t, db, c.mode, sent)
		s, i := clientOrder(t, c.mode, sent)
		t.Logf("%s: a client's next insert ran on another server session %d times; its SCRU128 went down %d times", c.mode, s, i)
		switches += s
		inversions += i
	}
	if switches == 0 {
		t.Errorf("no client's inserts ran on more than one server session: PgBouncer is not sharing them")
	}
	t.Logf("all modes: %d switches, %d SCRU128 keys below the same client's previous one", switches, inversions)
}

// insertThroughBouncer runs bouncerInserts inserts on each of bouncerClients
// clients of kind c at once, and returns what each client sent and got, in
// its order.
func insertThroughBouncer(t *testing.T, c bouncerClient, url string) [][]bouncerRow {
	t.Helper()
	query := make([]queryRowFunc, bouncerClients)
	for i := range query {
		query[i] = c.open(t, url)
	}
	sent := make([][]bouncerRow, bouncerClients)
	errs := make([]error, bouncerClients)
	var wg sync.WaitGroup
	for client := range bouncerClients {
		wg.Go(func() {
			rows := make([]bouncerRow, bouncerInserts)
			for n := range rows {
				r := &rows[n]
				r.goID, r.goTrace = idtype.NewHUID(), idtype.SCRU128Bytes(idtype.NewSCRU128())
				err := query[client](t.Context(), `INSERT INTO bouncer_rows (mode, client, n, go_id, go_trace)
					VALUES ($1, $2, $3, $4, $5) RETURNING seq, pid, id, trace`,
					c.mode, client, n, r.goID, r.goTrace).Scan(&r.seq, &r.pid, &r.id, &r.trace)
				if err != nil {
					errs[client] = fmt.Errorf("%s: client %d insert %d: %w", c.mode, client, n, err)
					return
				}
			}
			sent[client] = rows
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return sent
}

// checkBouncerRows reads the mode's rows back directly and compares them
// with what the clients sent and got; then checks, per server session in
// the order of its inserts, that scru128_generate() ascends; that
// huid_generate() never repeats across all of them; and that fewer server sessions than
// clients served them.
func checkBouncerRows(t *testing.T, db *sql.DB, mode string, sent [][]bouncerRow) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT client, n, seq, pid, id, trace, go_id, go_trace
		FROM bouncer_rows WHERE mode = $1 ORDER BY seq`, mode)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	count := 0
	lastTrace := map[int32]idtype.SCRU128{}
	seenID := map[idtype.HUID]int32{}
	for rows.Next() {
		var client, n int
		var got bouncerRow
		if err := rows.Scan(&client, &n, &got.seq, &got.pid, &got.id, &got.trace, &got.goID, &got.goTrace); err != nil {
			t.Fatal(err)
		}
		count++
		if want := sent[client][n]; got != want {
			t.Errorf("%s: client %d insert %d: read back %+v, client sent and got %+v", mode, client, n, got, want)
		}
		if last, ok := lastTrace[got.pid]; ok && got.trace.Compare(last) <= 0 {
			t.Errorf("%s: server session %d: scru128_generate() gave %s after %s", mode, got.pid, got.trace, last)
		}
		lastTrace[got.pid] = got.trace
		if pid, ok := seenID[got.id]; ok {
			t.Errorf("%s: server sessions %d and %d: huid_generate() made %d twice", mode, pid, got.pid, got.id)
		}
		seenID[got.id] = got.pid
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if count != bouncerClients*bouncerInserts {
		t.Errorf("%s: read back %d rows, want %d", mode, count, bouncerClients*bouncerInserts)
	}
	if len(lastTrace) >= bouncerClients {
		t.Errorf("%s: %d server sessions served %d clients; want fewer, shared", mode, len(lastTrace), bouncerClients)
	}
}

// clientOrder counts, over each client's inserts in order, those that ran on
// another server session than the client's previous one, and those whose
// scru128_generate() key is below the client's previous one. It checks what
// the recipe says stays ordered for one client: HUIDs by millisecond, and
// the SCRU128 keys made in Go.
func clientOrder(t *testing.T, mode string, sent [][]bouncerRow) (switches, inversions int) {
	t.Helper()
	for client, rows := range sent {
		for i := 1; i < len(rows); i++ {
			prev, cur := rows[i-1], rows[i]
			if cur.pid != prev.pid {
				switches++
			}
			if cur.trace.Compare(prev.trace) < 0 {
				inversions++
			}
			if cur.trace.Timestamp() < prev.trace.Timestamp() || cur.id.Time().Before(prev.id.Time()) {
				t.Errorf("%s: client %d insert %d: DEFAULT keys %s %d went back in time after %s %d",
					mode, client, i, cur.trace, cur.id, prev.trace, prev.id)
			}
			if idtype.SCRU128(cur.goTrace).Compare(idtype.SCRU128(prev.goTrace)) <= 0 {
				t.Errorf("%s: client %d insert %d: idtype.NewSCRU128 gave %s after %s", mode, client, i,
					idtype.SCRU128(cur.goTrace), idtype.SCRU128(prev.goTrace))
			}
		}
	}
	return switches, inversions
}

// TestPgBouncerClientChangesServerSession makes one client's two runs of the
// same statement land on two server sessions, as PgBouncer in transaction
// mode may do between any two transactions: another client holds the first
// session in a transaction when the second run comes. A pgx statement cache
// (QueryExecModeCacheStatement, pgx's default and so database/sql's without
// default_query_exec_mode) then fails: the statement it prepared lives on the
// first session. The other modes run on the second session.
func TestPgBouncerClientChangesServerSession(t *testing.T) {
	t.Parallel()
	via, _ := bouncerDB(t)
	tests := []struct {
		client bouncerClient
		code   string // SQLSTATE of the second run, "" for success
	}{
		{pgxClient(pgx.QueryExecModeSimpleProtocol, false), ""},
		{pgxClient(pgx.QueryExecModeExec, false), ""},
		{pgxClient(pgx.QueryExecModeDescribeExec, false), ""},
		{pgxClient(pgx.QueryExecModeCacheDescribe, false), ""},
		{pgxClient(pgx.QueryExecModeCacheStatement, false), "26000"}, // invalid_sql_statement_name
		{stdlibClient("simple_protocol"), ""},
		{stdlibClient("exec"), ""},
		{stdlibClient(""), "26000"},
	}
	for _, tt := range tests {
		t.Run(tt.client.mode, func(t *testing.T) {
			// Not parallel: each subtest needs the database's pool to itself.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			query := tt.client.open(t, via)
			// Its own text per subtest: a prepared statement outlives its
			// client on the server session, where the next subtest's
			// client would find it already prepared under pgx's name.
			stmt := "SELECT pg_backend_pid(), scru128_generate() -- " + tt.client.mode
			var first, second int32
			var trace idtype.SCRU128
			if err := query(ctx, stmt).Scan(&first, &trace); err != nil {
				t.Fatalf("first run: %v", err)
			}
			holderURL, err := pgtest.WithParam(via, "default_query_exec_mode", "simple_protocol")
			if err != nil {
				t.Fatal(err)
			}
			holder, err := pgx.Connect(ctx, holderURL)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close(context.Background())
			tx, err := holder.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(context.Background()) }()
			var held int32
			if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&held); err != nil {
				t.Fatal(err)
			}
			if held != first {
				t.Fatalf("the holder got server session %d, not the client's idle %d: PgBouncer did not reuse it", held, first)
			}
			err = query(ctx, stmt).Scan(&second, &trace)
			var pgErr *pgconn.PgError
			switch {
			case tt.code == "" && err != nil:
				t.Fatalf("second run, on another server session: %v", err)
			case tt.code == "" && second == first:
				t.Fatalf("second run ran on server session %d again, which another client holds", second)
			case tt.code != "" && (!errors.As(err, &pgErr) || pgErr.Code != tt.code ||
				!strings.HasPrefix(pgErr.Message, `prepared statement "stmtcache_`) || !strings.HasSuffix(pgErr.Message, "does not exist")):
				t.Fatalf("second run: %v, want SQLSTATE %s: prepared statement \"stmtcache_…\" does not exist", err, tt.code)
			}
		})
	}
}

// TestPgBouncerRecipe runs the blocks of docs/recipes/pgbouncer.md as
// TestDocsRecipes does, but with DATABASE_URL reaching the fresh database
// through PgBouncer.
func TestPgBouncerRecipe(t *testing.T) {
	t.Parallel()
	via, _ := bouncerDB(t)
	const page = "docs/recipes/pgbouncer.md"
	blocks := docBlocks(t, page)
	ran := runDocBlocks(t, page, blocks, buildGoBlocks(t, page, blocks), via)
	if ran["go"] < 2 {
		t.Fatalf("ran %v blocks of %s, want its two programs", ran, page)
	}
}

// TestPgBouncerRecipeSettings checks that the pgbouncer.ini block of
// docs/recipes/pgbouncer.md says what the configuration file of the running
// PgBouncer (scripts/pgbouncer.sh's) says, but for the port of [databases],
// which is the test server's; that the PgBouncer runs with its [pgbouncer]
// settings, and that it has fewer server sessions per database than the
// tests' clients.
func TestPgBouncerRecipeSettings(t *testing.T) {
	t.Parallel()
	via, _ := bouncerDB(t)
	server, err := pgx.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	serverPort := fmt.Sprintf("port=%d", server.Port)
	running := bouncerConfig(t, via)
	file, err := os.ReadFile(running["conffile"])
	if err != nil {
		t.Fatalf("read the running PgBouncer's configuration: %v", err)
	}
	used := iniSettings(string(file))

	documented := 0
	for _, b := range docBlocks(t, "docs/recipes/pgbouncer.md") {
		if b.lang != "ini" {
			continue
		}
		for section, settings := range iniSettings(b.body) {
			for key, value := range settings {
				documented++
				if section == "databases" {
					value = recipePortRE.ReplaceAllString(value, serverPort)
				}
				if got := used[section][key]; got != value {
					t.Errorf("docs/recipes/pgbouncer.md sets [%s] %s = %s; %s has %q", section, key, value, running["conffile"], got)
				}
				if got, ok := running[key]; section == "pgbouncer" && got != value {
					t.Errorf("docs/recipes/pgbouncer.md sets %s = %s; the running PgBouncer has %q (known: %v)", key, value, got, ok)
				}
			}
		}
	}
	if documented < 2 {
		t.Errorf("docs/recipes/pgbouncer.md has %d settings in ini blocks, want its [databases] and [pgbouncer] ones", documented)
	}
	// The recipe's cache_statement failure is PgBouncer's without
	// protocol-level prepared statements (before 1.21, or this set to 0).
	if v, ok := running["max_prepared_statements"]; ok && v != "0" {
		t.Errorf("the running PgBouncer keeps prepared statements (max_prepared_statements = %s); the recipe and the tests describe one that does not", v)
	}
	var size int
	if _, err := fmt.Sscan(running["default_pool_size"], &size); err != nil || size >= bouncerClients {
		t.Errorf("default_pool_size = %q, want fewer than %d server sessions so the tests' clients share them", running["default_pool_size"], bouncerClients)
	}
}

// recipePortRE finds the upstream port in the recipe's [databases] entry.
var recipePortRE = regexp.MustCompile(`\bport=\d+`)

// iniSettings reads the key = value lines of an ini file by section,
// skipping comments.
func iniSettings(text string) map[string]map[string]string {
	settings := map[string]map[string]string{}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.Trim(line, "[]")
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, ";") || strings.HasPrefix(line, "#") {
			continue
		}
		if settings[section] == nil {
			settings[section] = map[string]string{}
		}
		settings[section][strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return settings
}

// bouncerConfig returns the settings (SHOW CONFIG) of the PgBouncer that url
// reaches, by name.
func bouncerConfig(t *testing.T, url string) map[string]string {
	t.Helper()
	admin, err := pgtest.WithDatabase(url, "pgbouncer")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), admin)
	if err != nil {
		t.Fatalf("connect to PgBouncer's admin console: %v", err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), "SHOW CONFIG", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	config := map[string]string{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		config[fmt.Sprint(vals[0])] = fmt.Sprint(vals[1])
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return config
}

// lostPortPgBouncer stands in for pgbouncer on the PATH of
// scripts/pgbouncer.sh: its first start loses the port to another PgBouncer,
// with its own files under $OTHER, as when another run takes the port the
// script found free; pgbouncer -d exits 0 all the same. Later starts are
// the real $REAL's.
const lostPortPgBouncer = `#!/usr/bin/env bash
if mkdir "$OTHER/took" 2>/dev/null; then
	ini=${!#}
	sed -e "s|^pidfile = .*|pidfile = $OTHER/other.pid|" -e "s|^logfile = .*|logfile = $OTHER/other.log|" \
		"$ini" >"$OTHER/other.ini"
	"$REAL" "${@:1:$#-1}" "$OTHER/other.ini"
	exit 0
fi
exec "$REAL" "$@"
`

// TestPgBouncerScriptLostPort: when another PgBouncer takes the port
// scripts/pgbouncer.sh chose before its own can, the script does not report
// that one as its own: it reports a PgBouncer running its own configuration
// file, with its process id.
func TestPgBouncerScriptLostPort(t *testing.T) {
	t.Parallel()
	if bouncer, err := pgtest.PgBouncer(t.Context(), os.Getenv); err != nil {
		t.Fatal(err)
	} else if bouncer == "" {
		t.Skipf("no PgBouncer: set %s, e.g. with eval \"$(scripts/pgbouncer.sh)\" (under CI=true this fails)", pgtest.EnvPgBouncer)
	}
	path := os.Getenv("PATH") + ":/usr/sbin:/usr/local/sbin"
	real := ""
	for _, dir := range filepath.SplitList(path) {
		if p, err := exec.LookPath(filepath.Join(dir, "pgbouncer")); err == nil {
			real = p
			break
		}
	}
	if real == "" {
		t.Fatalf("no pgbouncer program on %s", path)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "pgbouncer"), []byte(lostPortPgBouncer), 0o755); err != nil {
		t.Fatal(err)
	}
	// The other PgBouncer may run as the postgres user (the script's -u).
	other, err := os.MkdirTemp("", "sortid-pgbouncer-other.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(other) })
	if err := os.Chmod(other, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killPidFile(t, filepath.Join(other, "other.pid")) })

	cmd := exec.Command("bash", "../scripts/pgbouncer.sh")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+path, "OTHER="+other, "REAL="+real)
	out, err := cmd.Output()
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			exports[k] = strings.Trim(v, "'")
		}
	}
	pid := exports["SORTID_PGBOUNCER_PID"]
	if pid != "" {
		t.Cleanup(func() { _ = exec.Command("kill", pid).Run() })
	}
	if err != nil {
		t.Fatalf("scripts/pgbouncer.sh: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(other, "other.pid")); err != nil {
		t.Fatalf("the other PgBouncer did not take the port (%v): this test did not make the script lose it", err)
	}
	if pid == "" || exec.Command("kill", "-0", pid).Run() != nil {
		t.Errorf("scripts/pgbouncer.sh reported process %q, not a running PgBouncer:\n%s", pid, out)
	}
	if got := bouncerConfig(t, exports[pgtest.EnvPgBouncer])["conffile"]; strings.HasPrefix(got, other) {
		t.Errorf("scripts/pgbouncer.sh reported the PgBouncer that took its port (running %s):\n%s", got, out)
	}
}

// killPidFile stops the process whose id the file holds, if it exists.
func killPidFile(t *testing.T, file string) {
	t.Helper()
	if pid, err := os.ReadFile(file); err == nil {
		_ = exec.Command("kill", strings.TrimSpace(string(pid))).Run()
	}
}
