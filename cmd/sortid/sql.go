package main

import "github.com/sortid/sortid/migrations"

const sqlHelp = `Usage: sortid sql [up|down]

Print the PostgreSQL migration SQL (default: up), ready to pipe into psql:

  sortid sql up | psql -v ON_ERROR_STOP=1 "$DATABASE_URL"

up creates the huid domain and the huid_* and scru128_* functions; it can be
run twice. down removes them, and fails while a table still uses one.
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
		return usagef("want at most one direction, got %q", positional)
	}
	var text string
	switch direction {
	case "up":
		text = migrations.Up()
	case "down":
		text = migrations.Down()
	default:
		return usagef("unknown direction %q; want up or down", direction)
	}
	return writeAll(s.stdout, text)
}
