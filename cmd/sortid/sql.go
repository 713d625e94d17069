package main

import "github.com/sortid/sortid/migrations"

const sqlHelp = `Usage: sortid sql [up|down]

Print the PostgreSQL migration SQL (default: up), ready to pipe into psql:

  sortid sql up | psql -v ON_ERROR_STOP=1 "$DATABASE_URL"

The SQL is one transaction (BEGIN ... COMMIT): when a statement fails, nothing
changes. up creates the huid domain and the huid_* and scru128_* functions; it
can be run twice. down removes them; while another object (a column, default,
index, view, ...) still uses one, it fails naming those objects and drops
nothing.
`

func runSQL(args []string, s streams) error {
	fs := newFlagSet("sql")
	positional, err := parseArgs(fs, args, sqlHelp)
	if err != nil {
		return err
	}
	direction := "up"
	switch len(positional) {
	case 0:
	case 1:
		direction = positional[0]
	default:
		return usagef("want at most one direction, got %s", quoteInputs(positional))
	}
	var text string
	switch direction {
	case "up":
		text = migrations.Up()
	case "down":
		text = migrations.Down()
	default:
		return usagef("unknown direction %s; want up or down", quoteInput(direction))
	}
	return writeAll(s.stdout, inTransaction(text))
}

// inTransaction wraps SQL in BEGIN/COMMIT, so that psql, which sends statements one
// by one, applies all of them or none (after an error psql either stops, with
// ON_ERROR_STOP, or sends the rest into the aborted transaction, whose COMMIT rolls back).
func inTransaction(sql string) string {
	return "BEGIN;\n" + sql + "COMMIT;\n"
}
