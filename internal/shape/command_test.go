package shape

import "testing"

func TestCommandFamily(t *testing.T) {
	for cmd, want := range map[string]string{
		"go build ./...":                     "go build",
		"go build -o bin/parser .":           "go build",
		"  CGO_ENABLED=0 go build -trimpath": "go build",
		"npm run build":                      "npm run build",
		"npm run lint -- --fix":              "npm run lint",
		"npm run":                            "",
		"make build && ./dist/app":           "make build",
		"git push --force origin main":       "git push",
		"cat notes.md":                       "",
		"./build.sh":                         "",
		"sh build.sh":                        "",
		"ls /nonexistent-dir":                "",
		"curl -sS --max-time 2 http://x/y":   "",
		"make":                               "",
		"":                                   "",
		"go test ./...\ngo vet ./...":        "go test",
	} {
		if got := CommandFamily(cmd); got != want {
			t.Errorf("CommandFamily(%q) = %q, want %q", cmd, got, want)
		}
	}
}
