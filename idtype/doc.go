// Package idtype provides two time-sortable ID types for Go and PostgreSQL,
// with generation, parsing and formatting, database/sql, JSON, text and
// binary encodings, nullable forms, time extraction and time-window bounds.
// It uses the standard library only.
//
// # HUID
//
// [HUID] is a 63-bit integer: milliseconds since 2026-01-01T00:00:00Z
// shifted left by 21, ORed with 21 random bits (HUID spec). It is stored as
// a PostgreSQL bigint, written as plain decimal text, and marshalled to JSON
// as a string, because JavaScript numbers cannot hold integers above 2^53;
// a JSON number is read only up to 2^53, as a larger one may be rounded.
// [HUID.PaddedString] gives a 19-digit form whose text order is numeric order.
//
// # SCRU128
//
// [SCRU128] is a 128-bit SCRU128 v1.0.2 ID: a 44-bit millisecond timestamp
// (since 2020-01-01), a 28-bit counter, a 24-bit per-second random and a
// 32-bit per-ID random. Its text form is 26 base32 digits 0-9A-V; its bytes
// are also a UUID, so it is stored in a PostgreSQL uuid column, or with
// [SCRU128Bytes] in a bytea column.
//
// # Generation
//
// [NewHUID], [GenerateHUID], [NewSCRU128] and [GenerateSCRU128] use default
// generators that are safe for concurrent use; [NewHUIDGenerator] and
// [NewSCRU128Generator] make others, with [WithClock] and [WithRandom] for
// deterministic tests. The default generators take their random bits from
// crypto/rand.Reader, read 4 KiB at a time into a buffer that each
// generator's lock guards, and read the time from the monotonic clock
// anchored to the wall clock once a second (time.Now costs about twice a
// monotonic read).
//
// A HUID generator never returns the same HUID twice, and the times of its
// HUIDs never decrease: when the clock steps back, by any amount, it keeps
// its last millisecond (moving on to the next once all 2^21 random parts of
// it are used), so its HUIDs then carry times ahead of the clock until the
// clock catches up. Both hold per generator, so per process for the default
// one: between generators, a process and its restarted self included, only
// the birthday bound holds ([HUIDCollisions]). [SCRU128Generator.Generate]'s
// output strictly increases, except after the clock goes back by more than
// 10 s: the generator then restarts from the clock, its next IDs sort below
// the ones made before, and they are only as unlikely to repeat one of them
// as two generators' IDs are ([SCRU128Collisions]).
//
// [SCRU128Generator.GenerateAt] and [GenerateSCRU128At] make SCRU128s of a
// given time, for backfills and imports ([HUIDFromParts] for HUIDs).
//
// HUIDs of one millisecond come in random order (spec §6.1). For a bulk
// insert, [FillHUIDs] makes a whole batch at once and sorts it, so the rows
// append at the right edge of the primary-key index instead of splitting
// its pages.
//
// # Time windows
//
// [HUIDRange] and [SCRU128Range] turn [from, to) into the lowest and highest
// ID of the window, so WHERE id BETWEEN lo AND hi is an index range scan.
//
// # Errors
//
// Every failure wraps one of the Err* sentinels, so callers can test it with
// errors.Is, and names the input and the rule it broke.
package idtype
