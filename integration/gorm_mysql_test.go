package integration_test

import (
	"testing"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/integration/internal/mysqltest"
)

func TestGormMySQL(t *testing.T) {
	dsn := mysqltest.DSN(t)
	open := func(p gormtype.AutoID) *gorm.DB { return openGorm(t, mysql.Open(dsn), &gorm.Config{}, p) }
	runGormSuite(t, open(gormtype.AutoID{}), open)
}
