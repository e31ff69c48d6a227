package settingsrules

import (
	"errors"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestValidateProjectAliases(t *testing.T) {
	st := Defaults()
	st.Capture.ProjectAliases = map[string]string{"/work/app": "app"}
	if err := st.Validate(); err != nil {
		t.Fatalf("a good alias: %v", err)
	}
	st.Capture.ProjectAliases = map[string]string{"relative/dir": "x", "/work/b": " "}
	err := st.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "must be absolute") || !strings.Contains(err.Error(), "needs a project name") {
		t.Fatalf("bad aliases: %v", err)
	}
}

// validGlob is doublestar.ValidatePattern written again (internal/shape
// matches the exclude globs with doublestar): the two must agree.
func TestValidGlobIsDoublestars(t *testing.T) {
	for _, g := range []string{
		"", "**/.env", "**/*.pem", "a/{b,c}/d", "{a,{b,c}}", "{", "}", "a}", "{a", "[", "[]", "[!]", "[^]", "[a]", "[!a]",
		"[a", `[\]]`, `[\]`, `\`, `a\`, `\*`, `[a-z]*.go`, "[[]", "[]]", `[\`, "x[^", "]", "**/secrets/**",
	} {
		t.Run(g, func(t *testing.T) {
			if got, want := validGlob(g), doublestar.ValidatePattern(g); got != want {
				t.Errorf("validGlob(%q) = %v, doublestar says %v", g, got, want)
			}
		})
	}
}

func FuzzValidGlob(f *testing.F) {
	for _, g := range []string{"**/.env", "[a-", `{a,\}`, "[!]]"} {
		f.Add(g)
	}
	f.Fuzz(func(t *testing.T, g string) {
		if got, want := validGlob(g), doublestar.ValidatePattern(g); got != want {
			t.Fatalf("validGlob(%q) = %v, doublestar says %v", g, got, want)
		}
	})
}
