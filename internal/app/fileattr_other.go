//go:build !linux && !darwin && !windows

package app

// lockedAttr reads no file flags on this platform.
func lockedAttr(string) (attr, fix string) { return "", "" }
