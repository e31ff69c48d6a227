package memory

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/mneme-dev/mneme/models"
)

// ToolText is what one tool call of a turn returned, or the content of a
// file it read, and how a quote of it names it (a path, a command).
type ToolText struct {
	Ref  string
	Text string
}

// maxReadBack bounds what is read back of one file a turn's Read call
// read: enough for any file Claude would quote from.
const maxReadBack = 256 << 10

// ToolTexts are the texts the turn's tool calls returned (their stored
// output excerpts, already cleaned) and the files its Read calls read,
// read back from disk under cwd, for QuotedFromTools. They are compared
// with, never stored. A file that cannot be read (gone, another machine's
// in team mode) is left out.
func ToolTexts(obs []models.Observation, cwd string) []ToolText {
	var out []ToolText
	for _, o := range obs {
		ref := o.Title
		if len(o.Files) > 0 {
			ref = o.Files[0]
		}
		if o.Output != "" {
			out = append(out, ToolText{Ref: ref, Text: o.Output})
		}
		if o.ToolName != "Read" {
			continue
		}
		var in struct {
			FilePath string `json:"file_path"`
		}
		if json.Unmarshal([]byte(o.Input), &in) != nil || in.FilePath == "" {
			continue
		}
		p := in.FilePath
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		if text, ok := readBack(p); ok {
			out = append(out, ToolText{Ref: in.FilePath, Text: text})
		}
	}
	return out
}

// readBack reads at most maxReadBack bytes of the regular file at p.
func readBack(p string) (string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxReadBack))
	if err != nil {
		return "", false
	}
	return string(b), true
}
