package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// StartBackoff is how long hooks do not try to start the worker again
// after an auto-start failed: they spool at once instead. Without it, when
// no worker can run, each event would wait out its start budget (250 ms
// for a tool call) before being spooled.
const StartBackoff = 30 * time.Second

// startFailedName marks a failed auto-start: its modification time is when
// it failed. It lives in the data directory's spool, or in the fallback
// spool when that one cannot be written.
const startFailedName = ".autostart-failed"

var errStartBackedOff = errors.New("auto-start failed moments ago; not retried yet")

// startMarkers are where a failed auto-start may be recorded, in the order
// they are written: the fallback only while it is this user's private
// directory (else anyone could stop our auto-start).
func (c *Client) startMarkers() []string {
	var out []string
	if c.Spool.Dir != "" {
		out = append(out, filepath.Join(c.Spool.Dir, startFailedName))
	}
	if c.Fallback.Dir != "" && hookwire.CheckPrivateDir(c.Fallback.Dir) == nil {
		out = append(out, filepath.Join(c.Fallback.Dir, startFailedName))
	}
	return out
}

// startBackedOff reports whether an auto-start failed less than
// StartBackoff ago, and how long ago. A mark from the future (the clock
// went back) counts only within StartBackoff too, so it cannot stop
// auto-start for longer than that.
func (c *Client) startBackedOff() (time.Duration, bool) {
	for _, path := range c.startMarkers() {
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if ago := time.Since(info.ModTime()); ago < StartBackoff && ago > -StartBackoff {
			return ago, true
		}
	}
	return 0, false
}

// markStartFailed records a failed auto-start where it can: the data
// directory's spool, else the fallback spool (made private if need be).
func (c *Client) markStartFailed() {
	stamp := []byte(time.Now().UTC().Format(time.RFC3339Nano) + "\n")
	if c.Spool.Dir != "" {
		if os.MkdirAll(c.Spool.Dir, 0o700) == nil && writeMarker(filepath.Join(c.Spool.Dir, startFailedName), stamp) == nil {
			return
		}
	}
	if c.Fallback.Dir != "" && hookwire.MakePrivateDir(c.Fallback.Dir) == nil {
		if writeMarker(filepath.Join(c.Fallback.Dir, startFailedName), stamp) == nil {
			return
		}
	}
	c.debugf("could not record the failed auto-start; the next event tries again")
}

// writeMarker rewrites path, so its modification time is now.
func writeMarker(path string, stamp []byte) error {
	return os.WriteFile(path, stamp, 0o600)
}

// noteContact is called when the worker answered: a failed auto-start
// recorded earlier no longer holds back the next one.
func (c *Client) noteContact() {
	if c.contacted {
		return
	}
	c.contacted = true
	for _, path := range c.startMarkers() {
		os.Remove(path)
	}
}
