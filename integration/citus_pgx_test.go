package integration_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgcluster"
	"github.com/sortid/sortid/pgxtype"
)

// pgxKeyKind is one distribution-key type of TestCitusPgx: its table is
// (id sqlType PRIMARY KEY DEFAULT gen, n int, via text, more sqlType[]),
// distributed by id.
type pgxKeyKind struct {
	table   string
	sqlType string
	gen     string
	// domain: the key is one of the sortid domains (huid, scru128_bytes),
	// which Citus does not coerce constants to; see TestCitusPgx.
	domain bool
	// coerceError is Citus's refusal of a one-row INSERT that gives a
	// domain key as a literal, as pgx's simple protocol does.
	coerceError string
	// fresh returns a new Go-made key: an idtype value.
	fresh func() any
	// timeOf is the creation time a key carries.
	timeOf func(key any) time.Time
	// ascends: one session's DEFAULTs ascend in the order they are made
	// (scru128_generate's do; huid_generate's do not within a millisecond).
	ascends bool
}

func pgxKeyKinds() []pgxKeyKind {
	huidTime := func(k any) time.Time { return k.(idtype.HUID).Time() }
	newHUID := func() any { return idtype.NewHUID() }
	return []pgxKeyKind{
		{table: "px_huid", sqlType: "huid", gen: "huid_generate()", domain: true, coerceError: "Cannot coerce bigint to huid",
			fresh: newHUID, timeOf: huidTime},
		{table: "px_bigint", sqlType: "bigint", gen: "huid_generate()", fresh: newHUID, timeOf: huidTime},
		{table: "px_uuid", sqlType: "uuid", gen: "scru128_generate()", ascends: true,
			fresh:  func() any { return idtype.NewSCRU128() },
			timeOf: func(k any) time.Time { return k.(idtype.SCRU128).Time() }},
		{table: "px_bytes", sqlType: "scru128_bytes", gen: "scru128_generate_bytea()", ascends: true,
			domain: true, coerceError: "Cannot coerce bytea to scru128_bytes",
			fresh:  func() any { return idtype.SCRU128Bytes(idtype.NewSCRU128()) },
			timeOf: func(k any) time.Time { return k.(idtype.SCRU128Bytes).ID().Time() }},
	}
}

// compare compares two keys of k's Go type in their SQL order.
func (k pgxKeyKind) compare(a, b any) int {
	switch a := a.(type) {
	case idtype.HUID:
		return a.Compare(b.(idtype.HUID))
	case idtype.SCRU128:
		return a.Compare(b.(idtype.SCRU128))
	case idtype.SCRU128Bytes:
		return a.ID().Compare(b.(idtype.SCRU128Bytes).ID())
	}
	panic(fmt.Sprintf("not a key: %T", a))
}

// pgxDomainNames is what LoadDomains must find on every node once the
// migration has run on the coordinator.
var pgxDomainNames = []string{"huid", "scru128_bytes"}

// pgxCitusPool returns a pool on database postgres of node whose connections
// are set up as package pgxtype's documentation says: Register and
// LoadDomains in AfterConnect. The hook refuses a connection on which
// LoadDomains does not find both sortid domains, so every use of the pool
// checks that they exist on that node.
func pgxCitusPool(t *testing.T, node *pgcluster.Cluster, mode pgx.QueryExecMode) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(node.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = mode
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		pgxtype.Register(conn.TypeMap())
		loaded, err := pgxtype.LoadDomains(ctx, conn)
		if err != nil {
			return err
		}
		if !slices.Equal(loaded, pgxDomainNames) {
			return fmt.Errorf("LoadDomains on %s loaded %v, want %v", node.Name, loaded, pgxDomainNames)
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// pgxKeyRow is one row written by TestCitusPgx: a key and an array of keys,
// both idtype values (the array a slice of the key's type).
type pgxKeyRow struct {
	id   any
	more any
}

// pgxFreshRows returns n rows of fresh keys of k, each with an array of three.
func pgxFreshRows(k pgxKeyKind, n int) []pgxKeyRow {
	rows := make([]pgxKeyRow, n)
	for i := range rows {
		id := k.fresh()
		more := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(id)), 3, 3)
		for j := range 3 {
			more.Index(j).Set(reflect.ValueOf(k.fresh()))
		}
		rows[i] = pgxKeyRow{id, more.Interface()}
	}
	return rows
}

// pgxCitusWrite is one way TestCitusPgx writes rows: CopyFrom, or INSERT in
// a query mode.
type pgxCitusWrite struct {
	name string
	mode pgx.QueryExecMode
	copy bool
}

var pgxCitusWrites = []pgxCitusWrite{
	{"CopyFrom", pgx.QueryExecModeCacheStatement, true},
	{"INSERT prepared", pgx.QueryExecModeCacheStatement, false},
	{"INSERT simple protocol", pgx.QueryExecModeSimpleProtocol, false},
}

// pgxWriteRows stores rows in table with via as their via column, and
// returns the first error.
func pgxWriteRows(ctx context.Context, db *pgxpool.Pool, w pgxCitusWrite, table, via string, rows []pgxKeyRow) error {
	if w.copy {
		src := make([][]any, len(rows))
		for i, r := range rows {
			src[i] = []any{r.id, i, via, r.more}
		}
		n, err := db.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "n", "via", "more"}, pgx.CopyFromRows(src))
		if err == nil && n != int64(len(rows)) {
			err = fmt.Errorf("CopyFrom stored %d rows of %d", n, len(rows))
		}
		return err
	}
	for i, r := range rows {
		if _, err := db.Exec(ctx, "INSERT INTO "+table+" (id, n, via, more) VALUES ($1, $2, $3, $4)", r.id, i, via, r.more); err != nil {
			return err
		}
	}
	return nil
}

// pgxReadRows returns the rows of table with the given via, in the order
// of n, scanned into new values of the Go types of like.
func pgxReadRows(t *testing.T, db *pgxpool.Pool, table, via string, like pgxKeyRow) []pgxKeyRow {
	t.Helper()
	rows, err := db.Query(t.Context(), "SELECT id, more FROM "+table+" WHERE via = $1 ORDER BY n", via)
	if err != nil {
		t.Fatalf("%s: select: %v", via, err)
	}
	defer rows.Close()
	var got []pgxKeyRow
	for rows.Next() {
		id, more := reflect.New(reflect.TypeOf(like.id)), reflect.New(reflect.TypeOf(like.more))
		if err := rows.Scan(id.Interface(), more.Interface()); err != nil {
			t.Fatalf("%s: scan into %T, %T: %v", via, id.Interface(), more.Interface(), err)
		}
		got = append(got, pgxKeyRow{id.Elem().Interface(), more.Elem().Interface()})
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", via, err)
	}
	return got
}

// TestCitusPgx writes Go-made idtype keys through pgx with pgxtype into
// Citus tables distributed by a huid, bigint, uuid and scru128_bytes key,
// from the coordinator and from a worker, with CopyFrom and with INSERT in
// the prepared and the simple protocol, and reads every row back on the
// other node, equal, into the same idtype types. A CopyFrom without the key
// column fires the key's DEFAULT. Then it looks rows up by key, checks the
// domain columns on a worker, and records which co-locations Citus accepts.
//
// Citus 13.2 does not coerce a constant to a domain-typed distribution
// column: a one-row INSERT of a literal key is refused, a lookup
// WHERE id = <literal or parameter> finds nothing, and an UPDATE or DELETE
// WHERE id = <literal> kills the server process. The huid and
// scru128_bytes cases assert each of these, so a Citus that fixes them fails
// this test until the documentation says so.
func TestCitusPgx(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coordinator, worker := c.Coordinator, c.Workers[0]
	// Tables are made before the parallel subtests, one DDL at a time.
	for _, k := range pgxKeyKinds() {
		c.Exec(t, coordinator, fmt.Sprintf(`CREATE TABLE %s (id %s PRIMARY KEY DEFAULT %s, n int NOT NULL, via text NOT NULL, more %s[])`,
			k.table, k.sqlType, k.gen, k.sqlType))
		c.Exec(t, coordinator, fmt.Sprintf(`SELECT create_distributed_table('%s', 'id')`, k.table))
	}
	nodes := []*pgcluster.Cluster{coordinator, worker}
	modes := []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol}
	pools := map[*pgcluster.Cluster]map[pgx.QueryExecMode]*pgxpool.Pool{}
	for _, node := range nodes {
		pools[node] = map[pgx.QueryExecMode]*pgxpool.Pool{}
		for _, mode := range modes {
			pools[node][mode] = pgxCitusPool(t, node, mode)
		}
	}
	// Each batch is written on one node and read on the other.
	routes := []struct{ from, to *pgcluster.Cluster }{{coordinator, worker}, {worker, coordinator}}

	// The groups run one after the other (the later ones read the rows of
	// the round trip; the last one kills server processes), the cases of a
	// group in parallel.
	t.Run("round trip", func(t *testing.T) {
		for _, k := range pgxKeyKinds() {
			for _, w := range pgxCitusWrites {
				for _, r := range routes {
					t.Run(fmt.Sprintf("%s/%s/%s", k.sqlType, w.name, r.from.Name), func(t *testing.T) {
						t.Parallel()
						checkPgxRoundTrip(t, k, w, pools[r.from][w.mode], pools[r.to][w.mode], r.from.Name+" to "+r.to.Name)
					})
				}
			}
		}
	})

	t.Run("DEFAULT keys", func(t *testing.T) {
		for _, k := range pgxKeyKinds() {
			for _, r := range routes {
				t.Run(k.sqlType+"/"+r.from.Name, func(t *testing.T) {
					t.Parallel()
					checkPgxDefaultKeys(t, k, pools[r.from][pgx.QueryExecModeCacheStatement], pools[r.to][pgx.QueryExecModeCacheStatement], r.from.Name)
				})
			}
		}
	})

	t.Run("lookup by key", func(t *testing.T) {
		for _, k := range pgxKeyKinds() {
			for _, lc := range pgxLookupCases(k) {
				for _, node := range nodes {
					t.Run(fmt.Sprintf("%s/%s/%s/%s", k.sqlType, lc.mode, node.Name, lc.where), func(t *testing.T) {
						t.Parallel()
						checkPgxLookup(t, k, lc, pools[node][lc.mode], node.Name)
					})
				}
			}
		}
	})

	t.Run("LoadDomains on a worker", func(t *testing.T) {
		checkPgxWorkerDomains(t, worker, pools[worker][pgx.QueryExecModeCacheStatement])
	})

	t.Run("co-location", func(t *testing.T) {
		checkPgxColocation(t, coordinator.Connect(t, "postgres"))
	})

	t.Run("literal domain key in UPDATE and DELETE", func(t *testing.T) {
		checkPgxDomainKeyCrash(t, nodes)
	})
}

// checkPgxRoundTrip writes 50 rows of fresh keys of k with w on from and
// reads them back on to: equal, or, for a domain key written with a literal
// (the simple protocol), refused with Citus's coercion error.
func checkPgxRoundTrip(t *testing.T, k pgxKeyKind, w pgxCitusWrite, from, to *pgxpool.Pool, route string) {
	t.Helper()
	via := w.name + " " + route
	want := pgxFreshRows(k, 50)
	start := time.Now()
	err := pgxWriteRows(t.Context(), from, w, k.table, via, want)
	if k.domain && w.mode == pgx.QueryExecModeSimpleProtocol {
		if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Message != k.coerceError || pgErr.Code != "XX000" {
			t.Errorf("%s into a %s key: %v; want Citus's %q (SQLSTATE XX000)", via, k.sqlType, err, k.coerceError)
		}
		t.Logf("%s key, %s: refused: %v", k.sqlType, via, err)
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", via, err)
	}
	got := pgxReadRows(t, to, k.table, via, want[0])
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %d rows read differ from the %d written", via, len(got), len(want))
	}
	t.Logf("%s key, %s: %d rows equal in %v", k.sqlType, via, len(got), time.Since(start).Round(time.Millisecond))
}

// checkPgxDefaultKeys copies n rows without an id into k's table on from
// and checks, on to, the keys their DEFAULT gave them: n of them, distinct,
// valid (they scan into the idtype type), made between before and after
// (one clock: every node runs on this machine), and, for a generator whose
// keys ascend, in the order of the rows, as one session makes them.
func checkPgxDefaultKeys(t *testing.T, k pgxKeyKind, from, to *pgxpool.Pool, fromName string) {
	t.Helper()
	const n = 500
	via := "DEFAULT from " + fromName
	src := make([][]any, n)
	for i := range src {
		src[i] = []any{i, via}
	}
	before := time.Now()
	copied, err := from.CopyFrom(t.Context(), pgx.Identifier{k.table}, []string{"n", "via"}, pgx.CopyFromRows(src))
	after := time.Now()
	if err != nil || copied != n {
		t.Fatalf("CopyFrom without id: %d rows, %v; want %d", copied, err, n)
	}
	got := pgxReadRows(t, to, k.table, via, pgxFreshRows(k, 1)[0])
	seen := map[any]bool{}
	ascending := true
	for i, r := range got {
		seen[r.id] = true
		if at := k.timeOf(r.id); at.Before(before.Truncate(time.Millisecond)) || at.After(after) {
			t.Errorf("DEFAULT key %v carries %v, outside the copy's [%v, %v]", r.id, at, before, after)
		}
		if i > 0 && k.compare(got[i-1].id, r.id) >= 0 {
			ascending = false
		}
	}
	if len(got) != n || len(seen) != n {
		t.Errorf("%d rows with %d distinct DEFAULT keys, want %d", len(got), len(seen), n)
	}
	if k.ascends && !ascending {
		t.Errorf("the %s DEFAULT keys do not ascend in row order: they were not made by one session", k.sqlType)
	}
	t.Logf("%s DEFAULT, CopyFrom on %s: %d rows, %d distinct valid keys of the copy's time, ascending in row order: %v",
		k.sqlType, fromName, len(got), len(seen), ascending)
}

// pgxLookup is one way of finding a row by its key: a WHERE clause of $1,
// the key, and what Citus makes of it.
type pgxLookup struct {
	mode  pgx.QueryExecMode
	where string
	// found is how many of 10 keys looked up with SELECT are found;
	// updated how many rows an UPDATE of one key changes.
	found, updated int
	// tasks is the Task Count of EXPLAIN; pruned that the plan is Citus's
	// "One-Time Filter: false": every shard pruned away.
	tasks  int
	pruned bool
}

// pgxLookupCases returns the lookups of k's table and their outcomes. With a
// bigint or uuid key each finds its row on the one shard that holds it.
// With a domain key, a plain id = $1 (the parameter is the base type, the
// literal unknown) prunes every shard and finds nothing; an UPDATE through
// the simple protocol is not run here (it kills the server process: see
// checkPgxDomainKeyCrash). A cast to the domain finds the row, on one task
// with a parameter and on all 32 with a literal, but an UPDATE through a
// parameter cast to the domain changes nothing; IN finds it on every shard.
func pgxLookupCases(k pgxKeyKind) []pgxLookup {
	prepared, simple := pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol
	cast := "id = $1::" + k.sqlType
	if !k.domain {
		var cases []pgxLookup
		for _, mode := range []pgx.QueryExecMode{prepared, simple} {
			for _, where := range []string{"id = $1", cast, "id IN ($1, $1)"} {
				cases = append(cases, pgxLookup{mode: mode, where: where, found: 10, updated: 1, tasks: 1})
			}
		}
		return cases
	}
	return []pgxLookup{
		{mode: prepared, where: "id = $1", found: 0, updated: 0, tasks: 1, pruned: true},
		{mode: simple, where: "id = $1", found: 0, updated: -1, tasks: 1, pruned: true},
		{mode: prepared, where: cast, found: 10, updated: 0, tasks: 1},
		{mode: simple, where: cast, found: 10, updated: 1, tasks: 32},
		{mode: prepared, where: "id IN ($1, $1)", found: 10, updated: 1, tasks: 32},
		{mode: simple, where: "id IN ($1, $1)", found: 10, updated: 1, tasks: 32},
	}
}

// checkPgxLookup looks up 10 keys of the CopyFrom batch of the round trip
// by lc on db, EXPLAINs the lookup, and updates one row by lc (updated -1:
// not run).
func checkPgxLookup(t *testing.T, k pgxKeyKind, lc pgxLookup, db *pgxpool.Pool, nodeName string) {
	t.Helper()
	rows := pgxReadRows(t, db, k.table, "CopyFrom coordinator to worker1", pgxFreshRows(k, 1)[0])
	if len(rows) < 10 {
		t.Fatalf("%d rows of the round trip's CopyFrom, want 50", len(rows))
	}
	found := 0
	for _, r := range rows[:10] {
		var n int
		if err := db.QueryRow(t.Context(), "SELECT count(*) FROM "+k.table+" WHERE "+lc.where, r.id).Scan(&n); err != nil {
			t.Fatalf("lookup: %v", err)
		}
		found += n
	}
	plan := explainPgx(t, db, "EXPLAIN SELECT count(*) FROM "+k.table+" WHERE "+lc.where, rows[0].id)
	tasks := citusTaskCount(plan)
	pruned := strings.Contains(plan, "One-Time Filter: (false AND")
	updated := -1
	if lc.updated >= 0 {
		tag, err := db.Exec(t.Context(), "UPDATE "+k.table+" SET via = via WHERE "+lc.where, rows[1].id)
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		updated = int(tag.RowsAffected())
	}
	if found != lc.found || updated != lc.updated || tasks != lc.tasks || pruned != lc.pruned {
		t.Errorf("found %d of 10, updated %d, %d tasks, all shards pruned %v; want %d, %d, %d, %v\n%s",
			found, updated, tasks, pruned, lc.found, lc.updated, lc.tasks, lc.pruned, plan)
	}
	t.Logf("%s key, %s on %s, WHERE %s: found %d of 10, UPDATE changed %d (-1: not run), %d tasks, all shards pruned: %v",
		k.sqlType, lc.mode, nodeName, lc.where, found, updated, tasks, pruned)
}

// explainPgx returns the text of an EXPLAIN run on db with args.
func explainPgx(t *testing.T, db *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	rows, err := db.Query(t.Context(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(lines, "\n")
}

// citusTaskCount is the "Task Count: N" of a Citus plan in text form, or
// -1 when it has none.
func citusTaskCount(plan string) int {
	var n int
	if _, rest, ok := strings.Cut(plan, "Task Count: "); ok {
		if _, err := fmt.Sscan(rest, &n); err == nil {
			return n
		}
	}
	return -1
}

// checkPgxWorkerDomains checks on a worker what LoadDomains changes: the
// pool's connections know the domains and their arrays, and the huid[] and
// scru128_bytes[] columns arrive in the binary format with their array
// types' OIDs, where a connection with Register alone gets them as text;
// both scan them into idtype slices.
func checkPgxWorkerDomains(t *testing.T, worker *pgcluster.Cluster, withDomains *pgxpool.Pool) {
	t.Helper()
	conn, err := withDomains.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	registered := worker.Connect(t, "postgres")
	pgxtype.Register(registered.TypeMap())
	for _, c := range []struct {
		table, array string
		dst          func() any
	}{
		{"px_huid", "_huid", func() any { return &[]idtype.HUID{} }},
		{"px_bytes", "_scru128_bytes", func() any { return &[]idtype.SCRU128Bytes{} }},
	} {
		arrayType, ok := conn.Conn().TypeMap().TypeForName(c.array)
		if !ok {
			t.Fatalf("%s: LoadDomains did not register %s", worker.Name, c.array)
		}
		query := "SELECT more FROM " + c.table + " WHERE more IS NOT NULL LIMIT 1"
		for _, q := range []struct {
			name   string
			conn   *pgx.Conn
			format int16
		}{
			{"LoadDomains", conn.Conn(), pgx.BinaryFormatCode},
			{"Register alone", registered, pgx.TextFormatCode},
		} {
			rows, err := q.conn.Query(t.Context(), query)
			if err != nil {
				t.Fatal(err)
			}
			dst := c.dst()
			tag, err := pgx.ForEachRow(rows, []any{dst}, func() error { return nil })
			n := tag.RowsAffected()
			field := rows.FieldDescriptions()[0]
			if err != nil || n != 1 || reflect.ValueOf(dst).Elem().Len() != 3 ||
				field.DataTypeOID != arrayType.OID || field.Format != q.format {
				t.Errorf("%s with %s: %d rows, %v, %v; column OID %d format %d; want 3 keys, OID %d (%s), format %d",
					c.table, q.name, n, dst, err, field.DataTypeOID, field.Format, arrayType.OID, c.array, q.format)
			}
			t.Logf("%s on %s with %s: more (%s, OID %d) in format %d, scanned %d keys", c.table, worker.Name, q.name, c.array, field.DataTypeOID, field.Format, reflect.ValueOf(dst).Elem().Len())
		}
	}
}

// checkPgxColocation creates one more table per case, distributed by a key
// of the given type and co-located with a table of TestCitusPgx, and checks
// whether Citus accepts it: it requires the distribution columns to be of
// the same type, and a domain is not its base type.
func checkPgxColocation(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	cases := []struct {
		sqlType, with string
		refused       bool
	}{
		{"huid", "px_huid", false},
		{"bigint", "px_bigint", false},
		{"bigint", "px_huid", true},
		{"huid", "px_bigint", true},
		{"uuid", "px_uuid", false},
		{"scru128_bytes", "px_bytes", false},
		{"bytea", "px_bytes", true},
	}
	for i, c := range cases {
		table := fmt.Sprintf("colo_%d", i)
		if _, err := conn.Exec(t.Context(), fmt.Sprintf("CREATE TABLE %s (id %s PRIMARY KEY)", table, c.sqlType)); err != nil {
			t.Fatal(err)
		}
		_, err := conn.Exec(t.Context(), "SELECT create_distributed_table($1, 'id', colocate_with => $2)", table, c.with)
		pgErr := (*pgconn.PgError)(nil)
		refusal := errors.As(err, &pgErr) && pgErr.Code == "XX000" &&
			pgErr.Message == fmt.Sprintf("cannot colocate tables %s and %s", c.with, table) &&
			pgErr.Detail == fmt.Sprintf("Distribution column types don't match for %s and %s.", c.with, table)
		switch {
		case !c.refused && err != nil:
			t.Errorf("%s key co-located with %s: %v, want it accepted", c.sqlType, c.with, err)
		case c.refused && !refusal:
			t.Errorf("%s key co-located with %s: %v, want Citus's refusal: distribution column types don't match", c.sqlType, c.with, err)
		case c.refused:
			t.Logf("%s key co-located with %s: %s (SQLSTATE %s) DETAIL: %s", c.sqlType, c.with, pgErr.Message, pgErr.Code, pgErr.Detail)
		default:
			t.Logf("%s key co-located with %s: accepted", c.sqlType, c.with)
		}
	}
}

// checkPgxDomainKeyCrash runs UPDATE and DELETE WHERE id = <literal> on the
// domain-keyed tables, one statement at a time, and checks that the server
// process running it dies of a segmentation fault (the connection is lost
// and the node's log says so), then waits for the node to take connections
// again.
func checkPgxDomainKeyCrash(t *testing.T, nodes []*pgcluster.Cluster) {
	t.Helper()
	cases := []struct {
		node int
		sql  string
	}{
		{0, "UPDATE px_huid SET via = 'x' WHERE id = $1"},
		{0, "DELETE FROM px_huid WHERE id = $1"},
		{0, "UPDATE px_bytes SET via = 'x' WHERE id = $1"},
		{1, "UPDATE px_huid SET via = 'x' WHERE id = $1"},
	}
	h, b := idtype.NewHUID(), idtype.SCRU128Bytes(idtype.NewSCRU128())
	keys := map[string]any{"px_huid": h, "px_bytes": b}
	literals := map[string]string{"px_huid": "'" + h.String() + "'", "px_bytes": `'\x` + hex.EncodeToString(b[:]) + "'"}
	for _, c := range cases {
		node := nodes[c.node]
		conn := node.Connect(t, "postgres")
		table := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(c.sql, "DELETE FROM "), "UPDATE "))[0]
		// The log names the statement with the key as the literal pgx made.
		statement := strings.TrimSuffix(c.sql, "$1") + " " + literals[table] // pgx pads an argument with spaces
		logBefore := len(node.Log())
		_, err := conn.Exec(t.Context(), c.sql, pgx.QueryExecModeSimpleProtocol, keys[table])
		if err == nil || sqlState(err) != "" {
			t.Errorf("%s on %s: %v; want the connection lost", c.sql, node.Name, err)
		}
		pgcluster.Eventually(t, 30*time.Second, 100*time.Millisecond, node.Name+" back after the crash", func() (bool, error) {
			log := node.Log()[logBefore:]
			if !strings.Contains(log, "was terminated by signal 11: Segmentation fault") ||
				!strings.Contains(log, "Failed process was running: "+statement) ||
				!strings.Contains(log, "database system is ready to accept connections") {
				return false, nil
			}
			probe, err := pgx.Connect(t.Context(), node.URL("postgres"))
			if err != nil {
				return false, nil
			}
			return true, probe.Close(context.Background())
		})
		t.Logf("%s on %s through the simple protocol: %v; the server process died of signal 11 and %s recovered", c.sql, node.Name, err, node.Name)
	}
}
