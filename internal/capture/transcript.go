package capture

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/privacy"
)

// transcriptTail bounds how much of a transcript is read from its end.
const transcriptTail = 2 << 20

// transcriptTimeout bounds how long a Stop waits for a transcript read (a
// file on a hung network mount); the read is abandoned after it.
const transcriptTimeout = 2 * time.Second

// transcriptReads bounds the transcript reads in flight: a read stuck in
// the kernel past the timeout keeps its slot, and once all are stuck later
// Stops skip the transcript instead of piling up goroutines behind it.
var transcriptReads = make(chan struct{}, 2)

// LastAssistantMessage reads a Claude Code transcript (JSONL) and returns the
// text of its last assistant message, with <system-reminder> blocks removed.
//
// The path comes from an event, so it is treated as hostile: it must be
// absolute and name a .jsonl file; the file is opened non-blocking (a FIFO
// with no writer does not wait) and read only when fstat says it is a
// regular file (no devices, FIFOs, sockets or directories, also through a
// symlink); at most its last 2 MiB are read (a sparse 10 GB file costs the
// same as a small one), within transcriptTimeout.
func LastAssistantMessage(path string) string {
	if !filepath.IsAbs(path) || filepath.Ext(path) != ".jsonl" {
		return ""
	}
	select {
	case transcriptReads <- struct{}{}:
	default:
		return "" // earlier reads are still stuck
	}
	done := make(chan string, 1)
	go func() {
		defer func() { <-transcriptReads }()
		done <- lastAssistantMessage(readTail(path))
	}()
	timer := time.NewTimer(transcriptTimeout)
	defer timer.Stop()
	select {
	case msg := <-done:
		return msg
	case <-timer.C:
		return ""
	}
}

// readTail is the last transcriptTail bytes of the regular file at path,
// or nil.
func readTail(path string) []byte {
	f, fi, err := filestate.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	start := max(fi.Size()-transcriptTail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return nil
	}
	return buf
}

// lastAssistantMessage is the text of the last assistant entry in buf, a
// tail of JSONL.
func lastAssistantMessage(buf []byte) string {
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
