//go:build race

package hooks_test

// raceBuild is true under the race detector.
const raceBuild = true
