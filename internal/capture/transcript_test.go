package capture

import (
	"github.com/mneme-dev/mneme/internal/hookwire"
	testfifo "github.com/mneme-dev/mneme/internal/testutil/fifo"

	"os"
	"path/filepath"
	"strings"
	"testing"
)

const assistantLine = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done: the tests pass."}]}}` + "\n"

// A transcript path comes from an event: whatever it names, the read
// answers at once, and only a regular .jsonl file at an absolute path is
// read.
func TestLastAssistantMessageHostilePaths(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(regular, []byte(`{"type":"user"}`+"\n"+assistantLine), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	testfifo.Make(t, fifo)
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sub := filepath.Join(dir, "dir.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	// A 10 GB sparse file whose last line is the message: only its tail
	// is read.
	sparse := filepath.Join(dir, "sparse.jsonl")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("\n"+assistantLine), 10<<30); err != nil {
		f.Close()
		t.Skipf("cannot make a sparse 10 GB file here: %v", err)
	}
	f.Close()

	// Without the timeout around it, the read itself neither blocks on a
	// FIFO nor streams a device (either would hang this test).
	for _, p := range []string{fifo, "/dev/zero", link("zero2.jsonl", "/dev/zero")} {
		if b := readTail(p); b != nil {
			t.Errorf("readTail(%s) read %d bytes", p, len(b))
		}
	}

	for _, c := range []struct {
		name, path, want string
	}{
		{"regular", regular, "Done: the tests pass."},
		{"symlink to a regular file", link("ok.jsonl", regular), "Done: the tests pass."},
		{"sparse 10 GB", sparse, "Done: the tests pass."},
		{"fifo with no writer", fifo, ""},
		{"symlink to a fifo", link("fifo-link.jsonl", fifo), ""},
		{"/dev/zero through a symlink", link("zero.jsonl", "/dev/zero"), ""},
		{"/dev/zero", "/dev/zero", ""},
		{"directory", sub, ""},
		{"symlink loop", link("loop.jsonl", filepath.Join(dir, "loop.jsonl")), ""},
		{"missing", filepath.Join(dir, "gone.jsonl"), ""},
		{"relative", "t.jsonl", ""},
		{"not a transcript", "/etc/passwd", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := readLastAssistantMessage(c.path); got != c.want {
				t.Errorf("readLastAssistantMessage(%s) = %q, want %q", c.path, got, c.want)
			}
		})
	}
}

// A read that does not come back in time is abandoned: the Stop goes on
// without the message, and a read stuck for good only holds its slot.
func TestLastAssistantMessageAbandonsStuckReads(t *testing.T) {
	// Fill the slots as stuck reads would.
	for i := 0; i < cap(transcriptReads); i++ {
		transcriptReads <- struct{}{}
	}
	defer func() {
		for i := 0; i < cap(transcriptReads); i++ {
			<-transcriptReads
		}
	}()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(p, []byte(assistantLine), 0o600)
	if got := readLastAssistantMessage(p); got != "" {
		t.Errorf("read %q with every slot held by a stuck read", got)
	}
}

func TestLastAssistantMessageTail(t *testing.T) {
	// The message is found only in the last 2 MiB.
	p := filepath.Join(t.TempDir(), "t.jsonl")
	body := assistantLine + strings.Repeat(`{"type":"user","message":{"content":"x"}}`+"\n", (hookwire.TranscriptTail/40)+10)
	os.WriteFile(p, []byte(body), 0o600)
	if got := readLastAssistantMessage(p); got != "" {
		t.Errorf("found %q beyond the tail", got)
	}
}
