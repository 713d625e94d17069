package pgxtype

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// domains are the domains the sortid migrations create, each followed by its
// array type (a domain must be loaded before its array).
var domains = []string{"huid", "scru128_bytes"}

// LoadDomains registers the domains that the sortid migrations create, huid
// (bigint CHECK (VALUE >= 0)) and scru128_bytes (bytea CHECK
// (octet_length(VALUE) = 16)), and their array types _huid and
// _scru128_bytes with conn's type map, using conn.LoadType. It looks each
// up with conn's search_path and returns the names of those it found and
// loaded; a domain that does not exist is skipped without error. It calls
// [Register] on conn.TypeMap() first, so it is enough on its own in an
// AfterConnect hook. It returns an error wrapping the one of the look-up or
// of conn.LoadType.
//
// PostgreSQL describes a result column of a domain type by its base type, so
// such a column arrives as int8 or bytea with or without this call. But an
// array column arrives as _huid or _scru128_bytes, and statement parameters
// of a domain type carry the domain's OID: until it is registered pgx treats
// them as unknown types, uses the text format for them and encodes a value
// by its Go type's default PostgreSQL type. After LoadDomains they use the
// binary format and the checks of the base type, as bigint and bytea do: a
// SCRU128 of the uuid form bound to a scru128_bytes parameter is refused with
// [ErrColumnForm] before it is sent, CopyFrom included.
func LoadDomains(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	Register(conn.TypeMap())
	var loaded []string
	for _, name := range domains {
		var exists bool
		err := conn.QueryRow(ctx, "SELECT to_regtype($1) IS NOT NULL AND to_regtype('_' || $1) IS NOT NULL", name).Scan(&exists)
		if err != nil {
			return loaded, fmt.Errorf("pgxtype: look up the %s domain: %w", name, err)
		}
		if !exists {
			continue
		}
		for _, typ := range []string{name, "_" + name} {
			t, err := conn.LoadType(ctx, typ)
			if err != nil {
				return loaded, fmt.Errorf("pgxtype: load type %s: %w", typ, err)
			}
			conn.TypeMap().RegisterType(t)
		}
		loaded = append(loaded, name)
	}
	return loaded, nil
}
