package settingsrules

import (
	"errors"
	"testing"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// Update is the one place the rules of an edit live, for the API
// and the page alike.
func TestUpdate(t *testing.T) {
	cur := Defaults()
	cur.Summarizer.APIKey, cur.Summarizer.BaseURL = "sk-ant-api03-CURRENT-KEY-0123456789", "https://api.example.com/"
	builtins := privacy.BuiltinRules()

	t.Run("built-ins survive", func(t *testing.T) {
		p := cur
		first := builtins[0]
		first.Pattern, first.Enabled = "x", false // rewritten and switched off
		p.Privacy.RedactionRules = []privacy.Rule{first, first, {Name: "mine", Pattern: `T-\d+`, Enabled: true},
			{Name: "no_such_builtin", Builtin: true}, {Name: "forged", Pattern: `y`, Builtin: true}}
		next, _ := Update(cur, p, false)
		byName := map[string][]privacy.Rule{}
		for _, r := range next.Privacy.RedactionRules {
			byName[r.Name] = append(byName[r.Name], r)
		}
		if got := byName[first.Name]; len(got) != 1 || got[0].Pattern != builtins[0].Pattern || got[0].Enabled {
			t.Errorf("the rewritten built-in: %+v", got)
		}
		for _, b := range builtins[1:] {
			if len(byName[b.Name]) != 1 {
				t.Errorf("built-in %s left out of the edit is gone", b.Name)
			}
		}
		if len(byName["mine"]) != 1 || len(byName["no_such_builtin"]) != 0 {
			t.Errorf("user rules: %+v", next.Privacy.RedactionRules)
		}
		if f := byName["forged"]; len(f) != 1 || f[0].Builtin {
			t.Errorf("a rule claiming to be a built-in it is not: %+v", f)
		}
		if err := next.Validate(); err != nil {
			t.Errorf("the result does not validate: %v", err)
		}
	})

	for _, c := range []struct {
		name         string
		key, baseURL string
		clear        bool
		wantKey      string
		wantDropped  bool
	}{
		{"empty keeps", "", cur.Summarizer.BaseURL, false, cur.Summarizer.APIKey, false},
		{"status word keeps", APIKeySet, cur.Summarizer.BaseURL, false, cur.Summarizer.APIKey, false},
		{"same endpoint without the slash keeps", "", "https://api.example.com", false, cur.Summarizer.APIKey, false},
		{"a new key replaces", "sk-new", cur.Summarizer.BaseURL, false, "sk-new", false},
		{"clear removes", "", cur.Summarizer.BaseURL, true, "", false},
		{"new endpoint drops", "", "https://elsewhere.example.com", false, "", true},
		{"new endpoint with the key keeps it", "sk-new", "https://elsewhere.example.com", false, "sk-new", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := cur
			p.Summarizer.APIKey, p.Summarizer.BaseURL = c.key, c.baseURL
			next, dropped := Update(cur, p, c.clear)
			if next.Summarizer.APIKey != c.wantKey || dropped != c.wantDropped {
				t.Errorf("key %q dropped %v, want %q %v", next.Summarizer.APIKey, dropped, c.wantKey, c.wantDropped)
			}
		})
	}
}

func TestPatch(t *testing.T) {
	cur := Defaults()
	cur.Privacy.ExcludeGlobs = []string{"a", "b"}
	p, clear, err := Patch(cur, []byte(`{"privacy":{"excludeGlobs":["c"]},"summarizer":{"clearApiKey":true}}`))
	if err != nil || !clear || len(p.Privacy.ExcludeGlobs) != 1 || p.Privacy.ExcludeGlobs[0] != "c" {
		t.Fatalf("%+v %v %v", p.Privacy.ExcludeGlobs, clear, err)
	}
	if len(cur.Privacy.ExcludeGlobs) != 2 {
		t.Error("decoding wrote into the settings in force")
	}
	for _, body := range []string{`[1]`, `{"privacy":3}`, `{"privacy":{"excludeGlobs":"x"}}`, `{`} {
		if _, _, err := Patch(cur, []byte(body)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", body, err)
		}
	}
}
