package privacy

import (
	"strings"
	"testing"
)

// TestBuiltinDescriptions: every built-in rule says in one line what it
// catches and shows an example whose value is an obvious placeholder;
// the example is caught by its own rule (the placeholder gone, the
// rule's marker in its place), and by the whole built-in set under that
// rule's name, so the example teaches what the marker will say. No
// description is left for a rule that is gone.
func TestBuiltinDescriptions(t *testing.T) {
	all := Builtins()
	names := map[string]bool{}
	for _, r := range BuiltinRules() {
		names[r.Name] = true
		t.Run(r.Name, func(t *testing.T) {
			d, ok := Describe(r.Name)
			if !ok {
				t.Fatal("no description")
			}
			if strings.TrimSpace(d.Catches) == "" || strings.ContainsAny(d.Catches, "\n\r") {
				t.Errorf("what it catches is not one line: %q", d.Catches)
			}
			if d.Example == "" || !strings.Contains(strings.ToLower(d.Example), "example") && !strings.Contains(d.Example, "00000000") {
				t.Errorf("example %q holds no obvious placeholder (EXAMPLE or zeros)", d.Example)
			}
			_, n, err := TestRule(r, d.Example)
			if err != nil || n == 0 {
				t.Fatalf("example %q not matched by its rule: %d, %v", d.Example, n, err)
			}
			if !strings.Contains(d.Stored, Marker(r.Name)) || strings.Contains(d.Stored, "EXAMPLE") || strings.Contains(d.Stored, "00000000") {
				t.Errorf("example %q stored as %q: the placeholder is not redacted by %s", d.Example, d.Stored, r.Name)
			}
			if got := all.Clean(d.Example); !strings.Contains(got, Marker(r.Name)) {
				t.Errorf("the built-in set stores %q as %q, not under %s", d.Example, got, Marker(r.Name))
			}
		})
	}
	for name := range about {
		if !names[name] {
			t.Errorf("a description for %q, which is no built-in rule", name)
		}
	}
	if _, ok := Describe("ticket"); ok {
		t.Error("a user's rule has a description")
	}
}
