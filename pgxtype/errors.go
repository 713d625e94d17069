package pgxtype

import "errors"

// ErrColumnForm is returned (wrapped, naming the Go type, the column type
// and the type to use) when a SCRU128 form is bound to a parameter of the
// other column form: idtype.SCRU128 or NullSCRU128 (the uuid form) to a
// bytea, or idtype.SCRU128Bytes or NullSCRU128Bytes (the bytea form) to a
// uuid. One column holds one storage form, whichever query mode wrote it.
var ErrColumnForm = errors.New("pgxtype: SCRU128 form does not match the column type")
