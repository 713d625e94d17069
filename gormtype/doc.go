// Package gormtype makes sortid's HUID and SCRU128 IDs GORM field types,
// with the plugin [AutoID] that fills them.
//
// [HUID], [SCRU128] and [SCRU128Bytes], and the nullable [NullHUID],
// [NullSCRU128] and [NullSCRU128Bytes], are the idtype values with the
// column type each dialect needs, so AutoMigrate creates:
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
// [Between] and its typed forms keep the rows whose ID was made in a time
// window: WHERE col BETWEEN lo AND hi, an index range on the key.
package gormtype
