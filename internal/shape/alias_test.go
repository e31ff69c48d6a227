package shape

import "testing"

func TestAliasFor(t *testing.T) {
	aliases := map[string]string{"/src": "all-src", "/src/api/": "api", "/src/api/web": "web", "/src/ab": "ab"}
	for cwd, want := range map[string]string{
		"/src/api":         "api",
		"/src/api/handler": "api",
		"/src/api/web/css": "web",
		"/src/abc":         "all-src", // "/src/ab" does not cover "/src/abc"
		"/src/ab/x":        "ab",
		"/other":           "",
	} {
		// Map order is random: repeat so a lucky order cannot hide a bug.
		for range 20 {
			if got := aliasFor(aliases, cwd); got != want {
				t.Fatalf("aliasFor(%q) = %q, want %q", cwd, got, want)
			}
		}
	}
}
