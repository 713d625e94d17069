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
// by [Between] when the model has no field of an ID type for the column.
var ErrUnknownColumn = errors.New("gormtype: no ID field for column")

// ErrKeyTaken is returned by a Create when every fresh key [AutoID] drew
// for a single row, inserted in the transaction GORM opened for it on
// PostgreSQL, was taken (see AutoID.Retries). It wraps gorm.ErrDuplicatedKey;
// on other paths the database's own unique violation is returned.
var ErrKeyTaken = fmt.Errorf("gormtype: every fresh key drawn for the row was taken: %w", gorm.ErrDuplicatedKey)

// ErrMapRow is returned (wrapped, naming the field and the model) by a
// Create from a map, or a slice of maps, that leaves a field [AutoID] would
// fill unset: AutoID fills structs only.
var ErrMapRow = errors.New("gormtype: AutoID cannot fill an ID field of a map")
