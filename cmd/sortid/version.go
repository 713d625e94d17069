package main

import (
	"errors"
	"runtime/debug"
)

const versionHelp = `Usage: sortid version
       sortid --version

Print "sortid" and the version of the main module, from the build
information Go records in the binary: (devel) when it was built without
version control information.
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
