//go:build unix

package soak

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkColdStart measures `mneme serve` from spawn to the first 200 on
// /api/health, with a fresh data directory (schema created) and with an
// existing one (migrations already applied): ms-to-healthy, the mean.
//
// base-ms is the same measurement, interleaved with it, of the smallest Go
// HTTP server (bench/minserver) built in the same run: process start, the
// Go runtime, a listening socket and the same polling. The difference is
// mneme's own start: opening the database, migrations, the app.
func BenchmarkColdStart(b *testing.B) {
	for _, bc := range []struct {
		name  string
		fresh bool
	}{{"fresh", true}, {"existing", false}} {
		b.Run(bc.name, func(b *testing.B) {
			minserver := buildMinServer(b)
			dir := b.TempDir()
			var total, base time.Duration
			for i := 0; i < b.N; i++ {
				if bc.fresh {
					dir = b.TempDir()
				}
				p, err := NewProc(bin, dir)
				if err != nil {
					b.Fatal(err)
				}
				took, err := p.Start(30 * time.Second)
				if err != nil {
					b.Fatal(err)
				}
				total += took
				p.Stop()
				base += minServerStart(b, minserver)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-healthy")
			b.ReportMetric(float64(base.Microseconds())/1000/float64(b.N), "base-ms")
		})
	}
}

// buildMinServer builds bench/minserver into a temp dir of b.
func buildMinServer(b *testing.B) string {
	b.Helper()
	out := filepath.Join(b.TempDir(), "minserver")
	cmd := exec.Command("go", "build", "-o", out, "./bench/minserver")
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build minserver: %v\n%s", err, msg)
	}
	return out
}

// minServerStart runs minserver and returns its spawn to first 200 on
// /api/health, polled as Proc.Start polls the worker; then kills it.
func minServerStart(b *testing.B, minserver string) time.Duration {
	b.Helper()
	port, err := FreePort()
	if err != nil {
		b.Fatal(err)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/api/health"
	client := &http.Client{Timeout: 200 * time.Millisecond}
	begin := time.Now()
	cmd := exec.Command(minserver, strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for deadline := begin.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		resp, err := client.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(begin)
			}
		}
	}
	b.Fatal("minserver not healthy after 30s")
	return 0
}
