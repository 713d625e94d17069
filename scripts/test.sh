#!/usr/bin/env bash
# scripts/test.sh — the project's whole test suite: formatting, vet and
# `go test -race` over every module of go.work, plus the rule that the root
# module requires nothing. Database tests need a PostgreSQL and a
# MySQL/MariaDB server: see CONTRIBUTING.md ("Running the tests").
set -euo pipefail
cd "$(dirname "$0")/.."

# Find the servers first, by the harness's own rules, so that a missing one
# fails the run in seconds instead of minutes into the tests.
echo "== test servers"
go run ./integration/cmd/testservers

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== root module has no requirements"
deps=$(GOWORK=off go list -m all)
if [ "$(echo "$deps" | wc -l)" -ne 1 ]; then
	echo "the root module must require nothing; go list -m all prints:"; echo "$deps"; exit 1
fi

modules=$(go list -m -f '{{.Dir}}')
for dir in $modules; do
	rel=${dir#"$PWD"}; rel=${rel#/}; rel=${rel:-.}
	echo "== $rel: vet (GOWORK=off, so each nested module also builds on its own)"
	(cd "$dir" && GOWORK=off go vet ./...)
	echo "== $rel: test -race"
	(cd "$dir" && go test -race -count=1 -timeout 30m ./...)
done
