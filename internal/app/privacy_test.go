package app_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// The worker hands its redaction rules to the hook, which has no
// database, in <data>/redaction.json: at start, and again when the
// settings change. The hook and the worker share the key of cleaned ids.
func TestWorkerHandsRulesToHook(t *testing.T) {
	srv := testutil.NewServer(t)
	path := filepath.Join(srv.DataDir, privacy.RulesFile)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no rules file at start: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("rules file mode %v", info.Mode().Perm())
	}
	rules, err := privacy.LoadRules(path)
	if err != nil || len(rules) != len(privacy.BuiltinRules()) {
		t.Fatalf("%d rules, %v", len(rules), err)
	}

	body := `{"privacy":{"redactionRules":[{"name":"ticket","pattern":"TICKET-\\d+","enabled":true},{"name":"jwt","builtin":true,"enabled":false}]}}`
	if st, b := srv.Do(t, http.MethodPut, "/api/settings", body, nil); st != 200 {
		t.Fatalf("PUT settings: %d %s", st, b)
	}
	rules, err = privacy.LoadRules(path)
	if err != nil {
		t.Fatal(err)
	}
	r := privacy.New(rules)
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ6eDl5dzgifQ.Zx9yW8vU7tS6rQ5pO4nM3lK2"
	if got := r.Redact("TICKET-7 " + jwt + " AKIAZ7QWERTYUIOP1234"); got != "[REDACTED:ticket] "+jwt+" [REDACTED:aws_access_key]" {
		t.Errorf("the hook's rules after the change: %q", got)
	}

	key, err := privacy.LoadIDKey(srv.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	hook := r.WithIDKey(func() []byte { return key })
	srv.Hook(t, "session-start", map[string]any{"session_id": "s-AKIAZ7QWERTYUIOP1234", "source": "startup", "cwd": "/x"})
	var stored string
	modelstest.Scan(t, srv.Store, &stored, `SELECT claude_session_id FROM sessions`)
	if want := hook.CleanID("s-AKIAZ7QWERTYUIOP1234"); stored != want {
		t.Errorf("the worker stored %q, the hook would send %q", stored, want)
	}
}

// The worker's log goes through the privacy pipeline: messages, string
// values, errors, groups.
func TestWorkerLogIsCleaned(t *testing.T) {
	var buf bytes.Buffer
	w, err := app.New(context.Background(), app.Options{DataDir: t.TempDir(), Secret: "test-secret-for-the-log-test", Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Shutdown(time.Second)
	log := w.Handler.Log // what the handlers, the error handler and the queues log to
	log.Warn("failed for AKIAZ7QWERTYUIOP1234", "path", "/sessions/ghp_Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA/init",
		"err", errors.New("token=Zx9yW8vU7tS6rQ5pO4nM3lK2 refused: password=hunter2hunter"), slog.Group("g", "k", "AKIAZ7QWERTYUIOP1234"))
	log.With("who", "AKIAZ7QWERTYUIOP1234").Info("x")
	out := buf.String()
	for _, secret := range []string{"QWERTYUIOP1234", "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA", "hunter2hunter"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s logged: %s", secret, out)
		}
	}
	if !strings.Contains(out, "[REDACTED:aws_access_key]") {
		t.Errorf("log: %s", out)
	}
}
