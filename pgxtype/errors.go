package pgxtype

import "errors"

// ErrColumnForm is returned (wrapped, naming the Go type, the column type
// and the type to use) when a SCRU128 form is bound to a parameter of the
// other column form: idtype.SCRU128 or NullSCRU128 (the uuid form) to a
// bytea, or idtype.SCRU128Bytes or NullSCRU128Bytes (the bytea form) to a
// uuid. One column holds one storage form, whichever query mode wrote it.
var ErrColumnForm = errors.New("pgxtype: SCRU128 form does not match the column type")

// ErrInexactColumn is returned (wrapped, naming the Go type and the column
// type) when a HUID or a valid NullHUID is bound to a float4 or float8
// parameter: a float8 holds integers exactly only up to 2^53, a float4 only
// up to 2^24, and every HUID made after 2026-02-19 is above both, so the
// stored number would be another HUID. The message names the bound of the
// column type. Use a bigint (int8) or numeric column.
var ErrInexactColumn = errors.New("pgxtype: column type cannot hold a HUID exactly")
