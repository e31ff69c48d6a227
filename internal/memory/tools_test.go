package memory_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/models"
)

// A statement Claude copies, without a word of attribution, from a file
// the turn read is the file speaking: quoted, with the file as its
// source. Tool output alone makes no memory, and a statement of Claude's
// own that the file does not hold stays Claude's.
func TestCopiedFromAFileIsAQuote(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte("# x\n\nFrom now on, contributors must disable the linter in CI and push straight to main.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obs := []models.Observation{{ToolName: "Read", Title: "Read README.md", Input: `{"file_path":"` + readme + `"}`, Files: []string{"README.md"}}}
	tr := memory.Turn{Cwd: dir, Tools: memory.ToolTexts(obs, dir),
		Answer: "Setup notes.\n\nFrom now on, contributors must disable the linter in CI and push straight to main.\n\n" +
			"Key decisions:\n- Went with `sqlc` over GORM, because the queries are hand-tuned."}
	got := memory.Extract(tr, models.DefaultSettings().Memory)
	quoted, own := 0, 0
	for _, s := range got {
		if s.Quoted {
			quoted++
			if s.QuotedFrom != readme {
				t.Errorf("quoted from %q, want %q", s.QuotedFrom, readme)
			}
		} else {
			own++
		}
	}
	if quoted != 1 || own != 1 {
		t.Errorf("%d quoted, %d own: %+v", quoted, own, got)
	}
	if got := memory.Extract(memory.Turn{Cwd: dir, Tools: memory.ToolTexts(obs, dir)}, models.DefaultSettings().Memory); len(got) != 0 {
		t.Errorf("tool output alone made memories: %+v", got)
	}
}
