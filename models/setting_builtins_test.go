package models

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// TestLoadSettingsAddsNewBuiltins: settings saved by an older version,
// whose rule set lacks a built-in added since (stripe_key here) and carries
// an old pattern, load with the new built-in switched on and the current
// patterns; a built-in the user switched off stays off.
func TestLoadSettingsAddsNewBuiltins(t *testing.T) {
	t.Parallel()
	store := openTestStore(t)
	old := DefaultSettings()
	var rules []privacy.Rule
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
	if err := (&Tx{db: store.db}).WriteSettings(old); err != nil {
		t.Fatal(err)
	}
	got, err := store.LoadSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]privacy.Rule{}
	for _, r := range got.Privacy.RedactionRules {
		byName[r.Name] = r
	}
	for _, b := range privacy.BuiltinRules() {
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

// TestLoadSettingsBuiltinsBeforeUserRules: settings stored by an older mneme, with the rule set it knew, get the
// built-in rules added since (switched on, among the built-ins, before the
// user's own) and the built-ins' current patterns; a built-in the user
// switched off stays off.
func TestLoadSettingsBuiltinsBeforeUserRules(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	old := []privacy.Rule{
		{Name: "aws_access_key", Pattern: `\bAKIA[0-9A-Z]{16}\b`, Enabled: true, Builtin: true}, // an older pattern
		{Name: "jwt", Pattern: `eyJ.*`, Enabled: false, Builtin: true},
		{Name: "ticket", Pattern: `TICKET-\d+`, Enabled: true},
	}
	st := DefaultSettings()
	st.Privacy.RedactionRules = old
	b, _ := json.Marshal(st)
	if err := s.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES ('runtime', ?, ?)`, string(b), time.Now()).Error; err != nil {
		t.Fatal(err)
	}
	got, err := s.LoadSettings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rules := got.Privacy.RedactionRules
	if len(rules) != len(privacy.BuiltinRules())+1 || rules[len(rules)-1].Name != "ticket" {
		t.Fatalf("got %d rules, the user's last: %+v", len(rules), rules)
	}
	builtin := map[string]privacy.Rule{}
	for _, r := range privacy.BuiltinRules() {
		builtin[r.Name] = r
	}
	for _, r := range rules[:len(rules)-1] {
		want, ok := builtin[r.Name]
		if !ok || r.Pattern != want.Pattern {
			t.Errorf("%s: pattern %q, want the current built-in's", r.Name, r.Pattern)
		}
		if r.Enabled != (r.Name != "jwt") {
			t.Errorf("%s: enabled %v", r.Name, r.Enabled)
		}
	}
	if err := got.Validate(); err != nil {
		t.Errorf("merged settings do not validate: %v", err)
	}
}
