package privacy

import (
	"encoding/json"
	"github.com/mneme-dev/mneme/internal/testutil/fixtures"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStripTags checks that a <private> block's content never survives,
// whatever surrounds it, and that the result is never longer than the input.
func FuzzStripTags(f *testing.F) {
	f.Add("write notes please ", "my password is hunter2", " thanks")
	f.Add("", "x", "")
	f.Add("<private>", "a", "</private>")
	f.Add("<PRIVATE attr=1>", "<private>nested", "</private></private>")
	f.Add("<system-reminder>", "secret", "<mneme-context>")
	f.Add(strings.Repeat("<private>a</private>", 150), "zzzz", "")
	f.Add("x<private>outer ", "nested-secret", " tail</private>y")
	f.Add("<private>a<private>b</private>", "after-inner", "</private>z")
	f.Add(strings.Repeat("<private>", 120), "deep", strings.Repeat("</private>", 120))
	f.Add("été ＜private＞a﹤/pri\u200bvate﹥", "between", "＜／ＰＲＩＶＡＴＥ＞ 日本")
	f.Add("<mneme‐context>", "x\u00ad", "</mneme\u2212context>")
	for _, line := range fixtures.Lines(f) {
		f.Add(string(line), "hunter2", "")
	}
	f.Fuzz(func(t *testing.T, before, secret, after string) {
		in := before + "<private>" + secret + "</private>" + after
		out := StripTags(in)
		if len(out) > len(in) {
			t.Fatalf("output longer than input")
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", out)
		}
		// The secret may only appear if it also appears outside the tag
		// (in before or after, or where they meet once the block is cut
		// out), so look for a marker-free secret only.
		if len(secret) >= 4 && !strings.Contains(before+after, secret) &&
			!strings.Contains(secret, "<") && !strings.Contains(secret, ">") &&
			strings.Contains(out, secret) {
			t.Fatalf("private content %q survived in %q", secret, out)
		}
		StripTags(out) // idempotence is not required, but no panic
	})
}

// FuzzStripTagsJSON checks that tag stripping keeps a JSON document valid.
func FuzzStripTagsJSON(f *testing.F) {
	for _, line := range fixtures.Lines(f) {
		f.Add(line)
	}
	f.Add([]byte(`{"a":"<private>x</private>","b":["<system-reminder>y</system-reminder>",1.5e300]}`))
	f.Add([]byte(`"<private>unterminated`))
	f.Add([]byte(`{"n":12345678901234567890123,"s":"\u003cprivate\u003ez\u003c/private\u003e"}`))
	f.Add([]byte(`{"a":"<private>a<private>b</private>LEAK</private>ok"}`))
	f.Add([]byte(`{"s":"<\u0070rivate>x</\u0070rivate>","t":["<PRIVATE>a<private>b</private>c</Private>"]}`))
	f.Add([]byte(`{"s":"\uff1cprivate\uff1ex\uff1c/private\uff1e","t":"＜private＞y","u":"\\uff1c"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := StripTagsJSON(raw)
		if json.Valid(raw) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\n in: %q\nout: %q", raw, out)
		}
		if json.Valid(raw) && strings.Contains(strings.ToLower(string(out)), "<private>") {
			t.Fatalf("a <private> tag survived: %q", out)
		}
	})
}
