package capture

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/mneme-dev/mneme/hooks"
)

// transcriptTail bounds how much of a transcript is read from its end.
const transcriptTail = 2 << 20

// LastAssistantMessage reads a Claude Code transcript (JSONL) and returns the
// text of its last assistant message, with <system-reminder> blocks removed.
// It reads at most the last 2 MiB of the file.
func LastAssistantMessage(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	start := fi.Size() - transcriptTail
	if start < 0 {
		start = 0
	}
	buf, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			continue
		}
		var entry struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &entry) != nil || entry.Type != "assistant" {
			continue
		}
		if text := strings.TrimSpace(hooks.StripTags(contentText(entry.Message.Content))); text != "" {
			return text
		}
	}
	return ""
}

// contentText joins the text blocks of a message's content, which is either
// a string or a list of blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
