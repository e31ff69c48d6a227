package hookwire

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// TranscriptTail bounds how much of a transcript is read from its end.
const TranscriptTail = 2 << 20

// LastAssistantText is the text of the last assistant entry in tail, the
// end of a Claude Code transcript (JSONL), with <system-reminder> and
// mneme's own context blocks removed; "" when there is none. The worker
// reads its owner's transcripts with it, a teammate's hook its own
// (ownLastAssistantMessage).
func LastAssistantText(tail []byte) string {
	lines := bytes.Split(tail, []byte("\n"))
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
		if text := strings.TrimSpace(privacy.StripTags(contentText(entry.Message.Content))); text != "" {
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

// ownTranscriptTimeout bounds the hook's read of its own transcript: Stop
// is on Claude Code's hot path.
const ownTranscriptTimeout = 250 * time.Millisecond

// ownLastAssistantMessage is the last assistant message of the transcript
// Claude Code named for this hook, on this machine: a .jsonl regular file
// at an absolute path, its last TranscriptTail bytes, within
// ownTranscriptTimeout ("" past it).
func ownLastAssistantMessage(path string) string {
	if !filepath.IsAbs(path) || filepath.Ext(path) != ".jsonl" {
		return ""
	}
	return Within(ownTranscriptTimeout, func() string { return LastAssistantText(readOwnTail(path)) })
}

// Within runs read on a goroutine of its own and returns its answer, or
// "" once timeout has passed (a file on a hung network mount): the read
// is abandoned, not waited for.
func Within(timeout time.Duration, read func() string) string {
	done := make(chan string, 1)
	go func() { done <- read() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case s := <-done:
		return s
	case <-timer.C:
		return ""
	}
}

// readOwnTail is the last TranscriptTail bytes of the regular file at
// path, or nil.
func readOwnTail(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	start := max(fi.Size()-TranscriptTail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return nil
	}
	return buf
}
