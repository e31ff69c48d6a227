package privacy

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RulesFile is the name, in the data directory, of the file through which
// the worker hands its redaction rules to the hook: the hook has no
// database, and must redact with the user's rules before it sends or
// spools anything.
const RulesFile = "redaction.json"

// IDKeyFile is the name, in the data directory, of the key of CleanID's
// hash, shared by the hook and the worker.
const IDKeyFile = "redaction.key"

// rulesVersion is the format of RulesFile.
const rulesVersion = 1

// maxRulesFile bounds what LoadRules reads.
const maxRulesFile = 1 << 20

type rulesDoc struct {
	Version int    `json:"version"`
	Rules   []Rule `json:"rules"`
}

// WriteRules writes rules to path (RulesFile in the data directory) with
// mode 0600, atomically: a hook reading meanwhile sees the old file or the
// new one, never a part.
func WriteRules(path string, rules []Rule) error {
	b, err := json.MarshalIndent(rulesDoc{Version: rulesVersion, Rules: rules}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// LoadRules reads the rules the worker wrote to path. Whatever it finds,
// every built-in rule is in the result (MergeBuiltins): switched on unless
// the file switches it off. A missing, unreadable or corrupt file gives
// the built-in rules alone, and its error, which the hook only reports.
func LoadRules(path string) ([]Rule, error) {
	f, err := os.Open(path)
	if err != nil {
		return BuiltinRules(), err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRulesFile+1))
	if err != nil {
		return BuiltinRules(), err
	}
	if len(b) > maxRulesFile {
		return BuiltinRules(), fmt.Errorf("%s is larger than %d bytes", path, maxRulesFile)
	}
	var doc rulesDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return BuiltinRules(), fmt.Errorf("%s: %w", path, err)
	}
	if doc.Version != rulesVersion {
		return BuiltinRules(), fmt.Errorf("%s: format version %d, want %d", path, doc.Version, rulesVersion)
	}
	return MergeBuiltins(doc.Rules), nil
}

// LoadIDKey returns the key of CleanID's hash kept in dataDir, making it
// (32 random bytes, mode 0600) if there is none yet. The hook and the
// worker both call it; whichever comes first makes the key, and the other
// reads it.
func LoadIDKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, IDKeyFile)
	if key, err := readKey(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	// Written whole beside it, then linked into place: a reader never sees
	// a part, and a key made meanwhile by the other side wins.
	f, err := os.CreateTemp(dataDir, "."+IDKeyFile+".*")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
	cherr := f.Chmod(0o600)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, cherr, serr, cerr); err != nil {
		return nil, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKey(path)
		}
		return nil, err
	}
	return key, nil
}

func readKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < 16 {
		// Written in part (a crash between create and write): a short
		// or broken key is no key.
		return nil, fmt.Errorf("%s holds no valid key", path)
	}
	return key, nil
}

// writeAtomic writes data to a temporary file beside path, syncs it, and
// renames it over path.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cherr := f.Chmod(0o600)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, cherr, serr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
