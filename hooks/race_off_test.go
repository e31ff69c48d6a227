//go:build !race

package hooks_test

const raceBuild = false
