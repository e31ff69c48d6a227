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

// rulesDoc is RulesFile: what differs from the built-in rules, which the
// hook has compiled in (it parses a few bytes per event, not every
// pattern): the built-ins switched off, and the other rules (the user's,
// and built-ins of a newer mneme, whole).
type rulesDoc struct {
	Version int      `json:"version"`
	Off     []string `json:"off"`
	Rules   []Rule   `json:"rules"`
}

// WriteRules writes rules to path (RulesFile in the data directory) with
// mode 0600, atomically: a hook reading meanwhile sees the old file or the
// new one, never a part.
func WriteRules(path string, rules []Rule) error {
	known := map[string]bool{}
	for _, b := range builtins {
		known[b.Name] = true
	}
	doc := rulesDoc{Version: rulesVersion, Off: []string{}, Rules: []Rule{}}
	for _, r := range rules {
		switch {
		case r.Builtin && known[r.Name] && !r.Enabled:
			doc.Off = append(doc.Off, r.Name)
		case r.Builtin && known[r.Name]:
		default:
			doc.Rules = append(doc.Rules, r)
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// LoadRules reads the rules the worker wrote to path: the built-in rules
// but those it switched off, then its other rules (one with a built-in's
// name takes that built-in's place). A missing, unreadable or corrupt
// file gives the built-in rules alone, and its error, which the hook only
// reports: never fewer than the built-ins the user has not switched off.
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
	doc, err := parseRulesDoc(b)
	if err != nil {
		return BuiltinRules(), fmt.Errorf("%s: %w", path, err)
	}
	if doc.Version != rulesVersion {
		return BuiltinRules(), fmt.Errorf("%s: format version %d, want %d", path, doc.Version, rulesVersion)
	}
	rules := BuiltinRules()
	at := make(map[string]int, len(rules))
	for i, r := range rules {
		at[r.Name] = i
	}
	for _, name := range doc.Off {
		if i, ok := at[name]; ok {
			rules[i].Enabled = false
		}
	}
	for _, r := range doc.Rules {
		if i, ok := at[r.Name]; ok {
			rules[i] = r
			continue
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// parseRulesDoc reads RulesFile. It decodes into plain values rather
// than into rulesDoc: the hook reads the file once per process, and
// encoding/json's first decoding into a struct type (reflecting on its
// fields) cost more than the rest of the loading.
func parseRulesDoc(b []byte) (rulesDoc, error) {
	var doc rulesDoc
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return doc, err
	}
	v, ok := raw["version"].(float64)
	if !ok {
		return doc, errors.New("no version")
	}
	doc.Version = int(v)
	off, _ := raw["off"].([]any)
	for _, o := range off {
		name, ok := o.(string)
		if !ok {
			return doc, errors.New("off: not a rule name")
		}
		doc.Off = append(doc.Off, name)
	}
	rules, _ := raw["rules"].([]any)
	for _, r := range rules {
		m, ok := r.(map[string]any)
		if !ok {
			return doc, errors.New("rules: not a rule")
		}
		name, _ := m["name"].(string)
		pattern, _ := m["pattern"].(string)
		enabled, _ := m["enabled"].(bool)
		builtin, _ := m["builtin"].(bool)
		doc.Rules = append(doc.Rules, Rule{Name: name, Pattern: pattern, Enabled: enabled, Builtin: builtin})
	}
	return doc, nil
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
