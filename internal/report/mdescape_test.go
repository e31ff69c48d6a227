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
	mdRender = goldmark.New(goldmark.WithExtensions(extension.Table))
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
// one code element holding the text, and mdInline and mdLine (inside the
// quote the report puts prompts in) make no element but code spans and
// emphasis, and keep every character of the text.
func FuzzMarkdownEscapes(f *testing.F) {
	for _, s := range []string{"", "a", "`", "``", "a`b``c", " `x` ", "<img src=x>", "![i](http://e/i.png)", "[l](javascript:x)",
		"# h", "- l", "1. x", "---", "===", "```go", "~~~", "| a | b |", "&amp;", `\`, "\\`x`", "<http://e>", "a\nb", "* x", "    code"} {
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
		for name, md := range map[string]string{"mdInline": "x " + mdInline(one), "mdLine": "> " + mdLine(one)} {
			out := render(t, md)
			for _, m := range mdTag.FindAllStringSubmatch(out, -1) {
				switch m[2] {
				case "p", "code", "em", "strong", "blockquote", "del":
				default:
					t.Errorf("%s(%q) rendered a <%s>: %s", name, one, m[2], out)
				}
			}
			if strings.Contains(out, "<!--") {
				t.Errorf("%s(%q) reached the renderer as raw HTML: %s", name, one, out)
			}
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
