//go:build !race

package report_test

// raceEnabled is true under the race detector.
const raceEnabled = false
