//go:build unix

package eval

import (
	"fmt"
	"strings"
	"time"
)

// Observation is the part of GET /api/observations the baseline reads.
type Observation struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
}

// Baseline renders what a "last N observations" memory injects, as
// claude-mem does: the project's most recent observations, newest first,
// one title a line, as many whole lines as fit in budget bytes. obs must be
// newest first.
func Baseline(project string, obs []Observation, budget int) string {
	const open, closing = "<recent-observations>", "</recent-observations>"
	head := open + "\n# Recent activity of " + project + "\n"
	var b strings.Builder
	b.WriteString(head)
	left := budget - len(head) - len(closing)
	for _, o := range obs {
		line := fmt.Sprintf("- #%d %s %s\n", o.ID, o.CreatedAt.UTC().Format("2006-01-02 15:04"), o.Title)
		if len(line) > left {
			break
		}
		b.WriteString(line)
		left -= len(line)
	}
	b.WriteString(closing)
	return b.String()
}
