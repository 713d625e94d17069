// Package pgxtype teaches pgx v5 (github.com/jackc/pgx/v5) the sortid ID
// types of package idtype, in PostgreSQL's binary format.
//
// Call [Register] once per connection with the connection's type map. For a
// pool, do it in pgxpool.Config.AfterConnect:
//
//	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
//		pgxtype.Register(conn.TypeMap())
//		_, err := pgxtype.LoadDomains(ctx, conn) // optional: huid, scru128_bytes
//		return err
//	}
//
// For a single connection call it right after pgx.Connect or
// pgx.ConnectConfig: pgx.ConnConfig.AfterConnect is pgconn's hook, which
// receives a *pgconn.PgConn and so cannot reach the type map.
//
// After Register, pgx encodes and scans these Go types, their pointers and
// their slices:
//
//	idtype.HUID, idtype.NullHUID                  int8 (bigint), []… as bigint[]
//	idtype.SCRU128, idtype.NullSCRU128            uuid, []… as uuid[]
//	idtype.SCRU128Bytes, idtype.NullSCRU128Bytes  bytea (exactly 16 bytes), []… as bytea[]
//
// Values travel in the binary format: an int8 is read straight into a HUID
// and a uuid's 16 bytes into a SCRU128, with no detour through text. Without
// Register pgx sees these types only through their sql.Scanner and
// driver.Valuer methods. Single values still work: pgx hands a
// sql.Scanner an int8 as an int64 and a bytea as its bytes, but a uuid as
// its 36 characters of text, which SCRU128.Scan parses again. What fails or
// goes wrong without Register:
//   - a slice ([]idtype.HUID, []idtype.NullHUID, []idtype.SCRU128) bound to
//     a parameter in QueryExecModeExec or QueryExecModeSimpleProtocol, of
//     whatever column type: "unable to encode … into text format for
//     unknown type (OID 0): cannot find encode plan";
//   - huid[], the array of the migrations' domain, in every mode: bound to a
//     parameter with the same error, and scanned into []idtype.HUID with
//     "cannot scan unknown type (OID …) in text format", as scru128_bytes[]
//     into []idtype.SCRU128Bytes;
//   - a SCRU128 bound to a plain bytea parameter is stored as its 36
//     characters of UUID text in every mode, where Register makes the modes
//     that learn the parameter's type refuse it with [ErrColumnForm] (see
//     below); CopyFrom refuses it, but only with pgx's "cannot find encode
//     plan";
//   - a HUID bound to a float8 parameter is rounded in every mode and in
//     CopyFrom, where Register makes those modes and CopyFrom refuse it with
//     [ErrInexactColumn].
//
// Register also records the PostgreSQL type of each Go type
// (pgtype.Map.RegisterDefaultPgType), so parameters work in every
// pgx.QueryExecMode, including QueryExecModeExec and
// QueryExecModeSimpleProtocol, in which pgx does not learn the parameter
// types from the server (as behind PgBouncer in transaction mode).
//
// One column holds one storage form. A SCRU128Bytes is stored in a bytea as
// its 16 bytes on every path: each query mode, pgxpool and CopyFrom. A
// SCRU128 or NullSCRU128 is the uuid form: bound to a bytea parameter in a
// mode that learns the parameter's type from the server
// (QueryExecModeCacheStatement, QueryExecModeCacheDescribe,
// QueryExecModeDescribeExec, and CopyFrom) it fails with an error wrapping
// [ErrColumnForm] that names the column type and the type to use, as a
// SCRU128Bytes bound to a uuid parameter does. QueryExecModeExec and
// QueryExecModeSimpleProtocol cannot know the column's type: pgx sends a
// SCRU128 as UUID text, which the server parses as whatever type it infers,
// so a plain bytea column stores those 36 characters, as it does from
// database/sql. Declare such columns with the scru128_bytes domain of the
// sortid migrations (bytea CHECK (octet_length(VALUE) = 16)): it refuses
// that write in every mode (SQLSTATE 23514). NULL has no form and is sent as
// NULL from either Null type.
//
// A HUID or valid NullHUID bound to a float4 or float8 parameter would be
// rounded: a float8 (double) holds integers exactly only up to 2^53, a
// float4 only up to 2^24 (16777216), and every HUID made after 2026-02-19
// is above both. In the modes that learn the parameter's type
// (QueryExecModeCacheStatement, QueryExecModeCacheDescribe,
// QueryExecModeDescribeExec) pgx refuses it with an error wrapping
// [ErrInexactColumn] that names the column type and its bound, whatever the
// value, and sends nothing; CopyFrom refuses it too, though its error carries only the
// text of that error, as pgx sends it to the server in CopyFail. The same
// known limitation as above holds in QueryExecModeExec and
// QueryExecModeSimpleProtocol: pgx sends the HUID as int8 text with no
// type, PostgreSQL converts it to float8 or float4 itself, and the column
// silently stores the rounded number (60661340544791426 as
// 6.0661340544791424e+16). Keep HUIDs in bigint (or numeric) columns.
//
// Register extends pgx's built-in int8, uuid and bytea codecs rather than
// replacing them: each stays in charge of the wire format and of every Go
// type other than the sortid ones, so a plain int64 still decodes as int64,
// a uuid into any as [16]byte and pgtype.UUID works as before. (The
// extension is needed because pgx plans a target that implements
// sql.Scanner, as the idtype types do, before it consults
// pgtype.Map.TryWrapScanPlanFuncs; only the codec of a column's type gets to
// see such a target first.)
//
// Every value is checked at the boundary, in both directions, by the
// conversions of package idtype that database/sql uses too, so the checks
// are the same with and without Register: encoding a negative HUID fails
// instead of sending it, scanning a negative int8 into a HUID fails with an
// error wrapping idtype.ErrInvalidHUID, a bytea of other than 16 bytes
// scanned into SCRU128Bytes or NullSCRU128Bytes fails with one wrapping
// idtype.ErrInvalidSCRU128 that names its length, and SQL NULL scanned into
// a non-Null type fails with one wrapping idtype.ErrNull. A bytea scanned
// into SCRU128 is taken as SCRU128.Scan takes it: 16 raw bytes, or the text
// of the UUID or base32 form.
package pgxtype
