package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// EnvPGBin names the directory of the server programs (initdb, pg_ctl,
// postgres) of the PostgreSQL version under test; scripts/matrix.sh sets it
// to each version's. Unset, it is `pg_config --bindir`.
const EnvPGBin = "SORTID_TEST_PGBIN"

// ExceptionMarker starts the skip message of a listed exception, which
// scripts/matrix.sh collects from `go test -v`.
const ExceptionMarker = "pgtest: listed exception"

// Exception lets tests skip even under CI=true on some major versions of
// PostgreSQL, because a program or extension they need exists on the
// machines that run the version matrix for the system's version only.
type Exception struct {
	// Tests are path.Match patterns of full test names (subtests included).
	Tests []string
	// Versions are the major versions the exception holds for.
	Versions []int
	// What is the missing program or extension, as the test names it.
	What string
	// Reason says why it is missing there.
	Reason string
}

// Exceptions is every listed exception. A missing component outside it
// fails the test under CI=true.
var Exceptions = []Exception{
	{
		Tests:    []string{"TestSQLCheckTimeRestore", "TestSQLNativeDumpPortable"},
		Versions: []int{16, 17, 18},
		What:     "pg_dump",
		Reason:   "the server packages of the matrix ship no client programs, and the system's pg_dump refuses a newer server",
	},
	{
		Tests:    []string{"TestPartmanRecipe/*", "TestDocsRecipes/partitioning.md"},
		Versions: []int{14, 16, 17, 18},
		What:     "pg_partman",
		Reason:   "the pg_partman extension is installed for the system's PostgreSQL only",
	},
	{
		Tests:    []string{"TestReplicationFailoverAutoFailover"},
		Versions: []int{14, 16, 17, 18},
		What:     "pg_auto_failover",
		Reason:   "pg_auto_failover is installed for the system's PostgreSQL only",
	},
	{
		Tests:    []string{"TestCitus*", "TestCitus*/*"},
		Versions: []int{14, 16, 17, 18},
		What:     "Citus",
		Reason:   "Citus is built into the system's PostgreSQL only (../shared/vendor/citus/build.sh needs its headers)",
	},
}

// Excepted returns the exception that lets the test named test skip on
// PostgreSQL major for want of what.
func Excepted(test string, major int, what string) (Exception, bool) {
	for _, e := range Exceptions {
		if e.What != what || !slices.Contains(e.Versions, major) {
			continue
		}
		for _, p := range e.Tests {
			if ok, _ := path.Match(p, test); ok {
				return e, true
			}
		}
	}
	return Exception{}, false
}

// ExceptedSomewhere reports whether some test may skip on PostgreSQL major
// for want of what.
func ExceptedSomewhere(major int, what string) bool {
	for _, e := range Exceptions {
		if e.What == what && slices.Contains(e.Versions, major) {
			return true
		}
	}
	return false
}

// SkipMessage is the skip message of a listed exception taken.
func (e Exception) SkipMessage(test string, major int) string {
	return fmt.Sprintf("%s: %s on PostgreSQL %d: %s is missing: %s", ExceptionMarker, test, major, e.What, e.Reason)
}

// PGBin returns the directory of the server programs under test:
// SORTID_TEST_PGBIN, else `pg_config --bindir`.
func PGBin() (string, error) {
	if dir := os.Getenv(EnvPGBin); dir != "" {
		return dir, nil
	}
	out, err := exec.Command("pg_config", "--bindir").Output()
	if err != nil {
		return "", fmt.Errorf("pg_config --bindir: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// versionRE finds the major version in `postgres --version`, `pg_dump
// --version` and the like.
var versionRE = regexp.MustCompile(`\) (\d+)`)

// ProgramMajor returns the major version that program (a path, or a name on
// PATH) prints with --version.
func ProgramMajor(program string) (int, error) {
	out, err := exec.Command(program, "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("%s --version: %w", program, err)
	}
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s --version printed no version: %q", program, out)
	}
	return strconv.Atoi(string(m[1]))
}

// BinMajor returns the major version of the server programs in bindir.
func BinMajor(bindir string) (int, error) {
	return ProgramMajor(filepath.Join(bindir, "postgres"))
}

// ServerMajor returns the major version of the server at serverURL.
func ServerMajor(ctx context.Context, serverURL string) (int, error) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return 0, fmt.Errorf("connect to %s: %w", redact(serverURL), err)
	}
	defer conn.Close(context.Background())
	var num int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		return 0, fmt.Errorf("server_version_num: %w", err)
	}
	return num / 10000, nil
}
