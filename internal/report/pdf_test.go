package report_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mneme-dev/mneme/internal/testutil"
)

func chromium() string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// TestHTMLReportPrintsToPDF opens the downloaded HTML report from disk in
// headless Chromium (as a colleague would), checks that it made no
// request, and prints it to PDF with Page.printToPDF. With
// MNEME_REPORT_DIR set, the PDF is kept there (pdftoppm turns it into PNGs
// to look at).
func TestHTMLReportPrintsToPDF(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make test-quick): no browser")
	}
	path := chromium()
	if path == "" {
		t.Skip("chromium not found (install Debian's chromium or set $CHROMIUM): PDF test skipped")
	}
	srv := testutil.NewServer(t)
	recordSession(t, srv, "pdf-session-1")
	resp, body := fetch(t, srv, "/api/sessions/pdf-session-1/export?format=html")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	out := os.Getenv("MNEME_REPORT_DIR")
	if out == "" {
		out = t.TempDir()
	}
	file := filepath.Join(out, "report.html")
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), chromedp.WaitVisible(chromedp.CSS("footer"))); err != nil {
		t.Fatal(err)
	}
	requests, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType("resource").length`))
	if err != nil || requests != 0 {
		t.Errorf("the report made %d requests (%v)", requests, err)
	}
	sections, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.major").length`))
	if err != nil || sections != 3 {
		t.Errorf("%d major sections (%v)", sections, err)
	}
	yes := true
	res, err := chromedp.Call(ctx, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: &yes, PreferCSSPageSize: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(res.Data), "%PDF-") {
		t.Fatalf("not a PDF: %q", res.Data[:min(20, len(res.Data))])
	}
	pdf := filepath.Join(out, "report.pdf")
	if err := os.WriteFile(pdf, res.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Page breaks between sections: summary, timeline, failures, files
	// and tests each start a page, so at least 3 pages.
	if info, err := exec.Command("pdfinfo", pdf).Output(); err == nil {
		t.Logf("pdfinfo:\n%s", info)
		if !strings.Contains(string(info), "Pages:") || strings.Contains(string(info), "Pages:           1\n") {
			t.Errorf("expected several pages")
		}
	}
	t.Logf("PDF %d bytes at %s", len(res.Data), pdf)
}
