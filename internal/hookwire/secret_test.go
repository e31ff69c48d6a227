package hookwire_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// TestPrepareDataDirTightens: a new data directory is 0700, and an existing
// one of ours that is open to others is closed.
func TestPrepareDataDirTightens(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "a", "data")
	if err := hookwire.PrepareDataDir(fresh); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(t.TempDir(), "loose")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := hookwire.PrepareDataDir(loose); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{fresh, loose} {
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm != 0o700 {
			t.Errorf("%s: mode %04o, want 0700", dir, perm)
		}
	}
}

// TestSecretFileConcurrentStarts: workers starting at once agree on one
// secret, written 0600.
func TestSecretFileConcurrentStarts(t *testing.T) {
	t.Setenv(hookwire.EnvToken, "")
	dir := t.TempDir()
	const n = 8
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = hookwire.Secret(dir)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Fatalf("start %d read secret %q, start 0 %q", i, got[i], got[0])
		}
	}
	if len(got[0]) != 43 {
		t.Errorf("secret %q: want 43 base64url characters (32 bytes)", got[0])
	}
	info, err := os.Stat(filepath.Join(dir, hookwire.SecretFile))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("secret file mode %04o, want 0600", perm)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".secret-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestSecretFileRefused: a secret file open to others or a symbolic link is
// refused, not used.
func TestSecretFileRefused(t *testing.T) {
	t.Setenv(hookwire.EnvToken, "")
	open := t.TempDir()
	path := filepath.Join(open, hookwire.SecretFile)
	if err := os.WriteFile(path, []byte("0123456789abcdefghijklmnopqrstuvwxyz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644)
	if _, err := hookwire.Secret(open); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Errorf("secret file mode 0644: err %v, want a refusal", err)
	}
	link := t.TempDir()
	if err := os.Symlink(path, filepath.Join(link, hookwire.SecretFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := hookwire.Secret(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("secret file a symlink: err %v, want a refusal", err)
	}
}

// TestSecretFromEnv: MNEME_TOKEN is the secret when set, and no file is made.
func TestSecretFromEnv(t *testing.T) {
	t.Setenv(hookwire.EnvToken, "remote-token-0123456789")
	dir := t.TempDir()
	s, err := hookwire.Secret(dir)
	if err != nil || s != "remote-token-0123456789" {
		t.Fatalf("Secret = %q, %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(dir, hookwire.SecretFile)); !os.IsNotExist(err) {
		t.Errorf("a secret file was made although MNEME_TOKEN is set: %v", err)
	}
}

// TestSocketPathFallback: a data directory too deep for sun_path gets a
// deterministic socket in a per-user temp directory; a short one its own.
func TestSocketPathFallback(t *testing.T) {
	short := t.TempDir()
	if got := hookwire.SocketPath(short); got != filepath.Join(short, hookwire.SocketFile) {
		t.Errorf("SocketPath(%s) = %s", short, got)
	}
	long := filepath.Join(short, strings.Repeat("d", 120))
	got := hookwire.SocketPath(long)
	if len(got) > 107 || !strings.HasPrefix(got, filepath.Join(os.TempDir(), "mneme-")) {
		t.Fatalf("SocketPath(long) = %s", got)
	}
	if again := hookwire.SocketPath(long); again != got {
		t.Errorf("SocketPath not deterministic: %s then %s", got, again)
	}
	if other := hookwire.SocketPath(long + "x"); other == got {
		t.Errorf("two data directories share socket %s", got)
	}
}
