package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 23: the session line quoted the answer up to "Key decisions:" and
// cut it there. The gist keeps the list the label introduces.
func TestGistKeepsTheListAfterALabel(t *testing.T) {
	answer := "Done.\n\nKey decisions:\n- Kept the old column until the backfill finishes.\n- Chose batches of 10,000 rows\n  rather than one UPDATE.\n\nLet me know if you want changes."
	got := Gist(answer, 300)
	want := "Done. Key decisions: Kept the old column until the backfill finishes; Chose batches of 10,000 rows rather than one UPDATE."
	if got != want {
		t.Fatalf("Gist = %q\nwant   %q", got, want)
	}
	if strings.HasSuffix(Gist(answer, 40), "decisions:") {
		t.Error("a short gist ends at the label")
	}
}

func TestGist(t *testing.T) {
	cases := []struct{ answer, want string }{
		{"Fixed `Add` in calc.go: it subtracted instead of adding. `go test ./...` passes now. Anything else?",
			"Fixed `Add` in calc.go: it subtracted instead of adding. `go test ./...` passes now."},
		{"## Summary\n\nMigrated the **session store** to Postgres.\n\n```\nok ./...\n```\n\n| a | b |\n|---|---|\n",
			"Migrated the session store to Postgres."},
		{"Root cause:\nThe cache key ignored the Go version.", "Root cause: The cache key ignored the Go version."},
		{"", ""},
	}
	for _, c := range cases {
		if got := Gist(c.answer, 300); got != c.want {
			t.Errorf("Gist(%q) = %q, want %q", c.answer, got, c.want)
		}
	}
	long := "Key decisions:\n" + strings.Repeat("- A decision with quite a few words in it, to fill the line.\n", 30)
	if got := Gist(long, 120); utf8.RuneCountInString(got) > 120 || !strings.HasPrefix(got, "Key decisions: A decision") {
		t.Errorf("long gist %q", got)
	}
}
