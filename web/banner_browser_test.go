package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// bannerText is the status banner's text, "" when there is none.
const bannerText = `(function(){var b=document.querySelector("#status-banner .banner"); return b ? b.getAttribute("data-kind") + ": " + b.textContent : "";})()`

// makeReadOnly makes dir unwritable the real way: the immutable attribute
// as root (chmod does not stop root), chmod otherwise. It returns the undo.
func makeReadOnly(t *testing.T, dir string) func() {
	t.Helper()
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			t.Skipf("running as root and chattr +i is unavailable here: %v: %s", err, out)
		}
		undo := func() { exec.Command("chattr", "-i", dir).Run() }
		t.Cleanup(undo)
		return undo
	}
	os.Chmod(dir, 0o500)
	undo := func() { os.Chmod(dir, 0o700) }
	t.Cleanup(undo)
	return undo
}

// TestBrowserStatusBanner: with a page open, the data directory becomes
// read-only; the worker's own check finds it and the banner appears on the
// open page without a reload, saying what is wrong and where new events
// wait. It goes away once the directory is writable again; a worker that
// stops answering gets a banner of its own, gone when it is back. The data
// directory's name carries markup, which must stay text.
func TestBrowserStatusBanner(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dataDir := filepath.Join(t.TempDir(), `data <img src=x onerror=alert(1)>`)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if free, ok := app.FreeBytes(dataDir); ok && free < app.MinFreeBytes {
		t.Skip("the disk is almost full here: the banner would show from the start")
	}
	srv := testutil.NewServerIn(t, dataDir)
	srv.SeedFixture(t)
	os.MkdirAll(srv.Spool.Dir, 0o700) // as `mneme serve` does at start
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Watch(ctx, 100*time.Millisecond) // what `mneme serve` runs every 5 s

	b := newBrowser(t, 1280, 800)
	// The page polls /api/health every 5 s; here every 250 ms, so each
	// change below shows within a second instead of up to 5 s (10 s for
	// the two misses that say the worker is offline).
	if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `window.mnemeHealthEvery = 250`}); err != nil {
		t.Fatal(err)
	}
	b.login(t, srv)
	b.do(t, chromedp.Navigate(srv.URL+"/sessions"), chromedp.WaitVisible(chromedp.CSS(".sessions-table")))
	if got := eval[string](t, b, bannerText); got != "" {
		t.Fatalf("a banner while all is well: %q", got)
	}

	undo := makeReadOnly(t, dataDir)
	b.waitFor(t, "the read-only banner", bannerText+`.includes("is not writable")`, 15*time.Second)
	got := eval[string](t, b, bannerText)
	t.Logf("banner: %s", got)
	for _, want := range []string{"problem: Storage problem: The data directory " + dataDir + " is not writable", "are spooled to " + filepath.Join(dataDir, "spool")} {
		if !strings.Contains(got, want) {
			t.Errorf("banner %q does not say %q", got, want)
		}
	}
	if n := eval[int](t, b, `document.querySelectorAll("#status-banner img").length`); n != 0 || b.dialogs.Load() != 0 {
		t.Fatalf("the data directory's name became markup: %d img, %d dialogs", n, b.dialogs.Load())
	}
	if role := eval[string](t, b, `document.getElementById("status-banner").getAttribute("role")`); role != "alert" {
		t.Errorf("banner box role %q, want alert (announced by screen readers)", role)
	}
	for _, theme := range []string{"light", "dark"} {
		b.do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.documentElement.setAttribute("data-theme", %q)`, theme)), chromedp.Sleep(200*time.Millisecond))
		shot(t, b, "banner-"+theme+".png")
	}
	b.do(t, chromedp.EmulateViewport(420, 860), chromedp.Sleep(200*time.Millisecond))
	shot(t, b, "banner-narrow-dark.png")
	b.do(t, chromedp.EmulateViewport(1280, 800))
	// A page opened now has the banner from the server already.
	b.do(t, chromedp.Navigate(srv.URL+"/stats"), chromedp.WaitVisible(chromedp.CSS("#status-banner .banner")))

	undo()
	b.waitFor(t, "the banner to go", bannerText+` === ""`, 15*time.Second)

	port, addr := srv.Port, srv.DataDir
	cancel()
	srv.Shutdown(5 * time.Second)
	b.waitFor(t, "the worker-offline banner", bannerText+`.startsWith("offline: The mneme worker is not answering.")`, 20*time.Second)
	shot(t, b, "banner-offline.png")
	testutil.NewServerAt(t, addr, port)
	b.waitFor(t, "the banner to go after the restart", bannerText+` === ""`, 15*time.Second)
}
