package privacy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/jsonl"
)

// shape is one line of testdata/shapes.jsonl: a secret as developers type
// or paste it (a command line, a config file's lines, a tool's output),
// the part that must be gone, and a near miss of the same shape that must
// stay as it is.
type shape struct {
	Shape  string `json:"shape"`
	Text   string `json:"text"`
	Secret string `json:"secret"`
	Near   string `json:"near"`
}

// TestSecretShapes measures the built-in rules on the corpus of shapes
// and fails on every secret kept and every near miss changed. go test -v
// prints the figures.
func TestSecretShapes(t *testing.T) {
	shapes, err := jsonl.Read[shape](filepath.Join("testdata", "shapes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := Builtins()
	caught, kept := 0, 0
	for _, s := range shapes {
		if got := r.Clean(s.Text); strings.Contains(got, s.Secret) {
			t.Errorf("%s: secret kept: %q", s.Shape, got)
		} else {
			caught++
		}
		if got := r.Clean(s.Near); got != s.Near {
			t.Errorf("%s: near miss changed: %q", s.Shape, got)
		} else {
			kept++
		}
	}
	t.Logf("secrets caught %d/%d, near misses kept %d/%d", caught, len(shapes), kept, len(shapes))
}
