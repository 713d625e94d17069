// Package gormtype makes sortid's HUID and SCRU128 IDs first-class GORM
// field types.
//
// # Field types
//
// [HUID], [SCRU128] and [SCRU128Bytes], and the nullable [NullHUID],
// [NullSCRU128] and [NullSCRU128Bytes], are the idtype values with the
// column type each dialect needs (GormDBDataType), so AutoMigrate creates:
//
//	type          PostgreSQL  MySQL/MariaDB  SQLite
//	HUID          bigint      bigint         integer
//	SCRU128       uuid        binary(16)     blob
//	SCRU128Bytes  bytea       binary(16)     blob
//
// They keep idtype's text and JSON forms: a HUID is a JSON string of its
// decimal form (HUIDs exceed 2^53), a SCRU128 the 26-character string. A
// HUID key is never taken for an auto-increment column.
//
// # Auto-filled IDs
//
// db.Use(gormtype.AutoID{}) makes every Create, CreateInBatches, Save and
// FirstOrCreate of a new row, and every associated record GORM creates with
// its parent, fill a zero-valued ID field (or nil pointer to one) that is a
// primary key or is tagged sortid:"auto" with a fresh ID before the
// BeforeCreate hooks run. An ID the caller set is never overwritten, and a
// field with a database default (gorm:"default:huid_generate()") is left to
// the database, which GORM reads back with RETURNING on PostgreSQL. A fresh
// key that another process took is replaced by a new one, and an upsert
// clause never updates or skips another row because of a fresh key; see
// [AutoID].
//
// # Time windows
//
// [Between] and its typed forms add WHERE col BETWEEN lo AND hi with the
// bounds of idtype.HUIDRange or idtype.SCRU128Range, an index range on the key.
package gormtype
