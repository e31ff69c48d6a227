package hooks

import "github.com/mneme-dev/mneme/internal/privacy"

// mapJSONStrings applies fn to every string value (not keys) in a JSON
// document (see privacy.MapStrings).
func mapJSONStrings(raw []byte, fn func(string) string) []byte { return privacy.MapStrings(raw, fn) }

// RuneStart moves i back to the start of the rune it falls in.
func RuneStart(s string, i int) int { return privacy.RuneStart(s, i) }
