package pgtest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// extensionPackages names the Debian package that installs an extension the
// tests need, for PostgreSQL 15 (other versions change the number).
var extensionPackages = map[string]string{"pg_partman": "postgresql-15-partman"}

// ExtensionFix tells how to install the extension name on the test server.
func ExtensionFix(name string) string {
	fix := "install the " + name + " extension on the PostgreSQL server"
	if pkg, ok := extensionPackages[name]; ok {
		fix += ", on Debian with apt-get install " + pkg + " (the number is the server's major version; .ci/run does this)"
	}
	return fix
}

// CheckExtension reports whether the server at serverURL can create the
// extension name (pg_available_extensions lists it). When it cannot and
// getenv("CI") is "true" it returns an error naming the fix instead, so that
// CI fails rather than skip the tests that need it, unless Exceptions lets
// tests skip for want of it on the server's major version.
func CheckExtension(ctx context.Context, serverURL, name string, getenv func(string) string) (bool, error) {
	version, err := ExtensionVersion(ctx, serverURL, name)
	if err != nil {
		return false, err
	}
	ok := version != ""
	if !ok && getenv(EnvCI) == "true" {
		major, err := ServerMajor(ctx, serverURL)
		if err != nil {
			return false, err
		}
		if ExceptedSomewhere(major, name) {
			return false, nil
		}
		return false, fmt.Errorf("pgtest: the PostgreSQL server at %s lacks the %s extension and %s=true: %s",
			redact(serverURL), name, EnvCI, ExtensionFix(name))
	}
	return ok, nil
}

// ExtensionVersion returns the version of the extension name that the server
// at serverURL would create (pg_available_extensions' default_version), or
// "" when it lists no such extension.
func ExtensionVersion(ctx context.Context, serverURL, name string) (string, error) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", redact(serverURL), err)
	}
	defer conn.Close(context.Background())
	var version string
	err = conn.QueryRow(ctx, "SELECT coalesce(max(default_version), '') FROM pg_available_extensions WHERE name = $1", name).Scan(&version)
	if err != nil {
		return "", fmt.Errorf("look up extension %s: %w", name, err)
	}
	return version, nil
}
