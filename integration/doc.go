// Package integration holds the tests that run sortid against real
// PostgreSQL servers and third-party libraries. It is a module of its own so
// that the root module keeps no dependencies; its tests get their database
// from the internal/pgtest harness.
package integration
