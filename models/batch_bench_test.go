package models

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkWriterQueue is the store's share of durable ingest: 16
// goroutines each commit one observation (and its event) at a time through
// the group-commit writer, as 16 ingest requests do, without HTTP.
func BenchmarkWriterQueue(b *testing.B) {
	s := openTestStore(b)
	var sess int64
	if err := s.Writer.Do(context.Background(), func(tx *Tx) error {
		ref, err := tx.EnsureSession(&Session{ClaudeSessionID: "bench", Project: "notes-app"})
		sess = ref.ID
		return err
	}); err != nil {
		b.Fatal(err)
	}
	const clients = 16
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				tu := fmt.Sprintf("toolu_%d", i)
				err := s.Writer.Do(context.Background(), func(tx *Tx) error {
					o := Observation{SessionID: sess, Project: "notes-app", PromptNumber: 1, ToolUseID: &tu, ToolName: "Bash",
						Kind: "command", Title: fmt.Sprintf("go build ./... && echo built %d", i),
						Input:  fmt.Sprintf(`{"command":"go build ./... && echo built %d","description":"build"}`, i),
						Output: fmt.Sprintf("built %d", i), Success: true, Importance: 0.5, DurationMS: 27}
					return tx.QueueObservation(&o, func(o *Observation) any {
						return map[string]any{"id": o.ID, "title": o.Title, "project": o.Project}
					})
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "obs/s")
	st := s.Writer.Stats()
	b.ReportMetric(float64(st.Ops)/float64(st.Batches), "ops/commit")
}
