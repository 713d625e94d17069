package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// EnvDSN names the server the tests must use, as a go-sql-driver/mysql DSN
// of a user who may CREATE and DROP DATABASE.
const EnvDSN = "SORTID_TEST_MYSQL"

// DefaultDSN is the server used when EnvDSN is unset.
const DefaultDSN = "root@tcp(127.0.0.1:3306)/"

// NamePrefix starts the name of every database the harness creates.
const NamePrefix = pgtest.NamePrefix

// StaleAfter is the age past which a database left by a killed run is dropped.
const StaleAfter = 6 * time.Hour

// DSN returns the DSN (with parseTime=true) of a fresh database for tb,
// dropped when tb ends. Under -short it skips tb; when no server answers it
// fails tb with the fixes.
func DSN(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("mysqltest: database test skipped in -short mode")
	}
	dsn, drop, err := create(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(drop)
	return dsn
}

// DB returns a database/sql handle on the run's database, closed when tb ends.
func DB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("mysql", DSN(tb))
	if err != nil {
		tb.Fatalf("mysqltest: open: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// serverConfig returns the configured server's DSN, parsed.
func serverConfig() (*mysql.Config, string, error) {
	raw, source := os.Getenv(EnvDSN), EnvDSN
	if raw == "" {
		raw, source = DefaultDSN, "the default "+DefaultDSN
	}
	cfg, err := mysql.ParseDSN(raw)
	if err != nil {
		return nil, source, fmt.Errorf("mysqltest: %s: %w", source, err)
	}
	cfg.ParseTime = true
	cfg.Timeout = 3 * time.Second
	return cfg, source, nil
}

// Server opens the configured server (SORTID_TEST_MYSQL, else DefaultDSN)
// with no database selected and checks that it answers. It returns the
// handle and a description of the server, or an error naming each fix.
func Server(ctx context.Context) (*sql.DB, string, error) {
	cfg, source, err := serverConfig()
	if err != nil {
		return nil, "", err
	}
	cfg.DBName = ""
	desc := fmt.Sprintf("%s (%s)", cfg.Addr, source)
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err == nil {
		err = admin.PingContext(ctx)
	}
	if err != nil {
		if admin != nil {
			_ = admin.Close()
		}
		return nil, desc, fmt.Errorf("mysqltest: no MySQL/MariaDB server answers at %s: %w\n"+
			"Fix one of:\n"+
			"  - set %s to a go-sql-driver DSN such as root@tcp(127.0.0.1:3306)/ of a user who may CREATE DATABASE\n"+
			"  - start a local server: `docker compose up -d mariadb` with the repository's docker-compose.yml\n"+
			"    (then %s='root:root@tcp(127.0.0.1:3306)/'), or your system's service\n"+
			"    (`systemctl start mariadb`, `brew services start mariadb`, or run mariadbd/mysqld directly)\n"+
			"  - or run `go test -short` to skip the database tests", desc, err, EnvDSN, EnvDSN)
	}
	return admin, desc, nil
}

// create creates a database and returns its DSN and the func that drops it.
func create(ctx context.Context) (string, func(), error) {
	admin, _, err := Server(ctx)
	if err != nil {
		return "", nil, err
	}
	cfg, _, err := serverConfig()
	if err != nil {
		_ = admin.Close()
		return "", nil, err
	}
	dropStale(ctx, admin)
	name := pgtest.NewDatabaseName()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		_ = admin.Close()
		return "", nil, fmt.Errorf("mysqltest: create database %s: %w", name, err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			fmt.Fprintf(os.Stderr, "mysqltest: drop database %s: %v\n", name, err)
		}
		_ = admin.Close()
	}
	cfg.DBName = name
	return cfg.FormatDSN(), drop, nil
}

// dropStale drops harness databases whose oldest table is older than
// StaleAfter, or that are empty and were never used (no tables at all is
// left alone: a run may have just created it).
func dropStale(ctx context.Context, admin *sql.DB) {
	rows, err := admin.QueryContext(ctx, `SELECT table_schema FROM information_schema.tables
		WHERE table_schema LIKE 'sortid\_test\_%' GROUP BY table_schema
		HAVING MIN(create_time) < NOW() - INTERVAL ? SECOND`, int(StaleAfter.Seconds()))
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil && pgtest.IsDatabaseName(name) {
			stale = append(stale, name)
		}
	}
	_ = rows.Close()
	for _, name := range stale {
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`")
	}
}
