//go:build !race

package models

// raceBuild is true under the race detector (race_off_test.go says the
// same for the external tests).
const raceBuild = false
