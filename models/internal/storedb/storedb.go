// Package storedb hands the GORM handle of a models.Store to the packages
// under models/ that need it outside models itself: the test helpers of
// models/modelstest and the benchmark databases of models/benchdb. Go's
// internal rule keeps every other package out, so the store has no back
// door: the rest of mneme reaches the database only through Store methods.
package storedb

import "gorm.io/gorm"

// Of returns the GORM handle of store, a *models.Store. models sets it
// when it is initialised; it panics on anything else.
var Of func(store any) *gorm.DB
