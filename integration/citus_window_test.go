package integration_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgxtype"
)

// The rows of TestCitusWindows come in bursts, one an hour for
// windowDays days back from the anchor (the time the test made them):
// windowBurst rows at random milliseconds between 45 and 15 minutes before
// each whole hour counted back from the anchor. The half hour around each
// of those hours holds no row, so a window bounded by now() minus whole
// hours returns the same rows for as long as now() is less than 15 minutes
// past the anchor, on every node, whatever moment each one takes for now().
const (
	windowDays    = 5
	windowBurst   = 25
	windowTenants = 8
)

// windowRow is one row of TestCitusWindows, the same in every table.
type windowRow struct {
	tenant int
	at     time.Time // the millisecond both keys carry
	id     idtype.HUID
	sid    idtype.SCRU128
}

// windowRows makes the rows, with Go-made keys.
func windowRows(t *testing.T, anchor time.Time) []windowRow {
	t.Helper()
	gen := idtype.NewSCRU128Generator()
	seen := map[idtype.HUID]bool{}
	var rows []windowRow
	for h := range windowDays * 24 {
		start := anchor.Add(-time.Duration(h)*time.Hour - 45*time.Minute)
		for range windowBurst {
			at := start.Add(time.Duration(rand.Int64N(int64(30*time.Minute/time.Millisecond))) * time.Millisecond)
			id, err := idtype.HUIDFromParts(at, rand.Uint32N(idtype.HUIDMaxRandom+1))
			if err != nil {
				t.Fatal(err)
			}
			sid, err := gen.GenerateAt(at)
			if err != nil {
				t.Fatal(err)
			}
			if seen[id] {
				continue // drawn twice: leave it out
			}
			seen[id] = true
			rows = append(rows, windowRow{tenant: 1 + len(rows)%windowTenants, at: at, id: id, sid: sid})
		}
	}
	return rows
}

// windowKind says which key a window bounds: the HUID id or the SCRU128 sid.
type windowKind int

const (
	huidWindow windowKind = iota
	scru128Window
)

// windowLayout is one table of TestCitusWindows holding every row:
// (tenant_id int, id bigint, sid uuid) with a key and a Citus layout.
type windowLayout struct {
	name string
	// ddl creates the table windowTable(name); partitions are added after.
	ddl string
	// citus is the statement that makes it a Citus table ("" for the
	// local table).
	citus string
	kind  windowKind
	// partitioned: the table has the daily partitions of windowPartitions.
	partitioned bool
	// local: the plain PostgreSQL table every layout is compared with.
	local bool
}

func windowTable(layout string) string { return "w_" + layout }

var windowLayouts = []windowLayout{
	{name: "local", local: true, kind: huidWindow,
		ddl: "CREATE TABLE w_local (tenant_id int NOT NULL, id bigint PRIMARY KEY, sid uuid NOT NULL UNIQUE)"},
	{name: "by_id", kind: huidWindow,
		ddl:   "CREATE TABLE w_by_id (tenant_id int NOT NULL, id bigint PRIMARY KEY, sid uuid NOT NULL)",
		citus: "SELECT create_distributed_table('w_by_id', 'id')"},
	{name: "tenant", kind: huidWindow,
		ddl:   "CREATE TABLE w_tenant (tenant_id int NOT NULL, id bigint NOT NULL, sid uuid NOT NULL, PRIMARY KEY (tenant_id, id))",
		citus: "SELECT create_distributed_table('w_tenant', 'tenant_id')"},
	{name: "reference", kind: huidWindow,
		ddl:   "CREATE TABLE w_reference (tenant_id int NOT NULL, id bigint PRIMARY KEY, sid uuid NOT NULL)",
		citus: "SELECT create_reference_table('w_reference')"},
	{name: "partitioned", kind: huidWindow, partitioned: true,
		ddl:   "CREATE TABLE w_partitioned (tenant_id int NOT NULL, id bigint NOT NULL, sid uuid NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id)",
		citus: "SELECT create_distributed_table('w_partitioned', 'id')"},
	{name: "scru128_by_id", kind: scru128Window,
		ddl:   "CREATE TABLE w_scru128_by_id (tenant_id int NOT NULL, id bigint NOT NULL, sid uuid PRIMARY KEY)",
		citus: "SELECT create_distributed_table('w_scru128_by_id', 'sid')"},
}

// windowPartition is one partition of w_partitioned: [from, to).
type windowPartition struct{ from, to time.Time }

// windowPartitions are one day each, counted back from the anchor rather
// than from midnight, so that which rows and windows fall in which
// partition does not depend on the time of day the test runs. Each bound
// falls in a gap between bursts.
func windowPartitions(anchor time.Time) []windowPartition {
	var parts []windowPartition
	for d := range windowDays {
		to := anchor.Add(-time.Duration(d) * 24 * time.Hour)
		parts = append(parts, windowPartition{to.Add(-24 * time.Hour), to})
	}
	return parts
}

// sqlTime is t as a timestamptz literal in UTC, to the millisecond.
func sqlTime(t time.Time) string { return "'" + t.UTC().Format("2006-01-02 15:04:05.000") + "+00'" }

// citusWindow is one query window of TestCitusWindows: a WHERE clause with
// its arguments, and the rows it must return, from Go: those of the
// milliseconds from to to (to included when incl) and of tenant, unless
// tenant is 0.
type citusWindow struct {
	name   string
	kind   windowKind
	where  string
	args   []any
	from   time.Time
	to     time.Time
	incl   bool
	tenant int
}

// wants reports whether the window holds row r.
func (w citusWindow) wants(r windowRow) bool {
	if w.tenant != 0 && r.tenant != w.tenant {
		return false
	}
	if w.incl {
		return !r.at.Before(w.from) && !r.at.After(w.to)
	}
	return !r.at.Before(w.from) && r.at.Before(w.to)
}

// citusWindows returns the windows for rows made back from anchor; edge is
// a row whose millisecond starts two of them and edge2 one that ends them.
func citusWindows(t *testing.T, anchor time.Time, edge, edge2 windowRow) []citusWindow {
	t.Helper()
	h := func(n int) time.Time { return anchor.Add(-time.Duration(n) * time.Hour) }
	lo, hi, err := idtype.HUIDRange(h(100), h(80))
	if err != nil {
		t.Fatal(err)
	}
	slo, shi, err := idtype.SCRU128Range(h(100), h(80))
	if err != nil {
		t.Fatal(err)
	}
	return []citusWindow{
		{name: "constants, BETWEEN, 24 hours", kind: huidWindow,
			where: fmt.Sprintf("id BETWEEN huid_min(%s) AND huid_max(%s)", sqlTime(h(50)), sqlTime(h(26))),
			from:  h(50), to: h(26), incl: true},
		{name: "constants, half-open, one partition", kind: huidWindow,
			where: fmt.Sprintf("id >= huid_min(%s) AND id < huid_min(%s)", sqlTime(h(72)), sqlTime(h(48))),
			from:  h(72), to: h(48)},
		{name: "constants, BETWEEN, at rows' milliseconds", kind: huidWindow,
			where: fmt.Sprintf("id BETWEEN huid_min(%s) AND huid_max(%s)", sqlTime(edge.at), sqlTime(edge2.at)),
			from:  edge.at, to: edge2.at, incl: true},
		{name: "constants, half-open, at rows' milliseconds", kind: huidWindow,
			where: fmt.Sprintf("id >= huid_min(%s) AND id < huid_min(%s)", sqlTime(edge.at), sqlTime(edge2.at)),
			from:  edge.at, to: edge2.at},
		{name: "now(), half-open, 24 hours", kind: huidWindow,
			where: "id >= huid_min(now() - interval '30 hours') AND id < huid_min(now() - interval '6 hours')",
			from:  h(30), to: h(6)},
		{name: "now(), BETWEEN, 2 days to now()", kind: huidWindow,
			where: "id BETWEEN huid_min(now() - interval '2 days') AND huid_max(now())",
			from:  h(48), to: anchor, incl: true},
		{name: "now(), half-open, one hour", kind: huidWindow,
			where: "id >= huid_min(now() - interval '3 hours') AND id < huid_min(now() - interval '2 hours')",
			from:  h(3), to: h(2)},
		{name: "parameters, huid_min($1) and huid_max($2)", kind: huidWindow,
			where: "id BETWEEN huid_min($1) AND huid_max($2)", args: []any{h(100), h(80)},
			from: h(100), to: h(80), incl: true},
		{name: "parameters, HUIDRange keys", kind: huidWindow,
			where: "id BETWEEN $1 AND $2", args: []any{lo, hi},
			from: h(100), to: h(80)},
		{name: "tenant, constants, 6 hours", kind: huidWindow, tenant: 3,
			where: fmt.Sprintf("tenant_id = 3 AND id BETWEEN huid_min(%s) AND huid_max(%s)", sqlTime(h(50)), sqlTime(h(44))),
			from:  h(50), to: h(44), incl: true},
		{name: "tenant, now()", kind: huidWindow, tenant: 3,
			where: "tenant_id = 3 AND id >= huid_min(now() - interval '30 hours') AND id < huid_min(now() - interval '6 hours')",
			from:  h(30), to: h(6)},
		{name: "tenant, parameters", kind: huidWindow, tenant: 3,
			where: "tenant_id = $3 AND id BETWEEN huid_min($1) AND huid_max($2)", args: []any{h(100), h(80), 3},
			from: h(100), to: h(80), incl: true},
		{name: "SCRU128, constants", kind: scru128Window,
			where: fmt.Sprintf("sid BETWEEN scru128_min(%s) AND scru128_max(%s)", sqlTime(h(50)), sqlTime(h(26))),
			from:  h(50), to: h(26), incl: true},
		{name: "SCRU128, now(), half-open, 24 hours", kind: scru128Window,
			where: "sid >= scru128_min(now() - interval '30 hours') AND sid < scru128_min(now() - interval '6 hours')",
			from:  h(30), to: h(6)},
		{name: "SCRU128, now(), half-open, one hour", kind: scru128Window,
			where: "sid >= scru128_min(now() - interval '3 hours') AND sid < scru128_min(now() - interval '2 hours')",
			from:  h(3), to: h(2)},
		{name: "SCRU128, parameters, scru128_min($1) and scru128_max($2)", kind: scru128Window,
			where: "sid BETWEEN scru128_min($1) AND scru128_max($2)", args: []any{h(100), h(80)},
			from: h(100), to: h(80), incl: true},
		{name: "SCRU128, parameters, SCRU128Range keys", kind: scru128Window,
			where: "sid BETWEEN $1 AND $2", args: []any{slo, shi},
			from: h(100), to: h(80)},
	}
}

// windowPlan is what TestCitusWindows reads from a plan: the Citus task
// count (0 for a plain PostgreSQL plan), the scans of every task (sorted,
// each), how many relations each task reads (sorted, distinct: one
// partition or table each) and the ports of the nodes the tasks run on
// (sorted, distinct).
type windowPlan struct {
	tasks     int
	scans     []string
	relations []int
	// removed is the total of "Subplans Removed" over the tasks:
	// partitions pruned when the plan starts, not when it was made.
	removed int
	nodes   []string
}

// windowPlanNode is the part of an EXPLAIN (FORMAT JSON) node that
// TestCitusWindows reads, Citus's distributed query included.
type windowPlanNode struct {
	NodeType    string           `json:"Node Type"`
	Relation    string           `json:"Relation Name"`
	Removed     int              `json:"Subplans Removed"`
	Plans       []windowPlanNode `json:"Plans"`
	Distributed *struct {
		Job struct {
			TaskCount int `json:"Task Count"`
			Tasks     []struct {
				Node       string `json:"Node"`
				RemotePlan [][]struct {
					Plan windowPlanNode `json:"Plan"`
				} `json:"Remote Plan"`
			} `json:"Tasks"`
		} `json:"Job"`
	} `json:"Distributed Query"`
}

// explainWindow runs EXPLAIN (FORMAT JSON) of query on conn, in which
// citus.explain_all_tasks is on, and reads it.
func explainWindow(t *testing.T, conn *pgx.Conn, query string, args ...any) windowPlan {
	t.Helper()
	var out string
	if err := conn.QueryRow(t.Context(), "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&out); err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	var plans []struct{ Plan windowPlanNode }
	if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("EXPLAIN output (%v): %s", err, out)
	}
	var p windowPlan
	add := func(root windowPlanNode) {
		n := 0
		var walk func(windowPlanNode)
		walk = func(node windowPlanNode) {
			if node.Relation != "" {
				n++
				p.scans = append(p.scans, node.NodeType)
			}
			p.removed += node.Removed
			for _, c := range node.Plans {
				walk(c)
			}
		}
		walk(root)
		p.relations = append(p.relations, n)
	}
	root := plans[0].Plan
	if root.Distributed == nil {
		add(root)
	} else {
		job := root.Distributed.Job
		p.tasks = job.TaskCount
		if len(job.Tasks) != job.TaskCount {
			t.Fatalf("EXPLAIN shows %d of %d tasks: is citus.explain_all_tasks off?", len(job.Tasks), job.TaskCount)
		}
		for _, task := range job.Tasks {
			_, port, _ := strings.Cut(task.Node, "port=")
			p.nodes = append(p.nodes, strings.Fields(port)[0])
			for _, rp := range task.RemotePlan {
				for _, plan := range rp {
					add(plan.Plan)
				}
			}
		}
	}
	slices.Sort(p.scans)
	slices.Sort(p.nodes)
	p.nodes = slices.Compact(p.nodes)
	slices.Sort(p.relations)
	p.relations = slices.Compact(p.relations)
	return p
}

// windowIDs runs query on conn and returns the keys it returns, as text,
// sorted: HUIDs scanned into idtype.HUID, SCRU128s into idtype.SCRU128.
func windowIDs(t *testing.T, conn *pgx.Conn, kind windowKind, query string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(t.Context(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var ids []string
	if kind == huidWindow {
		keys, err := pgx.CollectRows(rows, pgx.RowTo[idtype.HUID])
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for _, k := range keys {
			ids = append(ids, k.String())
		}
	} else {
		keys, err := pgx.CollectRows(rows, pgx.RowTo[idtype.SCRU128])
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for _, k := range keys {
			ids = append(ids, k.String())
		}
	}
	slices.Sort(ids)
	return ids
}

// wantIDs is windowIDs' answer from Go: the keys of the rows w holds.
func wantIDs(rows []windowRow, w citusWindow) []string {
	var ids []string
	for _, r := range rows {
		if w.wants(r) {
			if w.kind == huidWindow {
				ids = append(ids, r.id.String())
			} else {
				ids = append(ids, r.sid.String())
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// wantTasks is the Citus task count of a window on layout l: one per shard
// (citus.shard_count, 32 by default) on a distributed table, unless the
// tenant is given on the table distributed by tenant; one on a reference
// table; none on the local table.
func wantTasks(l windowLayout, w citusWindow) int {
	switch {
	case l.local:
		return 0
	case l.name == "reference", l.name == "tenant" && w.tenant != 0:
		return 1
	}
	return 32
}

// wantRelations is how many relations each task reads: the partitions the
// window overlaps on the partitioned layout, pruned when planned or when
// run, else the one shard (or table).
func wantRelations(l windowLayout, w citusWindow, parts []windowPartition) int {
	if !l.partitioned {
		return 1
	}
	last := w.to
	if !w.incl {
		last = w.to.Add(-time.Millisecond)
	}
	n := 0
	for _, p := range parts {
		if !p.from.After(last) && w.from.Before(p.to) {
			n++
		}
	}
	return n
}

// TestCitusWindows loads the same rows (Go-made HUIDs and SCRU128s over
// windowDays days, in windowTenants tenants) into a plain table on the
// coordinator and into each Citus layout of windowLayouts, and checks that
// every window of citusWindows returns exactly the rows Go expects from
// every layout of its kind, and, from EXPLAIN on the coordinator with
// citus.explain_all_tasks on, the task count (wantTasks), the relations
// each task reads (wantRelations), the partitions pruned only when the
// plan starts, and the nodes the tasks run on (windowPorts.want). The scans
// each task uses are logged, not checked: on shards of about 100 rows (one
// page) PostgreSQL's choice between an index and a sequential scan changes
// with each run's random keys. Every query's best time of three runs is
// logged.
func TestCitusWindows(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	conn := c.Coordinator.Connect(t, "postgres")
	pgxtype.Register(conn.TypeMap())
	execAll(t, conn, "SET citus.explain_all_tasks = on")

	ports := windowPorts{coordinator: strconv.Itoa(c.Coordinator.Port)}
	for _, w := range c.Workers {
		ports.workers = append(ports.workers, strconv.Itoa(w.Port))
	}
	slices.Sort(ports.workers)

	anchor := time.Now().UTC().Truncate(time.Millisecond)
	rows := windowRows(t, anchor)
	parts := windowPartitions(anchor)
	src := make([][]any, len(rows))
	for i, r := range rows {
		src[i] = []any{r.tenant, r.id, r.sid}
	}
	for _, l := range windowLayouts {
		table := windowTable(l.name)
		execAll(t, conn, l.ddl)
		if l.partitioned {
			for i, p := range parts {
				execAll(t, conn, fmt.Sprintf("CREATE TABLE %s_d%d PARTITION OF %s FOR VALUES FROM (huid_min(%s)) TO (huid_min(%s))",
					table, i, table, sqlTime(p.from), sqlTime(p.to)))
			}
		}
		if l.citus != "" {
			execAll(t, conn, l.citus)
		}
		n, err := conn.CopyFrom(t.Context(), pgx.Identifier{table}, []string{"tenant_id", "id", "sid"}, pgx.CopyFromRows(src))
		if err != nil || n != int64(len(rows)) {
			t.Fatalf("%s: CopyFrom: %d rows, %v; want %d", table, n, err, len(rows))
		}
		execAll(t, conn, "VACUUM ANALYZE "+table)
	}
	t.Logf("%d rows over %d days, %d tenants; anchor %s; coordinator on port %s, workers on %v",
		len(rows), windowDays, windowTenants, anchor.Format(time.RFC3339Nano), ports.coordinator, ports.workers)

	// The 8 tenants' hashes put them in 7 of the 32 shards.
	var tenantShards int
	err := conn.QueryRow(t.Context(), "SELECT count(DISTINCT get_shard_id_for_distribution_column('w_tenant', tenant_id)) FROM w_tenant").Scan(&tenantShards)
	if err != nil || tenantShards != 7 {
		t.Fatalf("the tenants are in %d shards of w_tenant (%v), want 7", tenantShards, err)
	}

	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b windowRow) int { return a.at.Compare(b.at) })
	edge, edge2 := sorted[len(sorted)/2], sorted[len(sorted)/2+40]
	for _, w := range citusWindows(t, anchor, edge, edge2) {
		want := wantIDs(rows, w)
		if len(want) == 0 {
			t.Fatalf("%s: no row in the window: the window or the data is wrong", w.name)
		}
		for _, l := range windowLayouts {
			if l.kind != w.kind && !l.local {
				continue
			}
			t.Run(w.name+"/"+l.name, func(t *testing.T) {
				checkWindow(t, conn, ports, l, w, want, parts)
			})
		}
		if time.Since(anchor) > 10*time.Minute {
			t.Fatalf("the windows took over 10 minutes: now()-relative windows may no longer fall between bursts")
		}
	}
}

// checkWindow runs window w on layout l and checks its rows and its plan.
func checkWindow(t *testing.T, conn *pgx.Conn, ports windowPorts, l windowLayout, w citusWindow, want []string, parts []windowPartition) {
	t.Helper()
	column := map[windowKind]string{huidWindow: "id", scru128Window: "sid"}[w.kind]
	query := fmt.Sprintf("SELECT %s FROM %s WHERE %s", column, windowTable(l.name), w.where)
	var got []string
	best := time.Duration(1 << 62)
	for range 3 { // the best of three runs
		start := time.Now()
		got = windowIDs(t, conn, w.kind, query, w.args...)
		best = min(best, time.Since(start))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s returns %d rows, want the %d of the window (Go's, which the local table must return too)", query, len(got), len(want))
	}
	p := explainWindow(t, conn, query, w.args...)
	wantRels := wantRelations(l, w, parts)
	// now() is stable, not immutable: its windows' partitions are pruned
	// when each task's plan starts; constants and parameters (bound before
	// planning) prune them when it is made.
	wantRemoved := 0
	if l.partitioned && strings.Contains(w.where, "now()") {
		wantRemoved = wantTasks(l, w) * (len(parts) - wantRels)
	}
	if p.tasks != wantTasks(l, w) || !slices.Equal(p.relations, []int{wantRels}) ||
		p.removed != wantRemoved || !ports.want(l, w, p.nodes) {
		t.Errorf("%s: %d tasks on %v, relations per task %v, %d subplans removed; want %d, [%d], %d",
			query, p.tasks, p.nodes, p.relations, p.removed, wantTasks(l, w), wantRels, wantRemoved)
	}
	t.Logf("%-13s %3d rows in %6.2f ms: %2d tasks, %s, %v relations per task, %d subplans removed, on %s",
		l.name, len(got), float64(best.Microseconds())/1000, p.tasks, scanCounts(p.scans), p.relations, p.removed, strings.Join(p.nodes, "; "))
}

// scanCounts says how many relations each scan reads, "32 Index Only Scan + 3 Seq Scan".
func scanCounts(scans []string) string {
	var parts []string
	for i := 0; i < len(scans); {
		j := i
		for j < len(scans) && scans[j] == scans[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d %s", j-i, scans[i]))
		i = j
	}
	return strings.Join(parts, " + ")
}

// windowPorts are the ports of the Citus nodes, all on 127.0.0.1.
type windowPorts struct {
	coordinator string
	workers     []string // sorted
}

// want reports whether the tasks of window w on layout l run on nodes,
// where they are seen to: none on the local table; a reference table, of
// which every node holds a copy (citus_set_coordinator_host put the
// coordinator in the metadata), on one node, the coordinator or a worker;
// one worker for the tenant given; both
// workers, not the coordinator, for a distributed table's shards.
func (p windowPorts) want(l windowLayout, w citusWindow, nodes []string) bool {
	switch {
	case l.local:
		return len(nodes) == 0
	case l.name == "reference":
		return len(nodes) == 1
	case l.name == "tenant" && w.tenant != 0:
		return len(nodes) == 1 && slices.Contains(p.workers, nodes[0])
	}
	return slices.Equal(nodes, p.workers)
}
