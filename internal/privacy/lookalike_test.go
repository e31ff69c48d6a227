package privacy

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The generated table (go generate ./internal/privacy) is what foldRune
// says it is: for every rune past ASCII, '-' for a Dash, nothing for an
// Ignorable rune, else its NFKC form when that is ASCII, lowered. Run
// go generate after a golang.org/x/text or Go update that changes the
// Unicode version. ltForms are all the runes that read as something
// holding '<'.
func TestLookalikeTable(t *testing.T) {
	if len(asciiBytes) != utf8.RuneSelf {
		t.Fatalf("asciiBytes has %d bytes", len(asciiBytes))
	}
	for i := range len(asciiBytes) {
		if asciiBytes[i] != byte(i) {
			t.Fatalf("asciiBytes[%d] = %d", i, asciiBytes[i])
		}
	}
	var lt []string
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		var want string
		wantOK := true
		switch {
		case Dash(r):
			want = "-"
		case Ignorable(r):
		default:
			want = norm.NFKC.String(string(r))
			wantOK = want != "" && isASCIIString(want)
			want = strings.ToLower(want)
		}
		got, ok := foldRune(r)
		if ok != wantOK || ok && got != want {
			t.Fatalf("%U: the table reads %q %v, want %q %v", r, got, ok, want, wantOK)
		}
		if strings.Contains(got, "<") {
			lt = append(lt, string(r))
		}
	}
	if strings.Join(lt, "") != strings.Join(ltForms, "") {
		t.Fatalf("runes folding to '<': %q, ltForms %q", lt, ltForms)
	}
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// A tag spelled with look-alike characters is a tag: fullwidth and small
// forms, other compatibility characters, any dash for the hyphen,
// invisible characters inside, in any mix with ASCII. The text around is
// kept as written.
func TestStripTagsLookalikes(t *testing.T) {
	for _, tc := range []struct{ name, open, close string }{
		{"fullwidth", "＜private＞", "＜/private＞"},
		{"fullwidth letters", "<ｐｒｉｖａｔｅ>", "</ＰＲＩＶＡＴＥ>"},
		{"fullwidth solidus", "<private>", "<／private>"},
		{"small forms", "﹤private﹥", "﹤/private﹥"},
		{"mixed", "＜private>", "</private＞"},
		{"U+2010 hyphen", "<mneme‐context>", "</mneme‐context>"},
		{"en dash, minus sign", "<claude–mem−context>", "</claude-mem-context>"},
		{"fullwidth hyphen", "<system－reminder>", "</system－reminder>"},
		{"zero-width space", "<mneme-con\u200btext>", "</mneme-con\u200btext>"},
		{"joiners, BOM, bidi", "<pri\u200dv\u200cate>", "<\u202e/priv\ufeffate\u2066>"},
		{"soft hyphen, variation selector", "<sys\u00adtem-remin\ufe0fder>", "</system-reminder>"},
		{"tag characters", "<priva\U000E0061te>", "</private>"},
		{"mathematical letters", "<𝐩𝐫𝐢𝐯𝐚𝐭𝐞>", "</𝗉𝗋𝗂𝗏𝖺𝗍𝖾>"},
		{"roman numeral iv", "<prⅳate>", "</private>"},
		{"long s", "<ſystem-reminder>", "</ſystem-reminder>"},
		{"attributes after an ideographic space", "<private\u3000reason=pw>", "</private>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "été " + tc.open + "hunter2" + tc.close + " 日本"
			if got := StripTags(in); got != "été  日本" {
				t.Errorf("StripTags(%q) = %q", in, got)
			}
			unterminated := "keep " + tc.open + "hunter2 and the rest"
			if got := StripTags(unterminated); got != "keep" {
				t.Errorf("StripTags(%q) = %q", unterminated, got)
			}
			doc := []byte(`{"a":"x ` + tc.open + `hunter2` + tc.close + ` y","n":12345678901234567890}`)
			if got := string(StripTagsJSON(doc)); strings.Contains(got, "hunter2") || !strings.Contains(got, "12345678901234567890") {
				t.Errorf("StripTagsJSON(%s) = %s", doc, got)
			}
			if got := New(nil).Clean(in); strings.Contains(got, "hunter2") {
				t.Errorf("Clean(%q) = %q", in, got)
			}
		})
	}
}

// JSON escapes of look-alikes are read as what they encode.
func TestStripTagsJSONEscapedLookalikes(t *testing.T) {
	for _, doc := range []string{
		`{"a":"\uff1cprivate\uff1ehunter2\uff1c/private\uff1e"}`,
		`{"a":"<priv\u200bate>hunter2</private>"}`,
		`{"a":"<\u0070rivate>hunter2</private>"}`,
		`{"a":"<mneme\u2010context>hunter2</mneme-context>"}`,
	} {
		if got := string(StripTagsJSON([]byte(doc))); strings.Contains(got, "hunter2") {
			t.Errorf("StripTagsJSON(%s) = %s", doc, got)
		}
		if got := string(New(nil).CleanJSON([]byte(doc))); strings.Contains(got, "hunter2") {
			t.Errorf("CleanJSON(%s) = %s", doc, got)
		}
	}
}

// Text past ASCII that holds no tag is left as written, in text and in
// JSON (byte for byte, not re-encoded), and so are look-alikes of other
// names and near misses.
func TestStripTagsKeepsNonASCII(t *testing.T) {
	for _, s := range []string{
		"café, naïve, Ångström — « déjà vu » 日本語のテキスト 한국어 العربية 👍 👨‍👩‍👧 ❤️ 🏳️‍🌈",
		"x² ＜b＞bold＜/b＞ ﹤privateer﹥ <privates> 10〜20 – a − b",
		"می\u200cخواهم (a zero-width non-joiner in Persian)",
	} {
		if got := StripTags(s); got != s {
			t.Errorf("StripTags(%q) = %q", s, got)
		}
		doc := []byte(`{"b":"` + s + `","a":1}`)
		if got := StripTagsJSON(doc); string(got) != string(doc) {
			t.Errorf("StripTagsJSON(%s) = %s", doc, got)
		}
	}
}

// The bound holds for look-alike tags: past MaxTagsPerField the rest of
// the field is dropped.
func TestStripTagsLookalikeBound(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxTagsPerField; i++ {
		b.WriteString("k＜private＞s</pri\u200bvate>")
	}
	b.WriteString("tail-before﹤private﹥LEAK﹤/private﹥tail-after")
	if got, want := StripTags(b.String()), strings.Repeat("k", MaxTagsPerField)+"tail-before"; got != want {
		t.Fatalf("got …%q, want …%q", got[max(0, len(got)-40):], want[len(want)-40:])
	}
	in := "keep" + strings.Repeat("＜private＞", 10000) + "LEAK" + strings.Repeat("＜/private＞", 10000) + "after"
	if got := StripTags(in); got != "keep" {
		t.Fatalf("got %.60q", got)
	}
}

// FuzzStripTagsLookalike is FuzzStripTags with the block spelled in
// look-alikes: its content never survives.
func FuzzStripTagsLookalike(f *testing.F) {
	f.Add("write notes ", "my password is hunter2", " thanks", uint8(0))
	f.Add("été ", "secret", " 日本", uint8(3))
	f.Add("<private>", "x", "</private>", uint8(5))
	spellings := [][2]string{
		{"＜private＞", "＜/private＞"},
		{"﹤ＰＲＩＶＡＴＥ﹥", "</private>"},
		{"<mneme‐context>", "</mneme\u2212context>"},
		{"<sys\u200btem-reminder a=1>", "</system\ufe0f-reminder>"},
		{"<claude–mem—context>", "</claude-mem-context>"},
		{"<𝐩𝐫𝐢𝐯𝐚𝐭𝐞>", "<／private\u00ad>"},
	}
	f.Fuzz(func(t *testing.T, before, secret, after string, which uint8) {
		sp := spellings[int(which)%len(spellings)]
		in := before + sp[0] + secret + sp[1] + after
		out := StripTags(in)
		if len(out) > len(in) {
			t.Fatalf("output longer than input")
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", out)
		}
		if len(secret) >= 4 && !strings.Contains(before+after, secret) && !strings.ContainsAny(secret, "<>＜＞﹤﹥") &&
			strings.Contains(out, secret) {
			t.Fatalf("content %q of %q survived in %q", secret, sp, out)
		}
	})
}

// ReplaceTagName finds the name however StripTags would read it, and
// keeps the text around as written.
func TestReplaceTagName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a </mneme-context> b", "a </X> b"},
		{"</MNEME-Context><mneme-context>", "</X><X>"},
		{"été </mneme‐context> 日本 (U+2010)", "été </X> 日本 (U+2010)"},
		{"＜/ｍｎｅｍｅ－ｃｏｎｔｅｘｔ＞", "＜/X＞"},
		{"</mneme-con\u200btext\u200b>", "</X\u200b>"},
		{"\u200b</mne\ufe0fme—context>", "\u200b</X>"},
		{"</𝐦𝐧𝐞𝐦𝐞-𝐜𝐨𝐧𝐭𝐞𝐱𝐭>", "</X>"},
		{"İİİİİİİİİİİİİİİİ</mneme-context>", "İİİİİİİİİİİİİİİİ</X>"},
		{"mneme-contextmneme-context", "XX"},
		{"mneme context, mneme_context, mnemecontext, mneme-contex", "mneme context, mneme_context, mnemecontext, mneme-contex"},
		{"café — naïve 日本語のテキスト、（括弧）！ 👨‍👩‍👧 x²…", "café — naïve 日本語のテキスト、（括弧）！ 👨‍👩‍👧 x²…"},
	} {
		if got := ReplaceTagName(tc.in, "mneme-context", "X"); got != tc.want {
			t.Errorf("ReplaceTagName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
