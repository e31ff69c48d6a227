package privacy

import (
	"strings"
	"testing"
)

func TestStripTags(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no tags", "plain text with a < sign", "plain text with a < sign"},
		{"private", "keep <private>hunter2</private> this", "keep  this"},
		{"mneme-context", "a <mneme-context>old memory</mneme-context>b", "a b"},
		{"claude-mem-context", "<claude-mem-context>x\ny</claude-mem-context>after", "after"},
		{"system-reminder", "before<system-reminder>be nice</system-reminder> after", "before after"},
		{"upper case", "a <PRIVATE>secret</PRIVATE> b", "a  b"},
		{"mixed case closing", "a <Private>secret</pRiVaTe> b", "a  b"},
		{"attributes", `a <private reason="pw">secret</private> b`, "a  b"},
		{"attributes on newline", "a <private\n  x=1>secret</private> b", "a  b"},
		{"several", "1<private>a</private>2<system-reminder>b</system-reminder>3", "123"},
		{"unterminated hides the rest", "visible <private>hunter2 and everything after", "visible"},
		{"unterminated open tag", "visible <private attr='x' hunter2", "visible"},
		{"similar names are kept", "<privateer>ahoy</privateer> <privates>", "<privateer>ahoy</privateer> <privates>"},
		{"closing of another kind does not end", "<private>a</system-reminder>b</private>c", "c"},
		{"whole text private", "<private>all of it</private>", ""},
		{"blank runs collapse", "a\n\n<private>x</private>\n\n\nb", "a\n\nb"},
		{"multibyte around", "été <private>ü</private> 日本", "été  日本"},
		{"upper case, then text past ASCII", "A <PRIVATE>x</PRIVATE> B été", "A  B été"},
		{"lone tag at end", "text <private", "text <private"},
		{"nested", "x<private>a<private>b</private>c</private>y", "xy"},
		{"nested three deep", "x<private>a<private>b<Private k=1>c</private>d</private>e</private>y", "xy"},
		{"nested unterminated hides the rest", "x<private>a<private>b</private>c", "x"},
		{"nested after a first block", "1<private>a</private>2<private>b<private>c</private>d</private>3", "123"},
		{"nested other kind inside", "x<private>a<system-reminder>b</system-reminder>c</private>y", "xy"},
		{"look-alike inside does not nest", "x<private>a<privateer>b</private>y", "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripTags(tt.in); got != tt.want {
				t.Errorf("StripTags(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Past MaxTagsPerField tags, the rest of the field is dropped: a bounded
// amount of work, and nothing after the bound can leak.
func TestStripTagsBound(t *testing.T) {
	var b strings.Builder
	for i := 0; i < MaxTagsPerField; i++ {
		b.WriteString("k<private>s</private>")
	}
	b.WriteString("tail-before<private>LEAK</private>tail-after")
	got := StripTags(b.String())
	if strings.Contains(got, "LEAK") || strings.Contains(got, "<private>") || strings.Contains(got, "tail-after") {
		t.Fatalf("text after tag %d must be dropped, got …%q", MaxTagsPerField+1, got[max(0, len(got)-40):])
	}
	if want := strings.Repeat("k", MaxTagsPerField) + "tail-before"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}

	// Exactly MaxTagsPerField tags are all processed and the tail kept.
	b.Reset()
	for i := 0; i < MaxTagsPerField; i++ {
		b.WriteString("<private>s</private>")
	}
	b.WriteString("end")
	if got := StripTags(b.String()); got != "end" {
		t.Fatalf("with %d tags got %q, want %q", MaxTagsPerField, got, "end")
	}
}

// Nested opening tags count toward the bound too: a field of 10,000
// nested blocks is dropped past MaxTagsPerField, in linear time.
func TestStripTagsNestedBound(t *testing.T) {
	in := "keep" + strings.Repeat("<private>", 10000) + "LEAK" + strings.Repeat("</private>", 10000) + "after"
	if got := StripTags(in); got != "keep" {
		t.Fatalf("got %.60q", got)
	}
	in = "keep" + strings.Repeat("<private>", 50) + "x" + strings.Repeat("</private>", 50) + "after"
	if got := StripTags(in); got != "keepafter" {
		t.Fatalf("50 nested blocks: got %q", got)
	}
}

func TestStripTagsJSON(t *testing.T) {
	in := []byte(`{"command":"echo <private>pw</private> ok","n":12345678901234567890,"nested":["<system-reminder>x</system-reminder>y"]}`)
	got := string(StripTagsJSON(in))
	for _, bad := range []string{"pw", "<private>", "system-reminder"} {
		if strings.Contains(got, bad) {
			t.Errorf("StripTagsJSON left %q in %s", bad, got)
		}
	}
	if !strings.Contains(got, "12345678901234567890") {
		t.Errorf("numbers must be preserved as written: %s", got)
	}
	escaped := []byte(`{"title":"a \u003cPrivate note=1\u003ehunter2\u003c/private\u003e b"}`)
	if got := string(StripTagsJSON(escaped)); strings.Contains(got, "hunter2") || !strings.Contains(got, `"a  b"`) {
		t.Errorf("JSON-escaped tags must be stripped too: %s", got)
	}
	plain := []byte(`{"a":"<b>bold</b>"}`)
	if out := StripTagsJSON(plain); string(out) != string(plain) {
		t.Errorf("JSON without stripped tags must be returned unchanged, got %s", out)
	}
}

// BenchmarkStripTags runs over 1 MB holding 10,000 tags (past the bound, so
// the tail is dropped) and 1 MB of text with 10,000 '<' that are not tags:
// linear time shows as MB/s that do not collapse with the tag count.
func BenchmarkStripTags(b *testing.B) {
	var tagged strings.Builder
	for tagged.Len() < 1<<20 {
		tagged.WriteString(strings.Repeat("lorem ipsum ", 4))
		tagged.WriteString("<private>secret</private>")
	}
	var lookalike strings.Builder
	for i := 0; lookalike.Len() < 1<<20; i++ {
		lookalike.WriteString(strings.Repeat("x", 90))
		if i < 10000 {
			lookalike.WriteString("<privat")
		}
	}
	// Worst case for an unbounded scanner: many opening tags, no closings.
	opens := strings.Repeat("<private "+strings.Repeat("y", 95), 10000)
	// Look-alike tags in text past ASCII: every rune is folded.
	var wide strings.Builder
	for wide.Len() < 1<<20 {
		wide.WriteString(strings.Repeat("日本語のテキスト ", 4))
		wide.WriteString("＜private＞secret＜/priv\u200bate＞")
	}
	for _, c := range []struct{ name, s string }{
		{"10k-tags-1MB", tagged.String()},
		{"lookalike-tags-1MB", wide.String()},
		{"cjk-no-tags-1MB", strings.Repeat("日本語のテキストと<b>", 1<<20/40)},
		{"10k-lookalikes-1MB", lookalike.String()},
		{"10k-unclosed-1MB", opens},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				StripTags(c.s)
			}
		})
	}
}

// TestStripTagsNested: a block nested in a block of the same kind does not
// end the outer one, so nothing of either leaks (issue #10, point 6).
func TestStripTagsNested(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"x <private>a<private>b</private>c</private> y", "x  y"},
		{"<PRIVATE>a<private note=1>b</Private>c</private>keep", "keep"},
		{"<private>a<private>b<private>c</private>d</private>e</private>ok", "ok"},
		// Unbalanced: the outer block never closes, so the rest is hidden.
		{"keep <private>a<private>b</private>tail", "keep"},
		// A different kind inside does not change the private block's depth.
		{"<private>a<system-reminder>b</system-reminder>c</private>ok", "ok"},
		// Siblings still work.
		{"<private>a</private>mid<private>b</private>end", "midend"},
	} {
		got := StripTags(tc.in)
		if got != tc.want {
			t.Errorf("StripTags(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, secret := range []string{"a", "b", "c", "d", "e", "tail"} {
			if strings.Contains(tc.in, ">"+secret+"<") && strings.Contains(got, secret) && !strings.Contains(tc.want, secret) {
				t.Errorf("StripTags(%q) leaked %q: %q", tc.in, secret, got)
			}
		}
	}
}
