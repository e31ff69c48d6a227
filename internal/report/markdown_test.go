package report_test

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// TestMarkdownExportHostile records a session whose every stored field
// tries to become Markdown or HTML structure (a cwd and session id with
// backticks that would close their code spans, HTML in a tool name, links
// and images in titles and prompts, pipes in paths, block markers at the
// start of prompt lines, backticks, bare URLs, www. and e-mail addresses,
// strikethrough), exports it as Markdown and renders the export with a
// real CommonMark+GFM renderer (goldmark, every GFM extension): no
// element comes from stored text (no code span, link or autolink), and
// each field reads back whole.
func TestMarkdownExportHostile(t *testing.T) {
	srv := testutil.NewServer(t)
	const (
		sid  = "s`</code><img src=x onerror=alert(1)>``"
		cwd  = "/home/dev/a``b`<b>bold</b>"
		file = "/home/dev/a``b`<b>bold</b>/x|y`.go"
	)
	base := func(event, prompt string, extra ev) ev {
		e := ev{"session_id": sid, "cwd": cwd, "hook_event_name": event}
		if prompt != "" {
			e["prompt_id"] = prompt
		}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	for _, s := range []struct {
		slug string
		body ev
	}{
		{"session-start", base("SessionStart", "", ev{"source": "startup"})},
		{"user-prompt-submit", base("UserPromptSubmit", "p1", ev{"prompt": "run `x` then see https://evil.example/a www.evil.example a@evil.example ~~gone~~ **b**  \n# heading\n- item\n1. one\n---\n<img src=http://evil.example/p.png>\n![x](http://evil.example/i.png) [y](javascript:alert(1))\n```\nfenced"})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "<img src=x onerror=alert(2)>", "tool_use_id": "t1", "tool_input": ev{"q": "![t](http://evil.example/t.png)"}, "tool_response": ev{"ok": true}})},
		{"post-tool-use", base("PostToolUse", "p1", ev{"tool_name": "Write", "tool_use_id": "t2", "tool_input": ev{"file_path": file, "content": "x"}, "tool_response": ev{"type": "create", "filePath": file}})},
		{"post-tool-use-failure", base("PostToolUseFailure", "p1", ev{"tool_name": "Bash", "tool_use_id": "t3", "tool_input": ev{"command": "go test ./... | tee `mktemp` # [z](http://evil.example) www.evil.example/w `y`"}, "error": "Exit code 1\n<script>alert(3)</script> ![e](http://evil.example/e.png)"})},
		{"stop", base("Stop", "p1", ev{"last_assistant_message": "done [l](http://evil.example/l) <iframe src=x>"})},
	} {
		srv.Hook(t, s.slug, s.body)
	}
	testutil.WaitJobs(t, srv.Store, time.Minute)

	resp, md := fetch(t, srv, "/api/sessions/"+url.PathEscape(sid)+"/export?format=md")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, md)
	}
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	html := out.String()

	// Every element in the rendering is one the report's own layout makes.
	allowed := map[string]bool{"h1": true, "h2": true, "h3": true, "p": true, "ul": true, "li": true, "strong": true, "em": true,
		"code": true, "blockquote": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "hr": true}
	for _, m := range regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)`).FindAllStringSubmatch(html, -1) {
		if !allowed[strings.ToLower(m[1])] {
			t.Errorf("the rendered export has a <%s> element from stored text", m[1])
		}
	}
	if strings.Contains(html, "<!--") || strings.Contains(html, "raw HTML omitted") {
		t.Error("stored text reached the renderer as raw HTML")
	}
	// One h1 (the title), and the section headings only: no prompt line
	// became a heading or a rule.
	if n := strings.Count(html, "<h1"); n != 1 {
		t.Errorf("%d h1 elements", n)
	}
	if n := strings.Count(html, "<hr"); n != 1 {
		t.Errorf("%d rules, want only the closing one", n)
	}
	// The code spans hold the whole values.
	esc := func(s string) string {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
	}
	for _, v := range []string{cwd, sid, "x|y`.go"} { // the file, relative to the cwd
		if !strings.Contains(html, "<code>"+esc(v)+"</code>") {
			t.Errorf("%q is not one code span in:\n%s", v, html)
		}
	}
	// No other code span: stored text makes none (a prompt's "run `x`",
	// a command's backticks), nor a link, autolink or strikethrough.
	for _, m := range regexp.MustCompile(`<code>(.*?)</code>`).FindAllStringSubmatch(html, -1) {
		if m[1] != esc(cwd) && m[1] != esc(sid) && !strings.HasSuffix(m[1], ".go") {
			t.Errorf("stored text made a code span: <code>%s</code>", m[1])
		}
	}
	for _, tag := range []string{"<a ", "<a>", "<del", "<img", "<br"} {
		if strings.Contains(html, tag) {
			t.Errorf("the rendered export has %s… from stored text", tag)
		}
	}
	for _, text := range []string{"run `x` then see https://evil.example/a www.evil.example a@evil.example ~~gone~~ **b**", "www.evil.example/w `y`"} {
		if !strings.Contains(html, esc(text)) {
			t.Errorf("%q does not read back whole", text)
		}
	}
	// The files table has its two columns: the pipe in the path split
	// nothing.
	if !regexp.MustCompile(`<tr>\s*<td><code>[^<]*x\|y[^<]*</code></td>\s*<td>created</td>`).MatchString(html) {
		t.Errorf("the files table row is not whole:\n%s", html)
	}
	if t.Failed() {
		t.Logf("export:\n%s", md)
	}
}
