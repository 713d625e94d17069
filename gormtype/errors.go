package gormtype

import "errors"

// ErrNoCreateCallback is returned (wrapped) by [AutoID.Initialize] when the
// gorm.DB has no gorm:create callback to wrap.
var ErrNoCreateCallback = errors.New("gormtype: no gorm:create callback")

// ErrGenerate is returned (wrapped, with the generator's error) when
// [AutoID] cannot make an ID for a field.
var ErrGenerate = errors.New("gormtype: cannot generate an ID")

// ErrUnknownColumn is returned (wrapped, naming the column and the model)
// by [Between] when the model has no field of an ID type for the column.
var ErrUnknownColumn = errors.New("gormtype: no ID field for column")
