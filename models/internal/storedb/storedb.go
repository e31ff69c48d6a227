// Package storedb hands the GORM handle of a models.Store, and what tests
// look at beside it, to the packages under models/ that need it outside
// models itself: the test helpers of models/modelstest and the benchmark
// databases of models/benchdb. Go's internal rule keeps every other
// package out, so the store has no back door: the rest of mneme reaches
// the database only through Store methods.
package storedb

import "gorm.io/gorm"

// Of returns the GORM handle of store, a *models.Store. models sets it
// when it is initialised; it panics on anything else.
var Of func(store any) *gorm.DB

// Tx returns a *models.Tx on db, a transaction's handle, for a
// transaction outside the store's writer.
var Tx func(db *gorm.DB) any

// VectorsLoading reports whether a load of store's vector index (a
// *models.Store's) is under way.
var VectorsLoading func(store any) bool
