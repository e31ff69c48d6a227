//go:build race

package shape

// raceBuild is true under the race detector.
const raceBuild = true
