// Package pgtest gives the database tests of the integration module a
// PostgreSQL database of their own.
//
// A test package calls [Main] from its TestMain. Main finds a server once
// (see [Resolve] for the order), creates a fresh database named
// sortid_test_<16 hex digits> on it, applies the sortid migrations with
// migrations.Apply, runs the tests and drops the database again. Tests then
// reach that database through [URL], [Pool], [Conn] and [StdDB].
//
// Under go test -short the database tests are skipped, and nothing is
// resolved or created. Otherwise a missing server fails the run with a
// message that names each fix; it never silently skips.
package pgtest
