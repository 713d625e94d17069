// Package mysqltest gives the MySQL/MariaDB tests of the integration module
// a database of their own, without a TestMain of its own.
//
// [DB] and [DSN] connect to the server named by SORTID_TEST_MYSQL (a
// go-sql-driver/mysql DSN), or to root@tcp(127.0.0.1:3306)/ when it is
// unset. Each call creates a database of its own, named
// sortid_test_<16 hex digits>, and drops it when that test ends; databases
// left by killed runs are dropped after [StaleAfter]. An unreachable server
// fails the test with a message naming each fix (see [Server]); it never
// skips, except under go test -short.
package mysqltest
