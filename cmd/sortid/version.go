package main

import (
	"errors"
	"runtime/debug"
)

const versionHelp = `Usage: sortid version
       sortid --version

Print "sortid" and the version of the module it was built from, as Go
recorded it: a release such as v0.1.0 for go install ...@v0.1.0, a pseudo-
version from the commit when built in a git checkout, or (devel) when built
without version control information (-buildvcs=false).
`

func runVersion(args []string, s streams) error {
	fs := newFlagSet("version")
	positional, err := parseArgs(fs, args, versionHelp)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("unexpected arguments %s", quoteInputs(positional))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("the binary carries no build information")
	}
	return writeAll(s.stdout, "sortid "+info.Main.Version+"\n")
}
