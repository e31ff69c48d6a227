package transcript

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// ErrRunning is Lock's answer while another import runs.
var ErrRunning = errors.New("an import is already running (from `mneme import` or the viewer); wait for it to finish")

// Lock takes <dataDir>/import.lock, so that one import runs at a time,
// whether `mneme import` or the viewer started it. The lock goes with the
// process that holds it.
func Lock(dataDir string) (unlock func(), err error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dataDir, "import.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := hookwire.LockFile(f, false); err != nil {
		f.Close()
		if errors.Is(err, hookwire.ErrLocked) {
			return nil, ErrRunning
		}
		return nil, err
	}
	return func() {
		hookwire.UnlockFile(f)
		f.Close()
	}, nil
}
