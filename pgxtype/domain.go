package pgxtype

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// LoadHUIDDomain registers the huid domain that the sortid migrations create
// (CREATE DOMAIN huid AS bigint CHECK (VALUE >= 0)) and its array type
// _huid with conn's type map, using conn.LoadType. It looks the domain up
// with conn's search_path and reports whether it exists; when it does not,
// LoadHUIDDomain changes nothing and returns false and no error. It calls
// [Register] on conn.TypeMap() first, so it is enough on its own in an
// AfterConnect hook.
//
// PostgreSQL describes a result column of a domain type by its base type, so
// a huid column arrives as int8 with or without this call (and scans into
// idtype.HUID; into any it decodes as int64). But a huid[] column arrives as
// _huid, and statement parameters of type huid or huid[] carry the domain's
// OIDs: until they are registered pgx treats them as unknown types and uses
// the text format for them. After LoadHUIDDomain they use the binary format,
// like bigint and bigint[].
func LoadHUIDDomain(ctx context.Context, conn *pgx.Conn) (bool, error) {
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regtype('huid') IS NOT NULL AND to_regtype('_huid') IS NOT NULL").Scan(&exists); err != nil {
		return false, fmt.Errorf("pgxtype: look up the huid domain: %w", err)
	}
	if !exists {
		return false, nil
	}
	Register(conn.TypeMap())
	for _, name := range []string{"huid", "_huid"} { // the domain before its array
		t, err := conn.LoadType(ctx, name)
		if err != nil {
			return false, fmt.Errorf("pgxtype: load type %s: %w", name, err)
		}
		conn.TypeMap().RegisterType(t)
	}
	return true, nil
}
