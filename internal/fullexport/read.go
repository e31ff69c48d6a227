package fullexport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/mneme-dev/mneme/models"
)

// ErrTruncated tells an export that ends before its counts trailer, or
// whose counts differ from what it holds.
var ErrTruncated = errors.New("truncated")

// ReadResult is what reading one export found.
type ReadResult struct {
	Read    models.Counts  // rows read, in complete sessions
	Trailer *models.Counts // the file's own counts; nil when it has none
	// Refused says why each session holding a value mneme never stores
	// (Check) was not handed on.
	Refused []string
}

// Read reads a full export from r token by token and hands each
// complete session to fn, in order, and its memories stated outside any
// session to mems. A session cut short is never handed on. It fails on
// an unknown format or version; a file cut short or whose trailer
// disagrees fails with ErrTruncated, after fn has had every complete
// session before the cut.
func Read(r io.Reader, fn func(*Session) error, mems func([]models.ExportMemory) error) (ReadResult, error) {
	var out ReadResult
	dec := json.NewDecoder(r)
	broken := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: the file ends after %s, with no counts at its end", ErrTruncated, plural(out.Read.Sessions, "complete session", "complete sessions"))
		}
		return fmt.Errorf("%w: unreadable after %s (byte %d): %v", ErrTruncated, plural(out.Read.Sessions, "complete session", "complete sessions"), dec.InputOffset(), err)
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
			if err := dec.Decode(&f); err != nil || f != Format {
				return out, fmt.Errorf("not a mneme export: format %q", f)
			}
		case "version":
			if err := dec.Decode(&version); err != nil {
				return out, errors.New("the export's version is not a number")
			}
			if version != Version {
				return out, fmt.Errorf("this is version %d of the export format; this mneme reads version %d only (upgrade mneme to import it)", version, Version)
			}
		case "sessions":
			if version == 0 {
				return out, errors.New("the export gives no version before its sessions")
			}
			if err := delim(dec, '['); err != nil {
				return out, broken(err)
			}
			for dec.More() {
				var s Session
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
		return out, fmt.Errorf("%w: the file has no counts at its end", ErrTruncated)
	}
	if *out.Trailer != out.Read {
		t := out.Trailer
		return out, fmt.Errorf("%w: its counts say %s, but it holds %s", ErrTruncated, CountsText(*t), CountsText(out.Read))
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

// CountsText is c in words; memories are named when there are some (an
// export made before memories has none).
func CountsText(c models.Counts) string {
	s := fmt.Sprintf("%s, %s, %s, %s", plural(c.Sessions, "session", "sessions"), plural(c.Prompts, "prompt", "prompts"),
		plural(c.Observations, "observation", "observations"), plural(c.Summaries, "summary", "summaries"))
	if c.Memories != 0 {
		s += ", " + plural(c.Memories, "memory", "memories")
	}
	return s
}

// plural is n and its noun, one or many.
func plural(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}
