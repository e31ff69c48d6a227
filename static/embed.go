// Package static holds the viewer's CSS, JavaScript and icons, embedded in
// the binary. In dev mode they are read from disk instead, so edits show on
// reload without a rebuild.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
)

//go:embed *.css *.js *.svg
var embedded embed.FS

// FS returns the static files: the embedded copy, or with dev set, the
// directory this package lives in, read from disk on every request.
func FS(dev bool) fs.FS {
	if dev {
		if dir := sourceDir(); dir != "" {
			return os.DirFS(dir)
		}
	}
	return embedded
}

// sourceDir is the static/ directory of the source tree, or "" when it is
// not there (a binary run away from its checkout).
func sourceDir() string {
	if _, err := os.Stat(filepath.Join("static", "embed.go")); err == nil {
		return "static"
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	dir := filepath.Dir(file)
	if _, err := os.Stat(filepath.Join(dir, "embed.go")); err != nil {
		return ""
	}
	return dir
}

// Version is a short hash of the embedded files, used as a cache-busting
// query string on asset URLs so long cache lifetimes are safe.
var Version = func() string {
	h := sha256.New()
	var names []string
	fs.WalkDir(embedded, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		b, _ := embedded.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:10]
}()
