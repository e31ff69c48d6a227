//go:build !race

package privacy

// raceBuild is true under the race detector.
const raceBuild = false
