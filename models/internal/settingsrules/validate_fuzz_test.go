package settingsrules

import (
	"encoding/json"
	"regexp"
	"testing"
)

// FuzzSettingsValidate unmarshals arbitrary JSON over the defaults, as the
// settings page's PUT does, and validates it: Validate must never panic,
// and settings it accepts must survive a round trip and have only rules
// that compile and cannot match the empty string.
func FuzzSettingsValidate(f *testing.F) {
	def, _ := json.Marshal(Defaults())
	f.Add(def)
	f.Add([]byte(`{"privacy":{"redactionRules":[{"name":"x","pattern":"(a*)*b","enabled":true}]}}`))
	f.Add([]byte(`{"privacy":{"redactionRules":[{"name":"","pattern":""}],"excludeGlobs":["[", "**/x/**", ""]}}`))
	f.Add([]byte(`{"capture":{"outputCapBytes":-1,"readTools":"maybe"},"injection":{"maxInjectTokens":99999999}}`))
	f.Add([]byte(`{"summarizer":{"kind":"anthropic-api","dailyTokenBudget":-5}}`))
	f.Add([]byte(`{"capture":{"projectAliases":{"":"x","/a":""}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		st := Defaults()
		if json.Unmarshal(body, &st) != nil {
			return
		}
		err := st.Validate()
		if err == nil {
			for _, r := range st.Privacy.RedactionRules {
				re, cerr := regexp.Compile(r.Pattern)
				if cerr != nil || re.MatchString("") {
					t.Fatalf("accepted rule %q", r.Pattern)
				}
			}
			b, _ := json.Marshal(st)
			var again Settings
			if json.Unmarshal(b, &again) != nil || again.Validate() != nil {
				t.Fatalf("accepted settings do not survive a round trip: %s", b)
			}
			return
		}
		if _, ok := err.(*ValidationError); !ok {
			t.Fatalf("Validate returned %T, want *ValidationError", err)
		}
	})
}
