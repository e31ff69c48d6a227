package capture

import (
	"io"
	"path/filepath"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/filestate"
)

// transcriptTimeout bounds how long a Stop waits for a transcript read (a
// file on a hung network mount); the read is abandoned after it.
const transcriptTimeout = 2 * time.Second

// transcriptReads bounds the transcript reads in flight: a read stuck in
// the kernel past the timeout keeps its slot, and once all are stuck later
// Stops skip the transcript instead of piling up goroutines behind it.
var transcriptReads = make(chan struct{}, 2)

// readLastAssistantMessage reads a Claude Code transcript (JSONL) and
// returns the text of its last assistant message, with <system-reminder>
// blocks removed. The text is raw: it reaches a row only through
// shape.Event.LastAssistantMessage, which cleans it (disk is how).
//
// The path comes from an event, so it is treated as hostile: it must be
// absolute and name a .jsonl file; the file is opened non-blocking (a FIFO
// with no writer does not wait) and read only when fstat says it is a
// regular file (no devices, FIFOs, sockets or directories, also through a
// symlink); at most its last 2 MiB are read (a sparse 10 GB file costs the
// same as a small one), within transcriptTimeout.
func readLastAssistantMessage(path string) string {
	if !filepath.IsAbs(path) || filepath.Ext(path) != ".jsonl" {
		return ""
	}
	select {
	case transcriptReads <- struct{}{}:
	default:
		return "" // earlier reads are still stuck
	}
	return hookwire.Within(transcriptTimeout, func() string {
		defer func() { <-transcriptReads }()
		return hookwire.LastAssistantText(readTail(path))
	})
}

// readTail is the last hookwire.TranscriptTail bytes of the regular file at path,
// or nil.
func readTail(path string) []byte {
	f, fi, err := filestate.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	start := max(fi.Size()-hookwire.TranscriptTail, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return nil
	}
	return buf
}
