//go:build race

// Package racebuild tells tests whether they run under the race detector:
// a test with nothing concurrent to watch that is slow under it skips
// there, and make test runs it without it (test-norace).
package racebuild

// Enabled is true under the race detector.
const Enabled = true
