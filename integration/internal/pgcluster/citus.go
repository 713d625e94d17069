package pgcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// CitusFix names how to get Citus onto this machine.
const CitusFix = "build it into the local PostgreSQL with ../shared/vendor/citus/build.sh as root (.ci/run does)"

// CitusSettings are added to PrimarySettings on every Citus node. The
// statistics collection is off: it would send reports off this machine.
var CitusSettings = []string{
	"shared_preload_libraries = 'citus'",
	"max_connections = 100",
	"citus.enable_statistics_collection = off",
}

// Citus is a Citus cluster of throwaway clusters on this host: a
// coordinator and workers, the citus extension created in database
// postgres of each.
type Citus struct {
	Coordinator *Cluster
	Workers     []*Cluster
	host        *Host
}

// Citus starts a coordinator and the given number of workers, each a
// Primary with CitusSettings, and adds the workers to the coordinator
// (citus_set_coordinator_host, citus_add_node). A PostgreSQL without
// Citus is reported with Missing.
func (h *Host) Citus(tb testing.TB, workers int) *Citus {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(h.PkgLibDir(tb), "citus.so")); err != nil {
		Missing(tb, h.Major, "Citus", CitusFix)
	}
	c := &Citus{Coordinator: h.citusNode(tb, "coordinator"), host: h}
	c.Exec(tb, c.Coordinator, fmt.Sprintf("SELECT citus_set_coordinator_host('127.0.0.1', %d)", c.Coordinator.Port))
	for range workers {
		c.AddWorker(tb)
	}
	return c
}

// PkgLibDir is the directory of the version's loadable modules: `pg_config
// --pkglibdir` of Bindir's pg_config, or, where the version ships none (the
// matrix's packages), lib/postgresql beside Bindir, where those put them.
func (h *Host) PkgLibDir(tb testing.TB) string {
	tb.Helper()
	pgConfig := filepath.Join(h.Bindir, "pg_config")
	if !isExecutable(pgConfig) {
		return filepath.Join(filepath.Dir(h.Bindir), "lib", "postgresql")
	}
	out, err := exec.Command(pgConfig, "--pkglibdir").Output()
	if err != nil {
		tb.Fatalf("pgcluster: %s --pkglibdir: %v", pgConfig, err)
	}
	return strings.TrimSpace(string(out))
}

// AddWorker starts one more worker and adds it to the coordinator.
func (c *Citus) AddWorker(tb testing.TB) *Cluster {
	tb.Helper()
	w := c.host.citusNode(tb, fmt.Sprintf("worker%d", len(c.Workers)+1))
	c.Exec(tb, c.Coordinator, fmt.Sprintf("SELECT citus_add_node('127.0.0.1', %d)", w.Port))
	c.Workers = append(c.Workers, w)
	return w
}

// Nodes returns the coordinator followed by the workers.
func (c *Citus) Nodes() []*Cluster {
	return append([]*Cluster{c.Coordinator}, c.Workers...)
}

// Exec runs sql on database postgres of node in a connection of its own,
// failing tb on an error.
func (c *Citus) Exec(tb testing.TB, node *Cluster, sql string) {
	tb.Helper()
	execOn(tb, node, sql)
}

func (h *Host) citusNode(tb testing.TB, name string) *Cluster {
	tb.Helper()
	n := h.Primary(tb, name, CitusSettings...)
	execOn(tb, n, "CREATE EXTENSION citus")
	return n
}

func execOn(tb testing.TB, node *Cluster, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), StartTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, node.URL("postgres"))
	if err != nil {
		tb.Fatalf("pgcluster: connect to %s: %v", node.Name, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("pgcluster: %s on %s: %v", sql, node.Name, err)
	}
}
