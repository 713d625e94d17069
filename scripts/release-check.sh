#!/usr/bin/env bash
# scripts/release-check.sh — installs this commit as a user will once v0.1.0
# is tagged (see RELEASING.md): every module of go.work is zipped at v0.1.0
# into a file-based module proxy, and fresh consumer modules with no replace
# directives `go get` pgxtype alone, gormtype alone and everything together,
# build, and run the README's Go quick starts against a fresh PostgreSQL
# database. It checks the committed tree (HEAD), as a tag would publish it.
#
# Environment: SORTID_TEST_DATABASE (a postgres:// URL; default
# postgres://postgres@127.0.0.1:5432/postgres) names the server; the check
# creates its own database there and drops it. Third-party modules come from
# GOPROXY's usual source (default https://proxy.golang.org).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=v0.1.0
start=$SECONDS

step() { printf '== release check [%3ds]: %s\n' $((SECONDS - start)) "$*"; }
fail() { echo "release check FAILED: $*" >&2; exit 1; }

admin=${SORTID_TEST_DATABASE:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
case $admin in
postgres://* | postgresql://*) ;;
*) fail "SORTID_TEST_DATABASE must be a postgres:// URL for the release check, got: $admin" ;;
esac
db=sortid_release_$(date +%s)_$$
# The same URL with the database path replaced by the fresh database.
db_url=$(printf '%s' "$admin" | sed -E "s#^(postgres(ql)?://[^/?]*)(/[^?]*)?#\1/$db#")

modcache=$(go env GOMODCACHE)
upstream=$(go env GOPROXY)
work=$(mktemp -d "${TMPDIR:-/tmp}/sortid-release.XXXXXX")

# purge_sortid removes the sortid modules from the module cache, so that a
# consumer never gets a v0.1.0 zipped by an earlier run; third-party modules
# stay cached (and their builds with them), which keeps the check fast.
purge_sortid() {
	local d
	for d in "$modcache/github.com/sortid" "$modcache/cache/download/github.com/sortid"; do
		if [ -e "$d" ]; then chmod -R u+w "$d" && rm -rf "$d"; fi
	done
}
cleanup() {
	psql -X -q -v ON_ERROR_STOP=1 "$admin" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 ||
		echo "release check: could not drop database $db" >&2
	purge_sortid
	rm -rf "$work"
}
trap cleanup EXIT

# The database first, so that a missing server fails the check at once.
psql -X -q -v ON_ERROR_STOP=1 "$admin" -c "CREATE DATABASE $db" ||
	fail "cannot create database $db on $admin (set SORTID_TEST_DATABASE to a PostgreSQL server's URL)"

commit=$(git rev-parse --short HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "release check: note: checking commit $commit; uncommitted changes are not part of it"
fi

# A released migration never changes (RELEASING.md): the migration files of
# the latest release tag, if any, must be the same in HEAD.
released=$(git tag --list 'v*' --sort=-v:refname | head -n 1)
if [ -n "$released" ]; then
	step "migrations of $released unchanged"
	for f in $(git ls-tree -r --name-only "$released" -- migrations/sql migrations/goose); do
		git diff --quiet "$released" HEAD -- "$f" || fail "$f differs from $released: a released migration never changes; add a new numbered migration (RELEASING.md)"
	done
fi

step "module proxy of commit $commit at $version"
mkdir "$work/src"
git archive HEAD | tar -x -C "$work/src"
module_dirs=()
while read -r dir; do module_dirs+=("$work/src/${dir#"$repo"}"); done < <(go list -m -f '{{.Dir}}')
go run ./scripts/modproxy -out "$work/proxy" -version "$version" \
	-time "$(git log -1 --format=%cI HEAD)" "${module_dirs[@]}"

purge_sortid
export GOPROXY="file://$work/proxy,$upstream"
export GONOSUMDB=github.com/sortid/sortid # not published yet: no checksum database entry
export GOFLAGS=-mod=mod
export GOWORK=off
export GOTOOLCHAIN=local
# Every run publishes different code as the same v0.1.0, but the go command
# indexes a module cache directory once, as if immutable, and would keep
# reading an earlier run's file list.
export GODEBUG=goindex=0

# consumer NAME PACKAGE... makes a fresh module NAME that `go get`s the
# packages' modules at $version, builds every package of them, and checks that
# each sortid module resolved to $version from the proxy.
consumer() {
	local name=$1
	shift
	step "consumer $name: go get $*"
	mkdir "$work/$name"
	(
		cd "$work/$name"
		go mod init "example.com/$name" 2>/dev/null || go mod init "example.com/$name"
		local gets=() p
		for p in "$@"; do gets+=("$p@$version"); done
		go get "${gets[@]}"
		if grep -qE '^\s*replace' go.mod; then fail "$name: go.mod has a replace directive"; fi
		go build "${@/%//...}"
		go list -m -f '{{.Path}} {{.Version}}' all | grep '^github.com/sortid/' | while read -r path v; do
			[ "$v" = "$version" ] || fail "$name: $path resolved to ${v:-no version}, want $version"
			echo "   $path $v"
		done
	)
}

consumer pgx-only github.com/sortid/sortid/pgxtype
consumer gorm-only github.com/sortid/sortid/gormtype
consumer all github.com/sortid/sortid github.com/sortid/sortid/pgxtype github.com/sortid/sortid/gormtype

step "go run github.com/sortid/sortid/cmd/sortid@$version"
(cd "$work" && go run "github.com/sortid/sortid/cmd/sortid@$version" new -n 1)

step "README Go quick starts: extract and build (drivers by go mod tidy)"
quick="$work/quickstarts"
mkdir "$quick"
# Each ```go block of README.md becomes block<N>/main.go, its line number
# block<N>/line, and the regexp of a preceding <!-- readme-test: want RE -->
# marker (as integration/readme_test.go reads it) block<N>/want.
awk -v dir="$quick" '
	/^<!-- readme-test: want .* -->$/ { want = $0; sub(/^<!-- readme-test: want /, "", want); sub(/ -->$/, "", want); next }
	/^```go$/ { n++; d = sprintf("%s/block%02d", dir, n); system("mkdir -p " d); f = d "/main.go"
		if (want != "") { print want > (d "/want"); close(d "/want") }
		print NR > (d "/line"); close(d "/line")
		want = ""; inblock = 1; next }
	inblock && /^```$/ { inblock = 0; close(f); next }
	inblock { print > f; next }
	/^```/ { want = "" }
' README.md
blocks=("$quick"/block*)
[ "${#blocks[@]}" -ge 4 ] || fail "found ${#blocks[@]} Go blocks in README.md, want at least 4"
(
	cd "$quick"
	go mod init example.com/quickstarts 2>/dev/null || go mod init example.com/quickstarts
	go get "github.com/sortid/sortid@$version" "github.com/sortid/sortid/pgxtype@$version" \
		"github.com/sortid/sortid/gormtype@$version"
	go mod tidy
	if grep -qE '^\s*replace' go.mod; then fail "quickstarts: go.mod has a replace directive"; fi
	mkdir bin
	go build -o bin/ ./...
)

step "README Go quick starts: run in order against fresh database $db"
for b in "${blocks[@]}"; do
	name=$(basename "$b")
	echo "-- $name: README.md:$(cat "$b/line")"
	out=$(cd "$quick" && DATABASE_URL=$db_url "bin/$name" 2>&1) || fail "$name (README.md:$(cat "$b/line")) exited non-zero:"$'\n'"$out"
	printf '%s\n' "$out" | sed 's/^/   /' | head -n 5
	if [ -f "$b/want" ]; then
		printf '%s\n' "$out" | grep -Pq -- "$(cat "$b/want")" ||
			fail "$name (README.md:$(cat "$b/line")): output does not match $(cat "$b/want")"
	fi
done

step "passed: every module at $version installs, builds and runs its README quick starts"
