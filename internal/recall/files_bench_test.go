package recall_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models/modelstest"
)

// BenchmarkFileGateHook100k is the Read gate (PreToolUse) end to end over
// HTTP on the 100k-observation database: the session lookup, the file's
// memories through file_states, the summaries naming it, the staleness
// check and the answer. Each call is a new session, so the once-per-file
// rule never short-cuts it. Half the files exist on disk with the same
// size and another mtime than recorded (the checker hashes them), half
// are gone (one failed stat).
//
// base-p50-ms and base-p99-ms are the same round trip for a file with no
// memory at all.
func BenchmarkFileGateHook100k(b *testing.B) {
	srv := benchServer(b)
	// The seeded observations predate file states: record one for each
	// file an Edit touched, as ingest would have.
	modelstest.Exec(b, srv.Store, `INSERT OR IGNORE INTO file_states (session_id, tool_use_id, path, kind, sha256, size, mtime_ns)
		SELECT o.session_id, o.tool_use_id, f.value, 'sha256', 'x', 13, 1 FROM observations o, json_each(o.files) f
		WHERE o.tool_use_id IS NOT NULL`)
	var paths []string
	modelstest.Scan(b, srv.Store, &paths, `SELECT path FROM file_states WHERE path LIKE '/home/dev/proj1/%' GROUP BY path ORDER BY count(*) DESC LIMIT 200`)
	if len(paths) == 0 {
		b.Fatal("no seeded paths")
	}
	// Every other file exists now, in a temp dir, with its rows pointed there.
	dir := b.TempDir()
	for i := 0; i < len(paths); i += 2 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		os.WriteFile(p, []byte("package main\n"), 0o600) // 13 bytes, as recorded
		modelstest.Exec(b, srv.Store, `UPDATE file_states SET path = ? WHERE path = ?`, p, paths[i])
		paths[i] = p
	}
	gate := func(session, path string) (time.Duration, string) {
		t0 := time.Now()
		body := srv.Hook(b, "pre-tool-use", map[string]any{"session_id": session, "cwd": "/home/dev/proj1", "hook_event_name": "PreToolUse",
			"project": "proj1", "tool_name": "Read", "tool_input": map[string]any{"file_path": path}})
		return time.Since(t0), additional(b, body)
	}
	lat := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	answered, stale := 0, 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		session := fmt.Sprintf("bench-gate-%d-%d-%d", runID, b.N, i)
		if i%2 == 1 {
			d, _ := gate(session, "/home/dev/proj1/no/such/file.go")
			base = append(base, d)
		}
		d, ctx := gate(session, paths[i%len(paths)])
		lat = append(lat, d)
		if ctx != "" {
			answered++
		}
		if strings.Contains(ctx, "gone since") || strings.Contains(ctx, "changed since") {
			stale++
		}
		if i%2 == 0 {
			d, _ := gate(session, "/home/dev/proj1/no/such/file.go")
			base = append(base, d)
		}
	}
	b.StopTimer()
	reportLatency(b, lat)
	reportBaseLatency(b, base)
	b.ReportMetric(float64(answered)/float64(b.N), "answered/op")
	b.ReportMetric(float64(stale)/float64(b.N), "stale/op")
}
