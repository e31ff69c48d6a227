//go:build race

package archtest

// raceBuild is true under the race detector.
const raceBuild = true
