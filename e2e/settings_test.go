//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath returns the Chromium binary, or skips the test when there is
// none (CI installs it with .ci/run).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short (make test-quick): no browser")
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (apt-get install chromium): the settings page cannot be driven")
	return ""
}

// NewBrowser starts headless Chromium with a fresh profile for the test and
// returns a tab context. The browser is closed when the test ends.
func NewBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	// Start the browser with a context that has no deadline: the first run
	// binds the browser's life to its context.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// maxInjectTokensField is the settings form's input for
// injection.maxInjectTokens (views/settings.templ).
const maxInjectTokensField = `form#settings-form input[name="injection.maxInjectTokens"]`

// setMaxInjectTokensInBrowser opens the settings page, types n into the
// max_inject_tokens field and clicks "Save settings", the way a user does,
// then checks the page came back saying so with n in the field.
func setMaxInjectTokensInBrowser(t *testing.T, m *Mneme, n int) {
	t.Helper()
	tab := NewBrowser(t)
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	field := chromedp.CSS(maxInjectTokensField)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(m.LoginURL(t)),
		chromedp.Navigate(m.URL+"/settings"),
		chromedp.WaitVisible(field),
	); err != nil {
		t.Fatalf("open /settings: %v", err)
	}
	before, err := chromedp.Run(ctx, chromedp.Value(field))
	if err != nil {
		t.Fatalf("read max_inject_tokens: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Clear(field),
		chromedp.SendKeys(field, strconv.Itoa(n)),
		chromedp.Click(chromedp.ID("settings-save")),
		// The form posts, the server redirects to /settings?saved=1.
		chromedp.WaitVisible(chromedp.ID("settings-notice")),
	); err != nil {
		html, _ := chromedp.Run(tab, chromedp.OuterHTML(chromedp.CSS("main")))
		t.Fatalf("save max_inject_tokens on /settings: %v\npage:\n%s", err, html)
	}
	notice, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("settings-notice")))
	got, err := chromedp.Run(ctx, chromedp.Value(field))
	if err != nil {
		t.Fatalf("read max_inject_tokens back: %v", err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	t.Logf("settings page: max_inject_tokens %s → %s, notice %q at %s", before, got, notice, loc)
	if got != strconv.Itoa(n) {
		t.Fatalf("after saving, the field shows %q, want %d", got, n)
	}
}

// injectionSettings reads injection.maxInjectTokens from GET /api/settings.
func injectionSettings(t *testing.T, m *Mneme) int {
	t.Helper()
	var st struct {
		Injection struct {
			MaxInjectTokens int `json:"maxInjectTokens"`
		} `json:"injection"`
	}
	m.GetJSON(t, "/api/settings", &st)
	return st.Injection.MaxInjectTokens
}

// TestClaudeCodeSettingsShrinkContext shows that max_inject_tokens, changed
// on the settings page in a real browser, applies at once to the context
// the next Claude Code session gets.
func TestClaudeCodeSettingsShrinkContext(t *testing.T) {
	ClaudeBin(t)
	chromiumPath(t)
	m := NewMneme(t)
	m.Serve(t)
	req, _ := http.NewRequest(http.MethodGet, m.URL+"/settings", nil)
	m.authorize(t, req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /settings: %s", resp.Status)
	}

	project := NewProject(t, "mneme-e2e-budget")
	runSession1(t, m, project)
	block2 := runContextSession(t, m, project, "Where were we?").Block
	if block2 == "" {
		t.Fatalf("session 2 got no <mneme-context>")
	}
	checkContextBudget(t, block2, 2000)
	t.Logf("session 2 context block with the default budget (%d bytes):\n%s", len(block2), block2)

	const small = 200
	live := m.CaptureStream(t, 0, "settings_changed")
	setMaxInjectTokensInBrowser(t, m, small)
	select {
	case <-live.Seen():
	case <-time.After(30 * time.Second):
		t.Errorf("no settings_changed event on /stream after saving the settings page")
	}
	live.Close()
	if got := injectionSettings(t, m); got != small {
		t.Fatalf("GET /api/settings: maxInjectTokens %d after saving %d on the page", got, small)
	}

	block3 := runContextSession(t, m, project, "And now?").Block
	t.Logf("session 3 context block with max_inject_tokens %d (%d bytes):\n%s", small, len(block3), block3)
	if block3 == "" {
		t.Fatalf("session 3 got no <mneme-context>: a small budget should still carry something")
	}
	checkContextBudget(t, block3, small)
	if len(block3) >= len(block2) {
		t.Errorf("session 3 block is %d bytes, not smaller than session 2's %d", len(block3), len(block2))
	}
	assertNoSecrets(t, "session 3's context", block3)
	if dir := os.Getenv(DumpEnv); dir != "" {
		b, _ := json.Marshal(map[string]string{"session2": block2, "session3": block3})
		_ = os.WriteFile(filepath.Join(dir, "context-blocks.json"), b, 0o644)
	}
}
