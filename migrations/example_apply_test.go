package migrations_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/sortid/sortid/migrations"
)

// Apply takes a *sql.DB of any PostgreSQL driver. A program opens it as
// usual, for example with pgx's:
//
//	import _ "github.com/jackc/pgx/v5/stdlib"
//
//	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
//	if err != nil {
//		log.Fatal(err)
//	}
//	if err := migrations.Apply(ctx, db); err != nil {
//		log.Fatal(err)
//	}
//
// This example runs without a server (this module has no driver): a stand-in
// database, defined below, records what Apply sends it. Apply runs every
// statement in one transaction after taking an advisory lock, commits, and
// on an error rolls back and names the file and statement (the counts below
// include the lock).
func ExampleApply() {
	ctx := context.Background()

	ok := &standIn{}
	fmt.Println("Apply:", migrations.Apply(ctx, sql.OpenDB(ok)))
	fmt.Println(ok.log[0], ok.log[1])
	fmt.Println(ok.statements, "statements,", ok.log[len(ok.log)-1])

	// A role that may not create functions.
	refused := &standIn{refuse: "CREATE OR REPLACE FUNCTION", err: errors.New("permission denied for schema public")}
	fmt.Println("Apply:", migrations.Apply(ctx, sql.OpenDB(refused)))
	fmt.Println(refused.statements, "statements,", refused.log[len(refused.log)-1])
	// Output:
	// Apply: <nil>
	// BEGIN SELECT pg_catalog.pg_advisory_xact_lock(126879511733604)
	// 72 statements, COMMIT
	// Apply: migrations: 0001_sortid.up.sql statement 2: permission denied for schema public
	// 3 statements, ROLLBACK
}

// standIn is a database/sql connector whose connections record BEGIN, the
// first statement, COMMIT and ROLLBACK, and count the statements; it fails
// the first statement that contains refuse, when that is set, with err.
type standIn struct {
	refuse     string
	err        error
	log        []string
	statements int
}

func (s *standIn) Connect(context.Context) (driver.Conn, error) { return standInConn{s}, nil }
func (s *standIn) Driver() driver.Driver                        { return nil }

type standInConn struct{ s *standIn }

func (c standInConn) Begin() (driver.Tx, error) {
	c.s.log = append(c.s.log, "BEGIN")
	return c, nil
}

func (c standInConn) ExecContext(_ context.Context, query string, _ []driver.NamedValue) (driver.Result, error) {
	c.s.statements++
	if c.s.statements == 1 {
		c.s.log = append(c.s.log, query)
	}
	if c.s.refuse != "" && strings.Contains(query, c.s.refuse) {
		return nil, c.s.err
	}
	return driver.RowsAffected(0), nil
}

func (c standInConn) Commit() error   { c.s.log = append(c.s.log, "COMMIT"); return nil }
func (c standInConn) Rollback() error { c.s.log = append(c.s.log, "ROLLBACK"); return nil }
func (c standInConn) Close() error    { return nil }
func (c standInConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("stand-in: Prepare is not supported")
}
