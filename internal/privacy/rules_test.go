package privacy

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func names(rules []Rule) string {
	var n []string
	for _, r := range rules {
		s := r.Name
		if !r.Enabled {
			s += "(off)"
		}
		n = append(n, s)
	}
	return strings.Join(n, ",")
}

// Settings stored before a built-in existed get it, switched on, after
// the last built-in they hold; a built-in switched off stays off; an old
// pattern is replaced by the current one; the user's rules are kept.
func TestMergeBuiltins(t *testing.T) {
	all := BuiltinRules()
	var old []Rule
	for _, r := range all {
		if r.Name == "stripe_key" || r.Name == "env_secret" {
			continue // not known to the older mneme
		}
		if r.Name == "jwt" {
			r.Enabled = false
		}
		if r.Name == "url_credentials" {
			r.Pattern = `old-pattern`
		}
		old = append(old, r)
	}
	old = append(old, Rule{Name: "ticket", Pattern: `TICKET-\d+`, Enabled: true})
	got := MergeBuiltins(old)
	if len(got) != len(all)+1 {
		t.Fatalf("got %d rules: %s", len(got), names(got))
	}
	byName := map[string]Rule{}
	for _, r := range got {
		byName[r.Name] = r
	}
	if !byName["stripe_key"].Enabled || !byName["env_secret"].Enabled || !byName["stripe_key"].Builtin {
		t.Errorf("new built-ins must be added switched on: %s", names(got))
	}
	if byName["jwt"].Enabled {
		t.Errorf("a built-in the user switched off stays off")
	}
	if byName["url_credentials"].Pattern == "old-pattern" {
		t.Errorf("a built-in gets its current pattern")
	}
	if got[len(got)-1].Name != "ticket" {
		t.Errorf("new built-ins go before the user's rules: %s", names(got))
	}
	// Built-ins keep their own order: a specific rule before a generic
	// one (env_secret before secret_assignment).
	var order []string
	for _, r := range got {
		if r.Builtin {
			order = append(order, r.Name)
		}
	}
	if strings.Join(order, ",") != names(all) {
		t.Errorf("built-ins out of order:\n got %s\nwant %s", strings.Join(order, ","), names(all))
	}

	// A user rule that has a new built-in's name keeps it.
	mine := []Rule{{Name: "npm_token", Pattern: `mine`, Enabled: true}}
	got = MergeBuiltins(mine)
	n := 0
	for _, r := range got {
		if r.Name == "npm_token" {
			n++
			if r.Pattern != "mine" {
				t.Errorf("the user's rule was replaced")
			}
		}
	}
	if n != 1 || len(got) != len(all) {
		t.Errorf("got %s", names(got))
	}
	if got := MergeBuiltins(nil); names(got) != names(all) {
		t.Errorf("no rules: got %s", names(got))
	}
}

// The hook reads what the worker wrote; without a file, or with a broken
// one, it has the built-in rules, never fewer.
func TestRulesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, RulesFile)
	if rules, err := LoadRules(path); err == nil || names(rules) != names(BuiltinRules()) {
		t.Errorf("missing file: %v, %s", err, names(rules))
	}
	rules := BuiltinRules()[:3]
	rules[1].Enabled = false
	rules = append(rules, Rule{Name: "ticket", Pattern: `TICKET-\d+`, Enabled: true})
	if err := WriteRules(path, rules); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v", info.Mode(), err)
	}
	got, err := LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	r := New(got)
	if out := r.Redact("TICKET-42 ghp_16C7e42F292c6912E7710c838347Ae178B4a AKIAIOSFODNN7EXAMPLE"); out != "[REDACTED:ticket] [REDACTED:github_token] AKIAIOSFODNN7EXAMPLE" {
		t.Errorf("custom rule, built-ins missing from the file, one switched off: %q", out)
	}
	for _, broken := range []string{"{", `{"version":2,"rules":[]}`, `{"version":1,"rules":[{"name":"x","pattern":"(","enabled":true}]}`} {
		os.WriteFile(path, []byte(broken), 0o600)
		got, _ := LoadRules(path)
		if out := New(got).Redact("AKIAIOSFODNN7EXAMPLE"); out != "[REDACTED:aws_access_key]" {
			t.Errorf("%s: built-ins must apply, got %q", broken, out)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// The key is made once, by whichever side comes first, and read by all.
func TestLoadIDKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := LoadIDKey(dir)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if string(k) != string(keys[0]) || len(k) != 32 {
			t.Fatalf("keys differ: %x %x", k, keys[0])
		}
	}
	if info, err := os.Stat(filepath.Join(dir, IDKeyFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	os.WriteFile(filepath.Join(dir, IDKeyFile), []byte("short"), 0o600)
	if _, err := LoadIDKey(dir); err == nil {
		t.Error("a broken key must be reported")
	}
}
