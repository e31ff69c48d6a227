package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/fullexport"
	"github.com/mneme-dev/mneme/models"
)

// `mneme import FILE.json` reads back the full export (`mneme export
// --all`, README "Full export"), on this machine or another: a file is
// recognised by its opening {"format":"mneme-export", read token by token
// a session at a time (memory stays flat whatever its size), and each
// session sent to the worker (POST /api/import/export-rows), which
// restores its rows as they were stored and merges them with what it
// holds: a second import stores nothing twice.

// splitExports sorts the paths given to `mneme import`: full exports, and
// the rest (transcripts, directories of them). A .json file that is not an
// export is an error: transcripts are .jsonl.
func splitExports(paths []string) (exports, rest []string, err error) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			rest = append(rest, p)
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, nil, err
		}
		ok := fullexport.Peek(bufio.NewReader(f))
		f.Close()
		switch {
		case ok:
			exports = append(exports, p)
		case strings.EqualFold(filepath.Ext(p), ".json"):
			return nil, nil, fmt.Errorf("%s is not a mneme export (it does not begin {\"format\":%q), nor a transcript (*.jsonl)", p, fullexport.Format)
		default:
			rest = append(rest, p)
		}
	}
	return exports, rest, nil
}

// runImportExports imports the full exports files (see above) through
// the worker's sink, or with no sink (--dry-run) only reads and counts
// them.
func runImportExports(ctx context.Context, sink *socketSink, files []string, stdout io.Writer) error {
	var rs *restoreSender
	dry := sink == nil
	if !dry {
		rs = &restoreSender{s: sink}
	}
	for _, file := range files {
		start := time.Now()
		if rs != nil {
			rs.got = models.RestoreCounts{}
		}
		read, err := importExportFile(ctx, file, rs)
		took := time.Since(start).Round(time.Millisecond)
		if dry {
			fmt.Fprintf(stdout, "%s: would import %s (read in %s)\n", file, fullexport.CountsText(read.Read), took)
		} else {
			fmt.Fprintf(stdout, "%s: read %s in %s\n  new: %s\n  already there: %s\n",
				file, fullexport.CountsText(read.Read), took, fullexport.CountsText(rs.got.New), fullexport.CountsText(rs.got.Existing))
			read.Refused = append(read.Refused, rs.got.Refused...)
		}
		if n := len(read.Refused); n > 0 {
			fmt.Fprintf(stdout, "  refused: %d sessions, holding values mneme never stores (nothing of them was stored; the rest was):\n", n)
			for _, why := range read.Refused {
				fmt.Fprintf(stdout, "    %s\n", why)
			}
		}
		if errors.Is(err, fullexport.ErrTruncated) {
			kept := "were stored"
			if dry {
				kept = "would be stored"
			}
			return fmt.Errorf("%s is truncated or damaged (%w); the %s read before %s: export it again, and import it again (nothing is stored twice)",
				file, err, plural(read.Read.Sessions, "complete session"), kept)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	return nil
}

// importExportFile reads one export and sends its sessions with rs (or
// only reads it when rs is nil).
func importExportFile(ctx context.Context, file string, rs *restoreSender) (fullexport.ReadResult, error) {
	f, err := os.Open(file)
	if err != nil {
		return fullexport.ReadResult{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if !fullexport.Peek(br) {
		return fullexport.ReadResult{}, fmt.Errorf("not a mneme export (it does not begin {\"format\":%q)", fullexport.Format)
	}
	var refused models.RestoreCounts
	now := time.Now()
	read, err := fullexport.Read(br, func(s *fullexport.Session) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Checked whole here, before it is cut into parts: a session
		// is refused whole (the worker checks each part again).
		rows := s.Rows()
		if err := fullexport.Check(&rows, now); err != nil {
			refused.Refuse(s.Session.ClaudeSessionID, err)
			return nil
		}
		if rs == nil {
			return nil
		}
		return rs.add(ctx, s)
	}, func(ms []models.ExportMemory) error {
		if err := fullexport.CheckMemories(ms, now); err != nil {
			refused.Refused = append(refused.Refused, "memories outside sessions: "+strings.TrimPrefix(err.Error(), models.ErrInvalid.Error()+": "))
			return nil
		}
		if rs == nil || len(ms) == 0 {
			return nil
		}
		rs.loose = ms
		return nil
	})
	read.Refused = refused.Refused
	if rs != nil {
		// The complete sessions read before a cut are stored too; the
		// memories outside sessions after them, since they may supersede
		// or be superseded by a session's.
		ferr := rs.flush(ctx)
		if ferr == nil {
			ferr = rs.flushLoose(ctx)
		}
		if ferr != nil && (err == nil || errors.Is(err, fullexport.ErrTruncated)) {
			err = ferr
		}
	}
	return read, err
}

// restoreSender batches sessions as JSON lines to POST
// /api/import/export-rows (under batchBytes a request) and adds up the
// worker's answers.
type restoreSender struct {
	s   *socketSink
	buf bytes.Buffer
	got models.RestoreCounts
	// loose are the export's memories outside any session, sent after
	// its sessions (flushLoose).
	loose []models.ExportMemory
}

// flushLoose sends the memories outside sessions to POST
// /api/import/export-memories, under batchBytes a request.
func (rs *restoreSender) flushLoose(ctx context.Context) error {
	var buf bytes.Buffer
	send := func() error {
		if buf.Len() == 0 {
			return nil
		}
		defer buf.Reset()
		res, err := postLines[models.RestoreCounts](ctx, rs.s, "/api/import/export-memories", buf.Bytes())
		if err == nil {
			rs.got.Add(res)
		}
		return err
	}
	for i := range rs.loose {
		line, err := json.Marshal(&rs.loose[i])
		if err != nil {
			return err
		}
		if buf.Len() > 0 && buf.Len()+len(line) > batchBytes {
			if err := send(); err != nil {
				return err
			}
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	rs.loose = nil
	return send()
}

func (rs *restoreSender) add(ctx context.Context, s *fullexport.Session) error {
	lines, err := sessionLines(s, batchBytes)
	if err != nil {
		return err
	}
	for _, line := range lines {
		if rs.buf.Len() > 0 && rs.buf.Len()+len(line) > batchBytes {
			if err := rs.flush(ctx); err != nil {
				return err
			}
		}
		rs.buf.Write(line)
		rs.buf.WriteByte('\n')
	}
	return nil
}

func (rs *restoreSender) flush(ctx context.Context) error {
	if rs.buf.Len() == 0 {
		return nil
	}
	defer rs.buf.Reset()
	res, err := postLines[models.RestoreCounts](ctx, rs.s, "/api/import/export-rows", rs.buf.Bytes())
	if err != nil {
		return err
	}
	rs.got.Add(res)
	return nil
}

// sessionLines is s as JSON lines of at most max bytes where it can be:
// a session too large for one is cut into parts by its observations, the
// first part holding the prompts and summaries, the others marked
// Continued.
func sessionLines(s *fullexport.Session, max int) ([][]byte, error) {
	line, err := json.Marshal(s)
	if err != nil || len(line) <= max || len(s.Observations) <= 1 {
		return [][]byte{line}, err
	}
	half := len(s.Observations) / 2
	first := *s
	first.Observations = s.Observations[:half]
	rest := fullexport.Session{Session: s.Session, Observations: s.Observations[half:], Continued: true}
	a, err := sessionLines(&first, max)
	if err != nil {
		return nil, err
	}
	b, err := sessionLines(&rest, max)
	return append(a, b...), err
}
