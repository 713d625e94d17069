// Package gormtype makes sortid's HUID and SCRU128 IDs GORM field types,
// with the plugin [AutoID] that fills them and [Transaction] that retries
// a unit of work whose fresh key was taken.
//
// [HUID], [SCRU128], [SCRU128Bytes] and their [Null] forms are the idtype
// values with the column type each dialect needs (AutoMigrate):
//
//	type          PostgreSQL  MySQL/MariaDB  SQLite
//	HUID          bigint      bigint         integer
//	SCRU128       uuid        binary(16)     blob
//	SCRU128Bytes  bytea       binary(16)     blob
//
// Use these types in models, not idtype's: GORM makes an idtype.HUID key
// auto-increment and an idtype.SCRU128 text. A HUID is a JSON string. The
// zero value of an ID type means "not set" and is never stored
// ([ErrZeroID]). On PostgreSQL, prefer keys made by the column DEFAULT
// (default:huid_generate()), which AutoID leaves alone.
//
// Each file uses only those before it, and a Create walks down them once:
// errors, types, null, schemes, between, fill (which fields and rows get
// IDs), refuse (which statements cannot keep them), keys (drawing them,
// reading a taken one), autoid (the plugin's callbacks), transaction.
package gormtype
