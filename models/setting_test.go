package models

import (
	"strings"
	"testing"
)

// The settings rules cannot import models: what they repeat of it, the
// memory kinds and the person's name rule, must agree with it.
func TestSettingsAgreeWithModels(t *testing.T) {
	t.Parallel()
	on, off := DefaultSettings().Memory, MemorySettings{}
	for _, k := range MemoryKinds {
		if !on.KindEnabled(k) || off.KindEnabled(k) {
			t.Errorf("memory kind %s has no switch in MemorySettings", k)
		}
	}
	for _, p := range []string{"ana", " ana", "ana ", "", " ", "a\tb", "a\x00", strings.Repeat("é", 64), strings.Repeat("é", 65), TrustAll} {
		st := DefaultSettings()
		st.Memory.Trust = []string{p}
		_, err := CleanPerson(p)
		if want := err == nil && p == strings.TrimSpace(p); (st.Validate() == nil) != want {
			t.Errorf("trust %q: valid %v, CleanPerson says %v", p, !want, want)
		}
	}
}
