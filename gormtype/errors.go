package gormtype

import (
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// ErrUnknownColumn is returned (wrapped, naming the column and the model)
// by [Between] for a query without a model, or a column without an ID field.
var ErrUnknownColumn = errors.New("gormtype: no ID field for column")

// ErrKeyTaken is returned (wrapped, with the table, the key's columns and
// the driver's message) by a Create whose fresh value [AutoID] filled is
// taken, and by [Transaction] when every attempt met one.
var ErrKeyTaken = fmt.Errorf("gormtype: a fresh key is taken: %w", gorm.ErrDuplicatedKey)

// ErrRefused is returned (wrapped, naming the table, the reason and the way
// out) by a Create that [AutoID] cannot keep from touching another row,
// from leaving a key no row has in its struct, or from storing a row twice.
var ErrRefused = errors.New("gormtype: AutoID refuses this Create")

// ErrSetup is returned (wrapped, naming the field and the fix) by a Create
// of a model with an idtype field, or sortid:"auto" on a field of another
// type than gormtype's, by [Transaction] on a gorm.DB without [AutoID], and
// by [AutoID.Initialize] on one without the gorm:create callback.
var ErrSetup = errors.New("gormtype: set-up error")

// ErrZeroID is returned (wrapped, naming the type, the field or the column
// and the way out) by a statement that would store or compare a zero ID,
// which means "not set": in a field AutoID does not fill, by a Save over a
// stored ID, as an Update's value 0, nil or "" or a map Create's in such a
// field, and in a condition.
var ErrZeroID = errors.New("gormtype: a zero ID is never stored")
