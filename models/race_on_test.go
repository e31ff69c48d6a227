//go:build race

package models_test

// raceBuild is true under the race detector.
const raceBuild = true
