package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// The file gate's knobs, and the failure hint's budget, are on the settings page: a value out of range is
// refused next to its field, valid ones are saved and apply at once.
func TestFileRecallFromTheForm(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	c, tok := browserish(t, srv)
	for field, bad := range map[string]string{"injection.fileRecallCount": "42", "injection.fileRecallTokens": "5000", "injection.failureHintTokens": "1001"} {
		form := settingsForm(tok, srv.Capture.Policy().Settings)
		form.Set(field, bad)
		status, _, body := postForm(t, c, srv, "/settings", form)
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, `id="f-`+strings.ReplaceAll(field, ".", "-")+`-err"`) {
			t.Errorf("%s = %s: status %d", field, bad, status)
		}
	}
	form := settingsForm(tok, srv.Capture.Policy().Settings)
	form.Del("injection.fileRecallEnabled")
	form.Set("injection.fileRecallCount", "5")
	form.Set("injection.fileRecallTokens", "300")
	form.Set("injection.failureHintTokens", "120")
	if status, loc, _ := postForm(t, c, srv, "/settings", form); status != http.StatusSeeOther || loc != "/settings?saved=1" {
		t.Fatalf("save: %d %s", status, loc)
	}
	inj := srv.Capture.Policy().Settings.Injection
	if inj.FileRecallEnabled || inj.FileRecallCount != 5 || inj.FileRecallTokens != 300 || inj.FailureHintTokens != 120 {
		t.Errorf("applied: %+v", inj)
	}
}
