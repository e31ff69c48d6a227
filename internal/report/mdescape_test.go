package report

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var (
	mdRender = goldmark.New(goldmark.WithExtensions(extension.GFM))
	mdTag    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>`)
)

// render is the HTML a CommonMark+GFM viewer makes of md.
func render(t *testing.T, md string) string {
	var out bytes.Buffer
	if err := mdRender.Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// FuzzMarkdownEscapes: whatever the stored text, mdCode renders as exactly
// one code element holding the text, and mdText, mdLine (inside the quote
// the report puts prompts in) and mdCell make no markup at all under
// CommonMark with GFM (no code span, link, autolink, emphasis,
// strikethrough, HTML): one paragraph holding every character of the
// text.
func FuzzMarkdownEscapes(f *testing.F) {
	for _, s := range []string{"", "a", "`", "``", "a`b``c", " `x` ", "<img src=x>", "![i](http://e/i.png)", "[l](javascript:x)",
		"# h", "- l", "1. x", "---", "===", "```go", "~~~", "| a | b |", "&amp;", `\`, "\\`x`", "<http://e>", "a\nb", "* x", "    code",
		"run `x` ", "see https://evil.example/x now", "www.evil.example", "WwW.evil.example/p", "(www.evil.example)", "mail a@b.example",
		"mailto:a@b.example", "xmpp:a@b.example/r", "ftp://evil.example", "HTTP://EVIL.EXAMPLE", "~~gone~~", "~x~", "**bold**",
		"_em_", "*em*", "__b__", "a  ", "- [ ] task", "[^1]", "[x]: http://evil.example", "&#96;x&#96;", "http:/\\/evil.example",
		"x<https://evil.example>y", "wwww.evil.example", "ww.w.x", "user.name+tag@sub.evil.example."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8Valid(s) || strings.ContainsAny(s, "\x00\r") {
			return // stored text is valid UTF-8; NUL and CR are renderer quirks, not structure
		}
		one := oneLine(s)
		if one == "" {
			return
		}
		got := render(t, "x "+mdCode(s))
		want := "<p>x <code>" + html.EscapeString(one) + "</code></p>\n"
		if strings.ReplaceAll(got, "&#34;", "&quot;") != strings.ReplaceAll(strings.ReplaceAll(want, "&#34;", "&quot;"), "&#39;", "'") {
			t.Errorf("mdCode(%q) rendered %q, want %q", s, got, want)
		}
		for name, md := range map[string]string{"mdText": "x " + mdText(one), "mdLine": "> " + mdLine(one), "mdCell": "x " + mdCell(one)} {
			out := render(t, md)
			for _, m := range mdTag.FindAllStringSubmatch(out, -1) {
				switch m[2] {
				case "p", "blockquote":
				default:
					t.Errorf("%s(%q) rendered a <%s>: %s", name, one, m[2], out)
				}
			}
			if strings.Contains(out, "<!--") {
				t.Errorf("%s(%q) reached the renderer as raw HTML: %s", name, one, out)
			}
			text := strings.TrimSpace(html.UnescapeString(mdTag.ReplaceAllString(out, "")))
			want := "x " + one
			if name == "mdLine" {
				want = strings.TrimSpace(one)
			}
			if name == "mdCell" {
				want = strings.ReplaceAll(want, "|", `\|`) // outside a table, the cell's escape is text
				text = strings.ReplaceAll(text, "|", `\|`)
			}
			if text != want {
				t.Errorf("%s(%q) reads back %q, want %q (markdown %q)", name, one, text, want, md)
			}
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
