package idtype

import "errors"

// ErrInvalidHUID is returned (wrapped, with the offending input and the rule
// it broke) when text, bytes, JSON, a database value or a field does not
// denote a HUID in [0, 2^63-1].
var ErrInvalidHUID = errors.New("idtype: invalid HUID")

// ErrInvalidSCRU128 is returned (wrapped, with the offending input and the
// rule it broke) when text, bytes, JSON, a database value or a field does not
// denote a SCRU128 ID.
var ErrInvalidSCRU128 = errors.New("idtype: invalid SCRU128")

// ErrClockOutOfRange is returned (wrapped) by generators when the clock lies
// outside the window the scheme can represent: for HUID
// [2026-01-01T00:00:00.000Z, 2165-05-15T07:35:11.103Z], for SCRU128 the
// timestamps 1 to 2^44-2 ms after 2020-01-01 (0 and 2^44-1 are reserved).
var ErrClockOutOfRange = errors.New("idtype: clock outside the ID scheme's window")

// ErrTimeOutOfRange is returned (wrapped) when a time given to a constructor
// or a range function lies outside the window the scheme can represent.
var ErrTimeOutOfRange = errors.New("idtype: time outside the ID scheme's window")

// ErrCounterUsedUp is returned (wrapped) by [SCRU128Generator.GenerateAt]
// when the counter of the millisecond asked for is used up in that
// generator. The time is valid: another generator can make the ID.
var ErrCounterUsedUp = errors.New("idtype: counter of the millisecond used up")

// ErrInvalidRange is returned (wrapped) by [HUIDRange] and [SCRU128Range]
// when the window [from, to) is empty: from is not before to.
var ErrInvalidRange = errors.New("idtype: invalid time window")

// ErrNull is returned (wrapped) when SQL NULL or JSON null is decoded into
// HUID, SCRU128 or SCRU128Bytes; use the Null types for nullable values.
var ErrNull = errors.New("idtype: null value for a non-nullable ID")

// ErrUnsupportedType is returned (wrapped, naming the Go type and value) when
// Scan receives a source type it cannot convert without loss.
var ErrUnsupportedType = errors.New("idtype: unsupported source type")

// ErrRandomSource is returned (wrapped) when a generator's random source
// fails to deliver bytes.
var ErrRandomSource = errors.New("idtype: random source failed")

// ErrInvalidArgument is returned (wrapped) by the collision estimates when a
// rate or a generator count is not usable.
var ErrInvalidArgument = errors.New("idtype: invalid argument")

// ErrImplausibleTime is returned (wrapped) by [TimeCheck] when an ID's time
// lies further from now than the skew allows.
var ErrImplausibleTime = errors.New("idtype: ID time implausible")
