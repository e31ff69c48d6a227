package static

import (
	"io/fs"
	"os"
	"testing"
)

func TestFS(t *testing.T) {
	for _, dev := range []bool{false, true} {
		fsys := FS(dev)
		for _, name := range []string{"app.css", "app.js", "theme.js", "favicon.svg"} {
			b, err := fs.ReadFile(fsys, name)
			if err != nil || len(b) == 0 {
				t.Errorf("dev=%v %s: %v", dev, name, err)
			}
		}
	}
	// Dev mode reads the disk: what is on disk is what it serves.
	disk, err := os.ReadFile("app.css")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := fs.ReadFile(FS(true), "app.css"); string(b) != string(disk) {
		t.Error("dev mode does not serve the file on disk")
	}
	if len(Version) != 10 {
		t.Errorf("Version %q", Version)
	}
}
