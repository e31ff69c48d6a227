package hookwire

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SpoolVersion is the format version written in each spool line.
const SpoolVersion = 1

// SpoolLine is one spooled event.
type SpoolLine struct {
	V         int             `json:"v"`
	Event     string          `json:"event"` // slug, e.g. "post-tool-use"
	SpooledAt time.Time       `json:"spooledAt"`
	Body      json.RawMessage `json:"body"`
}

// Spool is the on-disk queue of events that could not reach the worker:
// JSON lines appended (under an exclusive lock, fsynced) to
// <dir>/pending.jsonl. Replay renames the file first, so appends that race
// with a replay land in a new file and nothing is read twice or lost.
type Spool struct {
	Dir string
	// OnReject, if set, is told about each line set aside as corrupt, from
	// a newer version, or refused by the worker (the worker logs it).
	OnReject func(reason string)
}

const pendingName = "pending.jsonl"

// Append writes one event to the spool and fsyncs it.
func (s Spool) Append(event string, body []byte) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	if !json.Valid(body) {
		b, _ := json.Marshal(string(body))
		body = b
	}
	line, err := json.Marshal(SpoolLine{V: SpoolVersion, Event: event, SpooledAt: time.Now().UTC(), Body: body})
	if err != nil {
		return err
	}
	for {
		retry, err := s.appendLine(append(line, '\n'))
		if !retry {
			return err
		}
	}
}

// appendLine appends to pending.jsonl under its lock. A replay may have
// renamed the file between our open and our lock; writing then would land
// in a file the replay has already read, and the event would be lost. So
// once locked, the open file must still be pending.jsonl, else retry.
func (s Spool) appendLine(line []byte) (retry bool, err error) {
	path := filepath.Join(s.Dir, pendingName)
	f, err := openShared(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := LockFile(f, true); err != nil {
		return false, err
	}
	defer UnlockFile(f)
	opened, err := f.Stat()
	if err != nil {
		return false, err
	}
	if current, err := os.Stat(path); err != nil || !os.SameFile(opened, current) {
		return true, nil
	}
	if _, err := f.Write(line); err != nil {
		return false, err
	}
	return false, f.Sync()
}

// Pending reports whether anything waits in the spool. A replay renames
// pending.jsonl while it may be looked at: a spool file listed and gone
// before its size was read has moved, so the directory is read again
// (and after a few moves in a row, something is taken to wait).
func (s Spool) Pending() bool {
	return pendingIn(func() ([]os.DirEntry, error) { return os.ReadDir(s.Dir) })
}

// pendingIn is Pending over the listings list returns.
func pendingIn(list func() ([]os.DirEntry, error)) bool {
	for range 3 {
		entries, err := list()
		if err != nil {
			return false
		}
		moved := false
		for _, e := range entries {
			if !isSpoolFile(e.Name()) {
				continue
			}
			info, err := e.Info()
			switch {
			case err == nil && info.Size() > 0:
				return true
			case errors.Is(err, fs.ErrNotExist):
				moved = true
			}
		}
		if !moved {
			return false
		}
	}
	return true
}

// Waiting counts the events waiting in the spool: the lines of
// pending.jsonl and of the replay files a replay has not finished, blank
// ones left out. A line that turns out corrupt is counted too (a replay
// sets it aside).
func (s Spool) Waiting() (int, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !isSpoolFile(e.Name()) {
			continue
		}
		k, err := countLines(filepath.Join(s.Dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // replayed between the listing and now
		}
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// countLines counts the lines of path that hold more than white space,
// reading it a block at a time (a line may be megabytes long).
func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	n, filled := 0, false
	for {
		b, err := r.ReadByte()
		if err != nil {
			if filled {
				n++
			}
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		switch b {
		case '\n':
			if filled {
				n++
			}
			filled = false
		case ' ', '\t', '\r':
		default:
			filled = true
		}
	}
}

func isSpoolFile(name string) bool {
	return name == pendingName || strings.HasPrefix(name, "replay-") && strings.HasSuffix(name, ".jsonl")
}

// ReplayResult counts what a replay did.
type ReplayResult struct {
	Sent    int
	Corrupt int
	// Busy is set when another replay held the lock and nothing was done.
	Busy bool
}

// Replay sends every spooled event, oldest first, through send. A line that
// send fails on stops the replay and stays spooled (with the lines after
// it), unless the failure is permanent (ErrPermanent: the worker refused
// that event for good): that line, like a corrupt one or one from an unknown
// newer version, is quarantined in <dir>/rejected/ with the reason
// (reject) and the replay goes on, so one bad event never holds up the
// events behind it. Only one replay runs at a time (a lock file); a second
// caller returns at once.
func (s Spool) Replay(send func(event string, body []byte) error) (ReplayResult, error) {
	var res ReplayResult
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return res, err
	}
	lock, err := os.OpenFile(filepath.Join(s.Dir, ".replay.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return res, err
	}
	defer lock.Close()
	if err := LockFile(lock, false); err != nil {
		res.Busy = true
		return res, nil // another replay is running
	}
	defer UnlockFile(lock)

	// Files set aside by an earlier, failed replay go first. Only once they
	// are all sent is the pending file taken out of the appenders' way
	// (under their lock) and replayed: while the worker stays down, each
	// attempt then costs one failed send, and the spool stays one growing
	// file instead of one more replay file per hook call.
	for rotated := false; ; rotated = true {
		files, err := filepath.Glob(filepath.Join(s.Dir, "replay-*.jsonl"))
		if err != nil {
			return res, err
		}
		if len(files) == 0 {
			if rotated {
				return res, nil
			}
			if err := s.rotate(); err != nil {
				return res, err
			}
			continue
		}
		sort.Strings(files)
		for _, f := range files {
			if err := s.replayFile(f, send, &res); err != nil {
				return res, err
			}
		}
		if rotated {
			return res, nil
		}
		if err := s.rotate(); err != nil {
			return res, err
		}
	}
}

func (s Spool) rotate() error {
	pending := filepath.Join(s.Dir, pendingName)
	f, err := openShared(pending, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := LockFile(f, true); err != nil {
		return err
	}
	defer UnlockFile(f)
	if info, err := f.Stat(); err == nil && info.Size() == 0 {
		return os.Remove(pending)
	}
	return os.Rename(pending, filepath.Join(s.Dir, s.nextReplayName()))
}

// nextReplayName names a new replay file so that it sorts after every
// replay file already there, even if the clock went backwards since they
// were named (replay order is file-name order).
func (s Spool) nextReplayName() string {
	seq := time.Now().UnixNano()
	files, _ := filepath.Glob(filepath.Join(s.Dir, "replay-*.jsonl"))
	for _, f := range files {
		var n int64
		if _, err := fmt.Sscanf(filepath.Base(f), "replay-%d.jsonl", &n); err == nil && n >= seq {
			seq = n + 1
		}
	}
	return fmt.Sprintf("replay-%020d.jsonl", seq)
}

// replayFile sends the lines of one file. On a send failure it rewrites the
// file to hold only the unsent lines, so nothing is sent twice needlessly.
func (s Spool) replayFile(path string, send func(string, []byte) error, res *ReplayResult) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := bytes.Split(data, []byte("\n"))
	done := 0 // lines sent or set aside from this file
	for i, raw := range lines {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var line SpoolLine
		if err := json.Unmarshal(raw, &line); err != nil || line.Event == "" || len(line.Body) == 0 {
			s.reject(raw, "corrupt line")
			res.Corrupt++
			done++
			continue
		}
		if line.V > SpoolVersion {
			s.reject(raw, fmt.Sprintf("spool version %d is newer than this mneme (%d)", line.V, SpoolVersion))
			res.Corrupt++
			done++
			continue
		}
		body := withEventTime(line.Body, line.SpooledAt)
		if err := send(line.Event, body); err != nil {
			if errors.Is(err, ErrPermanent) {
				s.reject(raw, err.Error())
				res.Corrupt++
				done++
				continue
			}
			if done == 0 {
				return err // nothing sent or set aside: the file is as it was
			}
			rest := bytes.Join(lines[i:], []byte("\n"))
			if werr := writeFileSync(path, rest); werr != nil {
				return werr
			}
			return err
		}
		res.Sent++
		done++
	}
	return os.Remove(path)
}

// ErrPermanent is what an error that retrying cannot fix matches
// (errors.Is): an event the worker refuses for good, a summary request
// the LLM will refuse again. Mark one with Permanent. A spooled event
// whose send fails so is quarantined instead of blocking the spool.
var ErrPermanent = errors.New("permanent")

// Permanent marks err as one retrying cannot fix (ErrPermanent), its
// message unchanged. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string        { return e.err.Error() }
func (e *permanentError) Unwrap() error        { return e.err }
func (e *permanentError) Is(target error) bool { return target == ErrPermanent }

// HeaderPermanent is set by the worker on a 5xx answer whose cause is the
// event itself (the database refuses its data): the hook quarantines the
// event instead of retrying it for ever.
const HeaderPermanent = "Mneme-Permanent"

// PermanentStatus tells whether a worker's answer refuses the event for
// good: a 4xx, except 401 (a token that can be fixed), 408 and 429 (try
// later), or a 5xx marked with HeaderPermanent. Any other 5xx (the
// database busy, full, unreachable) is retried. marked is whether the
// answer carries HeaderPermanent. It is the one place a status becomes
// permanence: the worker's own errors carry it (ErrPermanent).
func PermanentStatus(status int, marked bool) bool {
	switch {
	case status == 401 || status == 408 || status == 429: // Unauthorized, Request Timeout, Too Many Requests
		return false
	case status >= 400 && status < 500:
		return true
	}
	return status >= 500 && marked
}

// RejectedDir is where a spool quarantines what it sets aside, one file per
// event: "# <time> <reason>" then the spooled line as it was.
const RejectedDir = "rejected"

// legacyRejected is the single file an older mneme set lines aside in.
const legacyRejected = "rejected.jsonl"

// reject quarantines one spooled line with the reason, in a file of its
// own under <dir>/rejected/ (private like the spool), and tells OnReject.
func (s Spool) reject(raw []byte, reason string) {
	dir := filepath.Join(s.Dir, RejectedDir)
	path, err := s.writeRejected(dir, raw, reason)
	if s.OnReject != nil {
		if err != nil {
			reason += fmt.Sprintf(" (and it could not be kept in %s: %v)", dir, err)
		} else {
			reason += " (kept in " + path + ")"
		}
		s.OnReject(reason)
	}
}

func (s Spool) writeRejected(dir string, raw []byte, reason string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	now := time.Now().UTC()
	for seq := 0; ; seq++ {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", now.Format("20060102T150405.000000000Z"), seq))
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) && seq < 1000 {
			continue
		}
		if err != nil {
			return "", err
		}
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "# %s %s\n", now.Format(time.RFC3339), strings.ReplaceAll(reason, "\n", " "))
		w.Write(raw)
		w.WriteByte('\n')
		err = w.Flush()
		if serr := f.Sync(); err == nil {
			err = serr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return path, err
	}
}

// Rejected counts the events this spool has quarantined (in
// <dir>/rejected/, and in the rejected.jsonl an older mneme wrote), and
// says where they are.
func (s Spool) Rejected() (events int, dir string) {
	dir = filepath.Join(s.Dir, RejectedDir)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			events++
		}
	}
	if data, err := os.ReadFile(filepath.Join(s.Dir, legacyRejected)); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if bytes.HasPrefix(line, []byte("# ")) {
				events++
			}
		}
	}
	return events, dir
}

// The time an event may claim (mneme_time), which the spool adds so that
// a replayed event keeps the time it happened: the worker takes a claim
// from at most MaxReplayAge ago (a laptop offline for weeks replays its
// spool when it is back) to MaxClockSkew ahead of its own clock. It
// stores an event that claims a time outside that window at the time it
// received it, and logs the claim: a person cannot put a session first
// in everyone's recent sessions (2099), nor out of retention's reach.
const (
	MaxReplayAge = 30 * 24 * time.Hour
	MaxClockSkew = 5 * time.Minute
)

// withEventTime adds mneme_time to a spooled body so the worker records
// when the event happened, not when it was replayed.
func withEventTime(body json.RawMessage, at time.Time) []byte {
	if at.IsZero() || len(body) == 0 || body[0] != '{' || bytes.Contains(body, []byte(`"mneme_time"`)) {
		return body
	}
	ts, _ := json.Marshal(at)
	trimmed := bytes.TrimSpace(body)
	if bytes.Equal(trimmed, []byte("{}")) {
		return []byte(`{"mneme_time":` + string(ts) + `}`)
	}
	out := make([]byte, 0, len(body)+40)
	out = append(out, `{"mneme_time":`...)
	out = append(out, ts...)
	out = append(out, ',')
	return append(out, trimmed[1:]...)
}

func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	return os.Rename(tmp, path)
}

// FallbackSpoolDir is where `mneme hook` spools when the data directory's
// spool cannot be written (disk full, read-only): a per-user directory
// under $XDG_RUNTIME_DIR (usually in memory) or else the temp directory,
// one per data directory. Hooks replay it after the main spool.
func FallbackSpoolDir(dataDir string) string {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join(base, fmt.Sprintf("mneme-spool-%d-%x", os.Getuid(), sum[:6]))
}
