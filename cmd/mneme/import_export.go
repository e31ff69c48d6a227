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
	"regexp"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/api"
	fullexport "github.com/mneme-dev/mneme/internal/report"
	"github.com/mneme-dev/mneme/models"
)

// `mneme import FILE.json` reads back the full export (`mneme export
// --all`, README "Full export"), on this machine or another: a file is
// recognised by its opening {"format":"mneme-export", read token by token
// a session at a time (memory stays flat whatever its size), and each
// session sent to the worker (POST /api/import/export-rows), which
// restores its rows as they were stored and merges them with what it
// holds: a second import stores nothing twice.

// exportHead is how a full export begins (report.ExportAll writes it so).
var exportHead = regexp.MustCompile(`^\s*\{\s*"format"\s*:\s*"` + fullexport.AllFormat + `"`)

// peekExport tells whether r begins as a full export, without consuming
// what it reads.
func peekExport(r *bufio.Reader) bool {
	head, _ := r.Peek(256)
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	return exportHead.Match(head)
}

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
		ok := peekExport(bufio.NewReader(f))
		f.Close()
		switch {
		case ok:
			exports = append(exports, p)
		case strings.EqualFold(filepath.Ext(p), ".json"):
			return nil, nil, fmt.Errorf("%s is not a mneme export (it does not begin {\"format\":%q), nor a transcript (*.jsonl)", p, fullexport.AllFormat)
		default:
			rest = append(rest, p)
		}
	}
	return exports, rest, nil
}

// errTruncated tells an export that ends before its counts trailer, or
// whose counts differ from what it holds.
var errTruncated = errors.New("truncated")

// exportRead is what reading one export found.
type exportRead struct {
	Read    models.Counts  // rows read, in complete sessions
	Trailer *models.Counts // the file's own counts; nil when it has none
	// Refused says why each session holding a value mneme never stores
	// (models.RestoreRows.Check) was not sent.
	Refused []string
}

// readExport reads a full export from r token by token and hands each
// complete session to fn, in order, and its memories stated outside any
// session to mems. A session cut short is never handed on. It fails on
// an unknown format or version; a file cut short or whose trailer
// disagrees fails with errTruncated, after fn has had every complete
// session before the cut.
func readExport(r io.Reader, fn func(*api.ExportSession) error, mems func([]models.ExportMemory) error) (exportRead, error) {
	var out exportRead
	dec := json.NewDecoder(r)
	broken := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: the file ends after %s, with no counts at its end", errTruncated, plural(out.Read.Sessions, "complete session"))
		}
		return fmt.Errorf("%w: unreadable after %s (byte %d): %v", errTruncated, plural(out.Read.Sessions, "complete session"), dec.InputOffset(), err)
	}
	if err := delim(dec, '{'); err != nil {
		return out, fmt.Errorf("not a mneme export: %w", err)
	}
	version := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out, broken(err)
		}
		key, _ := tok.(string)
		switch key {
		case "format":
			var f string
			if err := dec.Decode(&f); err != nil || f != fullexport.AllFormat {
				return out, fmt.Errorf("not a mneme export: format %q", f)
			}
		case "version":
			if err := dec.Decode(&version); err != nil {
				return out, errors.New("the export's version is not a number")
			}
			if version != fullexport.AllVersion {
				return out, fmt.Errorf("this is version %d of the export format; this mneme reads version %d only (upgrade mneme to import it)", version, fullexport.AllVersion)
			}
		case "sessions":
			if version == 0 {
				return out, errors.New("the export gives no version before its sessions")
			}
			if err := delim(dec, '['); err != nil {
				return out, broken(err)
			}
			for dec.More() {
				var s api.ExportSession
				if err := dec.Decode(&s); err != nil {
					return out, broken(err)
				}
				if s.Session.ClaudeSessionID == "" {
					return out, fmt.Errorf("session %d of the export has no claudeSessionId", out.Read.Sessions+1)
				}
				if err := fn(&s); err != nil {
					return out, err
				}
				out.Read.Sessions++
				out.Read.Prompts += int64(len(s.Prompts))
				out.Read.Observations += int64(len(s.Observations))
				out.Read.Summaries += int64(len(s.Summaries))
				out.Read.Memories += int64(len(s.Memories))
			}
			if err := delim(dec, ']'); err != nil {
				return out, broken(err)
			}
		case "memories":
			var ms []models.ExportMemory
			if err := dec.Decode(&ms); err != nil {
				return out, broken(err)
			}
			if err := mems(ms); err != nil {
				return out, err
			}
			out.Read.Memories += int64(len(ms))
		case "counts":
			var c models.Counts
			if err := dec.Decode(&c); err != nil {
				return out, broken(err)
			}
			out.Trailer = &c
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return out, broken(err)
			}
		}
	}
	if err := delim(dec, '}'); err != nil {
		return out, broken(err)
	}
	if version == 0 {
		return out, errors.New("not a mneme export: no version")
	}
	if out.Trailer == nil {
		return out, fmt.Errorf("%w: the file has no counts at its end", errTruncated)
	}
	if *out.Trailer != out.Read {
		t := out.Trailer
		return out, fmt.Errorf("%w: its counts say %s, but it holds %s", errTruncated, countsText(*t), countsText(out.Read))
	}
	return out, nil
}

// delim reads the next token, which must be d.
func delim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("expected %v at byte %d, found %v", d, dec.InputOffset(), tok)
	}
	return nil
}

// countsText is c in words; memories are named when there are some (an
// export made before memories has none).
func countsText(c models.Counts) string {
	s := fmt.Sprintf("%s, %s, %s, %s", plural(c.Sessions, "session"), plural(c.Prompts, "prompt"), plural(c.Observations, "observation"), plural(c.Summaries, "summary"))
	if c.Memories != 0 {
		s += ", " + plural(c.Memories, "memory")
	}
	return s
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
			fmt.Fprintf(stdout, "%s: would import %s (read in %s)\n", file, countsText(read.Read), took)
		} else {
			fmt.Fprintf(stdout, "%s: read %s in %s\n  new: %s\n  already there: %s\n",
				file, countsText(read.Read), took, countsText(rs.got.New), countsText(rs.got.Existing))
			read.Refused = append(read.Refused, rs.got.Refused...)
		}
		if n := len(read.Refused); n > 0 {
			fmt.Fprintf(stdout, "  refused: %d sessions, holding values mneme never stores (nothing of them was stored; the rest was):\n", n)
			for _, why := range read.Refused {
				fmt.Fprintf(stdout, "    %s\n", why)
			}
		}
		if errors.Is(err, errTruncated) {
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
func importExportFile(ctx context.Context, file string, rs *restoreSender) (exportRead, error) {
	f, err := os.Open(file)
	if err != nil {
		return exportRead{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if !peekExport(br) {
		return exportRead{}, fmt.Errorf("not a mneme export (it does not begin {\"format\":%q)", fullexport.AllFormat)
	}
	var refused models.RestoreCounts
	now := time.Now()
	read, err := readExport(br, func(s *api.ExportSession) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Checked whole here, before it is cut into parts: a session
		// is refused whole (the worker checks each part again).
		rows := models.RestoreRows{Session: s.Session, Prompts: s.Prompts, Summaries: s.Summaries, Observations: s.Observations, Memories: s.Memories}
		if err := rows.Check(now); err != nil {
			refused.Refuse(s.Session.ClaudeSessionID, err)
			return nil
		}
		if rs == nil {
			return nil
		}
		return rs.add(ctx, s)
	}, func(ms []models.ExportMemory) error {
		if err := models.CheckMemories(ms, now); err != nil {
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
		if ferr != nil && (err == nil || errors.Is(err, errTruncated)) {
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

func (rs *restoreSender) add(ctx context.Context, s *api.ExportSession) error {
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
func sessionLines(s *api.ExportSession, max int) ([][]byte, error) {
	line, err := json.Marshal(s)
	if err != nil || len(line) <= max || len(s.Observations) <= 1 {
		return [][]byte{line}, err
	}
	half := len(s.Observations) / 2
	first := *s
	first.Observations = s.Observations[:half]
	rest := api.ExportSession{Session: s.Session, Observations: s.Observations[half:], Continued: true}
	a, err := sessionLines(&first, max)
	if err != nil {
		return nil, err
	}
	b, err := sessionLines(&rest, max)
	return append(a, b...), err
}
