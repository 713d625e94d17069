package gormtype

import (
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// ErrNoCreateCallback is returned (wrapped) by [AutoID.Initialize] when the
// gorm.DB has no gorm:create callback to wrap.
var ErrNoCreateCallback = errors.New("gormtype: no gorm:create callback")

// ErrGenerate is returned (wrapped, with the generator's error) when
// [AutoID] cannot make an ID for a field.
var ErrGenerate = errors.New("gormtype: cannot generate an ID")

// ErrUnknownColumn is returned (wrapped, naming the column and the model)
// by [Between] when the query has no model, or the model has no field of
// an ID type for the column.
var ErrUnknownColumn = errors.New("gormtype: no ID field for column")

// ErrKeyTaken is returned (wrapped, with the table and the database's last
// error) by a Create when every fresh value [AutoID] drew was taken (see
// AutoID.Retries). It wraps gorm.ErrDuplicatedKey.
var ErrKeyTaken = fmt.Errorf("gormtype: every fresh key drawn was taken: %w", gorm.ErrDuplicatedKey)

// ErrRefused is returned (wrapped, naming the table, the filled columns,
// the reason and the way out) by a Create that [AutoID] cannot keep from
// touching another row or from returning a key no row has.
var ErrRefused = errors.New("gormtype: AutoID refuses this Create")

// ErrSetup is returned (wrapped, naming the field and the fix) by a Create
// whose model cannot give it fresh keys: a field of an idtype type, or
// sortid:"auto" on a field that is no gormtype ID type.
var ErrSetup = errors.New("gormtype: set-up error")

// ErrZeroID is returned (wrapped, naming the type or the field and the way
// out) by a statement that would store the zero value of a gormtype ID
// type, which means "not set": a key left zero without the [AutoID] plugin,
// or a Save that writes a zero field over a stored ID.
var ErrZeroID = errors.New("gormtype: a zero ID is never stored")
