// Package gormtype makes sortid's HUID and SCRU128 IDs GORM field types,
// with the plugin [AutoID] that fills them.
//
// [HUID], [SCRU128] and [SCRU128Bytes], and the nullable [Null] forms
// [NullHUID], [NullSCRU128] and [NullSCRU128Bytes], are the idtype values
// with the column type each dialect needs, so AutoMigrate creates:
//
//	type          PostgreSQL  MySQL/MariaDB  SQLite
//	HUID          bigint      bigint         integer
//	SCRU128       uuid        binary(16)     blob
//	SCRU128Bytes  bytea       binary(16)     blob
//
// Use these types in models, not idtype's: GORM makes an idtype.HUID key
// auto-increment and an idtype.SCRU128 text. A HUID travels in JSON as a
// string of its decimal form (HUIDs exceed 2^53).
//
// Three rules hold for every model, dialect and transaction:
//   - The zero value of an ID type means "not set" and is never stored: a
//     statement binding it fails with [ErrZeroID], a Save that would write
//     it over a stored ID included.
//   - A Create that fails leaves every field AutoID filled for it zero
//     again, as before the call, but for rows that stay stored (without a
//     transaction, those an earlier statement of the Create wrote). A
//     transaction that rolls back after a Create succeeded, yours or
//     CreateInBatches' when a later batch fails, leaves its keys in the
//     structs, as GORM leaves every value it wrote back.
//   - After a Create the struct holds the row stored for it: an allowed
//     upsert reads back the key and the fresh fields of the row it updated.
//
// [Between] and its typed forms keep the rows whose ID was made in a time
// window: WHERE col BETWEEN lo AND hi, an index range on the key.
package gormtype
