package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

type settingsDoc struct {
	Injection struct {
		MaxInjectTokens int `json:"maxInjectTokens"`
	} `json:"injection"`
	Privacy struct {
		RedactionRules []struct {
			Name    string `json:"name"`
			Pattern string `json:"pattern"`
			Enabled bool   `json:"enabled"`
		} `json:"redactionRules"`
	} `json:"privacy"`
}

func getSettings(t *testing.T, srv *testutil.Server) settingsDoc {
	t.Helper()
	var s settingsDoc
	srv.GetJSON(t, "/api/settings", &s)
	return s
}

// seedSettingsDemo records work in two projects so the preview has content.
func seedSettingsDemo(t *testing.T, srv *testutil.Server) {
	t.Helper()
	for i := 0; i < 3; i++ {
		s := fmt.Sprintf("demo-%d", i)
		srv.Hook(t, "user-prompt-submit", prompt(s, s+"-p", "make the importer handle empty CSV files, case "+s))
		srv.Hook(t, "post-tool-use-failure", bashFailure(s, s+"-f", "go test ./importer/...", "--- FAIL: TestEmptyCSV"))
		for k := 0; k < 6; k++ {
			srv.Hook(t, "post-tool-use", bashCall(s, fmt.Sprintf("%s-%d", s, k), fmt.Sprintf("go build ./cmd/tool%d", k), "ok"))
		}
	}
	other := map[string]any{"session_id": "elsewhere", "cwd": "/tmp/other-project", "hook_event_name": "UserPromptSubmit",
		"prompt_id": "o1", "prompt": "write the other project's README", "transcript_path": ""}
	srv.Hook(t, "user-prompt-submit", other)
}

// TestBrowserSettings edits the settings page in Chromium: an invalid regex
// is refused with its error next to the field, a fixed one saves, the
// budget change applies at once and the preview shows the smaller block;
// the live rule test and preview refresh work.
func TestBrowserSettings(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	seedSettingsDemo(t, srv)
	before := getSettings(t, srv)
	n := len(before.Privacy.RedactionRules)
	b := newBrowser(t, 1280, 1000)
	b.login(t, srv)

	b.do(t, chromedp.Navigate(srv.URL+"/settings?project=live-project"), chromedp.WaitVisible(chromedp.ID("settings-form")))
	tokens0 := eval[int](t, b, `parseInt(document.getElementById("preview-tokens").textContent, 10)`)
	// The budget set below (100) must bind: a preview of at least 150.
	if tokens0 < 150 || !strings.Contains(eval[string](t, b, `document.getElementById("preview-text").textContent`), "go test ./importer/...") {
		t.Fatalf("preview before: %d tokens", tokens0)
	}

	// An invalid regex: refused, error next to the field, nothing saved.
	b.do(t,
		chromedp.SendKeys(chromedp.ID("f-newRule-name"), "ticket"),
		chromedp.SendKeys(chromedp.ID("f-newRule-pattern"), "TICKET-(\\d+"),
		chromedp.Click(chromedp.ID("settings-save")),
		chromedp.WaitVisible(chromedp.ID("settings-errors")),
	)
	errField := fmt.Sprintf("f-privacy-redactionRules-%d-pattern", n)
	msg := eval[string](t, b, fmt.Sprintf(`(function(){var e=document.getElementById(%q); return e ? e.textContent : "";})()`, errField+"-err"))
	if !strings.Contains(msg, "missing closing )") {
		// Which errors the page shows instead, and what the new rule's
		// fields held (it failed once this way on a loaded machine).
		shown := eval[string](t, b, `Array.from(document.querySelectorAll(".field-error")).filter(function(e){return !e.hidden && e.textContent;}).map(function(e){return e.id + ": " + e.textContent;}).join("; ")`)
		fields := eval[string](t, b, `Array.from(document.querySelectorAll("#settings-form input[name*='redactionRules']")).slice(-3).map(function(e){return e.name + "=" + e.value;}).join("; ")`)
		t.Fatalf("error next to the pattern field = %q; errors shown: %s; last rule fields: %s", msg, shown, fields)
	}
	// The message sits right after its input, in the same table cell.
	if !eval[bool](t, b, fmt.Sprintf(`document.getElementById(%q).nextElementSibling.id === %q`, errField, errField+"-err")) {
		t.Fatal("the error is not next to its field")
	}
	if got := getSettings(t, srv); len(got.Privacy.RedactionRules) != n {
		t.Fatalf("an invalid rule was saved: %d rules", len(got.Privacy.RedactionRules))
	}
	shot(t, b, "settings-invalid-regex.png")

	// Fix the pattern and lower the budget: saved and applied.
	b.do(t,
		chromedp.SetValue(chromedp.ID(errField), `TICKET-(\d+)`),
		chromedp.SetValue(chromedp.ID("f-injection-maxInjectTokens"), "100"),
		chromedp.Click(chromedp.ID("settings-save")),
		chromedp.WaitVisible(chromedp.ID("settings-notice")),
	)
	after := getSettings(t, srv)
	if after.Injection.MaxInjectTokens != 100 || len(after.Privacy.RedactionRules) != n+1 || after.Privacy.RedactionRules[n].Pattern != `TICKET-(\d+)` {
		t.Fatalf("saved settings: %+v", after)
	}
	tokens1 := eval[int](t, b, `parseInt(document.getElementById("preview-tokens").textContent, 10)`)
	if tokens1 == 0 || tokens1 > 100 || tokens1 >= tokens0 {
		t.Fatalf("preview after lowering the budget: %d tokens (before %d)", tokens1, tokens0)
	}
	shot(t, b, "settings-saved.png")

	// Preview refresh in place (settings.js) for another project.
	b.do(t, chromedp.Evaluate[chromedp.Void](`window.__samePage = true;
		var s = document.getElementById("preview-project"); s.value = "other-project"; s.dispatchEvent(new Event("change"));`))
	b.waitFor(t, "the other project's preview", `document.getElementById("preview-text").textContent.includes("other project's README") && window.__samePage === true`, 5*time.Second)

	// Live rule test: an invalid pattern shows its error, a valid one redacts.
	b.do(t,
		chromedp.WaitVisible(chromedp.ID("rule-test")),
		// Out from under the sticky save bar, as a person scrolls to it.
		chromedp.Evaluate[chromedp.Void](`document.getElementById("rule-test").scrollIntoView({block: "center"})`),
		chromedp.SetValue(chromedp.ID("rule-test-pattern"), "(oops"),
		chromedp.SetValue(chromedp.ID("rule-test-sample"), "see TICKET-42 and TICKET-7"),
		chromedp.Click(chromedp.ID("rule-test-run")),
		chromedp.WaitVisible(chromedp.ID("rule-test-error")),
	)
	b.do(t,
		chromedp.SetValue(chromedp.ID("rule-test-name"), "ticket"),
		chromedp.SetValue(chromedp.ID("rule-test-pattern"), `TICKET-\d+`),
		chromedp.Click(chromedp.ID("rule-test-run")),
		chromedp.WaitVisible(chromedp.ID("rule-test-result")),
	)
	if got := eval[string](t, b, `document.getElementById("rule-test-result").textContent`); !strings.Contains(got, "2 match") || !strings.Contains(got, "see [REDACTED:ticket] and [REDACTED:ticket]") {
		t.Fatalf("rule test result %q", got)
	}
	shot(t, b, "settings-rule-test.png")
}

// TestBrowserSettingsCrossOriginRefused: a page served from another
// loopback port auto-submits a form to the worker's settings (with the
// worker's cookie in the browser) and posts a prompt to the hook endpoint.
// Both are refused and nothing changes.
func TestBrowserSettingsCrossOriginRefused(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	seedSettingsDemo(t, srv)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>evil</title>
<form id="f" method="post" action="%[1]s/settings">
<input name="injection.maxInjectTokens" value="1">
<input name="privacy.redactionRules.count" value="0">
<input name="retention.observationDays" value="1">
<input name="retention.confirm" value="1">
</form>
<script>
fetch(%[1]q + "/api/hooks/user-prompt-submit", {method: "POST", mode: "no-cors", credentials: "include",
  body: JSON.stringify({session_id: "evil", hook_event_name: "UserPromptSubmit", prompt: "EVIL PROMPT", cwd: "/tmp/evil"})})
  .finally(function () { document.getElementById("f").submit(); });
</script>`, srv.URL)
	}))
	defer evil.Close()

	before := getSettings(t, srv)
	b := newBrowser(t, 1000, 800)
	b.login(t, srv)
	// The browser holds the worker's CSRF cookie: the strongest case.
	b.do(t, chromedp.Navigate(srv.URL+"/settings"), chromedp.WaitVisible(chromedp.ID("settings-form")))
	b.do(t, chromedp.Navigate(evil.URL+"/"))
	// The page navigates itself: poll from Go, riding out the navigation.
	var body string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		if err == nil && strings.HasPrefix(v, srv.URL+"/settings") && (strings.Contains(v, "403") || strings.Contains(v, "401")) {
			body = v
			break
		}
	}
	// The login cookie is SameSite=Strict: a cross-site post goes without
	// it and is refused as unauthenticated (401); were it sent, the Origin
	// check refuses it (403).
	refused := strings.Contains(body, "403") && strings.Contains(body, "cross-origin") ||
		strings.Contains(body, "401") && strings.Contains(body, "authentication required")
	if !refused {
		t.Fatalf("forged post answered: %q", body)
	}
	after := getSettings(t, srv)
	if after.Injection.MaxInjectTokens != before.Injection.MaxInjectTokens || len(after.Privacy.RedactionRules) != len(before.Privacy.RedactionRules) {
		t.Fatalf("settings changed by a cross-origin form: %+v", after)
	}
	if _, err := srv.Store.SessionByClaudeID(t.Context(), "evil"); err == nil {
		t.Fatal("a cross-origin page injected a hook event")
	}
}

// shot saves a screenshot when MNEME_SCREENSHOTS is set.
func shot(t *testing.T, b *browser, name string) {
	t.Helper()
	dir := os.Getenv("MNEME_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserSettingsBuiltinsFitAndPlace: the built-in redaction rules,
// unfolded, each show what they catch and a placeholder example, and the
// page fits 1366 and 400 px in both themes without scrolling sideways.
// Switching one built-in off and saving comes back to the built-in list,
// still unfolded, with the notice in view there; a change in another
// section comes back to that section.
func TestBrowserSettingsBuiltinsFitAndPlace(t *testing.T) {
	parallelBrowser(t)
	srv := testutil.NewServer(t)
	seedSettingsDemo(t, srv)
	b := newBrowser(t, 1366, 900)
	b.login(t, srv)
	for _, theme := range []string{"light", "dark"} {
		for _, width := range []int{1366, 400} {
			t.Run(fmt.Sprintf("%s %d", theme, width), func(t *testing.T) {
				b.do(t, chromedp.EmulateViewport(int64(width), 900),
					chromedp.Navigate(srv.URL+"/settings"),
					chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem("mneme-theme", %q)`, theme)),
					chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("settings-form")),
					chromedp.Evaluate[chromedp.Void](`document.getElementById("builtin-rules").open = true`))
				rows := eval[[]struct{ Name, Catches, Example string }](t, b, `[...document.querySelectorAll("#builtin-rules tr.rule")].map(r => ({
					Name: r.dataset.rule,
					Catches: (r.querySelector(".rule-catches") || {}).textContent || "",
					Example: (r.querySelector(".rule-example") || {innerText: ""}).innerText.trim()}))`)
				if len(rows) < 40 {
					t.Fatalf("%d built-in rows", len(rows))
				}
				for _, r := range rows {
					if r.Catches == "" || !strings.Contains(r.Example, "e.g.") || !strings.Contains(r.Example, "[REDACTED:"+r.Name+"]") {
						t.Errorf("built-in %s: catches %q, example %q", r.Name, r.Catches, r.Example)
					}
				}
				got := eval[struct{ Page, Window int }](t, b, `({Page: document.documentElement.scrollWidth, Window: window.innerWidth})`)
				if got.Page > got.Window {
					wide := eval[[]string](t, b, `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right))`)
					t.Errorf("the page scrolls sideways: %d px in a %d px window; wider: %v", got.Page, got.Window, wide)
				}
				shot(t, b, fmt.Sprintf("settings-builtins-%s-%d.png", theme, width))
			})
		}
	}

	// Keep the place: switch jwt off inside the unfolded list and save.
	b.do(t, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(srv.URL+"/settings"), chromedp.WaitVisible(chromedp.ID("settings-form")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("builtin-rules").open = true`),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#builtin-rules tr[data-rule="jwt"]').scrollIntoView({block: "center"})`),
		chromedp.Click(`#builtin-rules tr[data-rule="jwt"] input[type=checkbox]`),
		chromedp.Click(chromedp.ID("settings-save")),
		chromedp.WaitVisible(chromedp.ID("settings-notice")),
	)
	b.waitFor(t, "the page back at the built-in rules", `location.hash === "#settings-notice" && new URLSearchParams(location.search).get("at") === "builtin-rules"`, 30*time.Second)
	at := eval[struct {
		Open, InView, NoticeIn bool
		Top                    float64
	}](t, b, `(function(){
		var d = document.getElementById("builtin-rules"), n = document.getElementById("settings-notice"), r = n.getBoundingClientRect();
		return {Open: d.open, InView: r.top >= 0 && r.bottom <= window.innerHeight, NoticeIn: n.closest("#privacy") !== null, Top: window.scrollY};
	})()`)
	if !at.Open || !at.InView || !at.NoticeIn || at.Top == 0 {
		t.Errorf("after saving in the built-in rules: %+v; want them open, the notice in view beside them, the page scrolled to them", at)
	}
	for _, r := range getSettings(t, srv).Privacy.RedactionRules {
		if r.Name == "jwt" && r.Enabled {
			t.Error("jwt still on after switching it off")
		}
	}
	shot(t, b, "settings-saved-at-builtins.png")

	// A change in another section comes back there, the list folded.
	b.do(t, chromedp.Navigate(srv.URL+"/settings"), chromedp.WaitVisible(chromedp.ID("settings-form")),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("f-injection-maxInjectTokens").scrollIntoView({block: "center"})`),
		chromedp.SetValue(chromedp.ID("f-injection-maxInjectTokens"), "1500"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("f-injection-maxInjectTokens").dispatchEvent(new Event("change", {bubbles: true}))`),
		chromedp.Click(chromedp.ID("settings-save")),
		chromedp.WaitVisible(chromedp.ID("settings-notice")),
	)
	b.waitFor(t, "the page back at context injection", `location.hash === "#settings-notice" && !!document.querySelector("#injection #settings-notice")`, 30*time.Second)
	if eval[bool](t, b, `document.getElementById("builtin-rules").open`) {
		t.Error("the built-in rules unfolded after a save made with them folded")
	}
	if got := getSettings(t, srv).Injection.MaxInjectTokens; got != 1500 {
		t.Errorf("maxInjectTokens = %d after saving 1500", got)
	}
}
