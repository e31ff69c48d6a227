package hooks

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// LoadRedactor is the redaction the hook applies before an event is sent
// or spooled: the rules the worker wrote to <dataDir>/redaction.json (the
// user's own rules included), or the built-in rules alone when there is no
// such file or it cannot be read; never fewer than the built-ins the user
// has not switched off. Identifiers it changes are hashed with the key in
// the data directory, the worker's, read (or made) only when one needs it.
// Problems with the file go to debug, when set.
func LoadRedactor(dataDir string, debug func(format string, args ...any)) *privacy.Redactor {
	rules, err := privacy.LoadRules(filepath.Join(dataDir, privacy.RulesFile))
	if err != nil && debug != nil && !errors.Is(err, fs.ErrNotExist) {
		debug("redaction rules not read, the built-in ones apply: %v", err)
	}
	return privacy.New(rules).WithIDKey(func() []byte {
		key, err := privacy.LoadIDKey(dataDir)
		if err != nil && debug != nil {
			debug("no key for redacted ids, hashed without one: %v", err)
		}
		return key
	})
}

// redact runs the privacy pipeline over a raw payload (see
// privacy.Redactor.CleanPayload): tags stripped and secrets redacted in
// every decoded string, long strings cut only after that, before anything
// is sent to the worker or written to the spool.
func (c *Client) redact(raw []byte) []byte {
	return c.redactor().CleanPayload(raw, sendLimit)
}

func (c *Client) redactor() *privacy.Redactor {
	if c.Redactor == nil {
		c.Redactor = privacy.Builtins()
	}
	return c.Redactor
}
