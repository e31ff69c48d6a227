package models

import (
	"context"
	"path/filepath"
	"testing"
)

// TestLoadSettingsAddsNewBuiltins: settings saved by an older version,
// whose rule set lacks a built-in added since (stripe_key here) and carries
// an old pattern, load with the new built-in switched on and the current
// patterns; a built-in the user switched off stays off.
func TestLoadSettingsAddsNewBuiltins(t *testing.T) {
	store, err := Open(filepath.Join(t.TempDir(), "mneme.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	old := DefaultSettings()
	var rules []RedactionRule
	for _, r := range old.Privacy.RedactionRules {
		switch r.Name {
		case "stripe_key":
			continue
		case "jwt":
			r.Enabled = false
		case "github_token":
			r.Pattern = `\bghp_[A-Za-z0-9]{36}\b`
		}
		rules = append(rules, r)
	}
	old.Privacy.RedactionRules = rules
	if err := SaveSettings(store.DB, old); err != nil {
		t.Fatal(err)
	}
	got, err := store.LoadSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]RedactionRule{}
	for _, r := range got.Privacy.RedactionRules {
		byName[r.Name] = r
	}
	for _, b := range BuiltinRedactionRules() {
		r, ok := byName[b.Name]
		if !ok {
			t.Errorf("built-in %s missing after load", b.Name)
			continue
		}
		if r.Pattern != b.Pattern {
			t.Errorf("built-in %s keeps an old pattern %q", b.Name, r.Pattern)
		}
		if want := b.Name != "jwt"; r.Enabled != want {
			t.Errorf("built-in %s enabled = %v, want %v", b.Name, r.Enabled, want)
		}
	}
}
