package privacy

import "testing"

// BenchmarkRedactShortFields redacts the short fields of a tool event (a
// command, a description, a path, an id, a one-line output, the tool's
// input as JSON), where the literal prefilter, not the rules, is most of
// the cost.
func BenchmarkRedactShortFields(b *testing.B) {
	r := Builtins()
	fields := []string{"go build ./... && echo built 12345", "build", "/home/dev/projects/notes-app",
		"toolu_ingest-1764361234-7_12345", "built 12345", "Bash", "p1", "default",
		`{"command":"go build ./... && echo built 12345","description":"build"}`,
		`{"stdout":"built 12345","stderr":"","interrupted":false,"isImage":false}`}
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range fields {
			if r.Redact(f) != f {
				b.Fatal("redacted")
			}
		}
	}
}
