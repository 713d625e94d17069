// Package gormtype makes sortid's HUID and SCRU128 IDs GORM field types,
// with the plugin [AutoID] that fills them and [Transaction] that retries
// a unit of work whose fresh key was taken.
//
//	type          PostgreSQL  MySQL/MariaDB  SQLite
//	HUID          bigint      bigint         integer
//	SCRU128       uuid        binary(16)     blob
//	SCRU128Bytes  bytea       binary(16)     blob
//
// Use these types in models, not idtype's: GORM makes an idtype.HUID key
// auto-increment and an idtype.SCRU128 text. A HUID is a JSON string. The
// zero value means "not set" and is never stored ([ErrZeroID]). On
// PostgreSQL, prefer keys made by the column DEFAULT
// (default:huid_generate()), which AutoID leaves alone.
//
// Each file uses only those before it: types, null, schemes (one row per
// ID type), between, fill (which fields get IDs), unit (what one rollback
// undoes), refuse (which statements cannot keep IDs), where (keys given
// inline), keys (drawing IDs, reading a taken one), autoid (the callbacks, in
// a Create's order), transaction.
package gormtype
