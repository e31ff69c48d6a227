package soak

import (
	"testing"
	"time"
)

// BenchmarkColdStart measures `mneme serve` from spawn to the first 200 on
// /api/health, with a fresh data directory (schema created) and with an
// existing one (migrations already applied).
func BenchmarkColdStart(b *testing.B) {
	for _, bc := range []struct {
		name  string
		fresh bool
	}{{"fresh", true}, {"existing", false}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			var total time.Duration
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
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-healthy")
		})
	}
}
