// Package recall builds the context mneme gives Claude Code: the block
// injected at SessionStart and the related-memory hints on UserPromptSubmit.
package recall

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/models"
)

// Builder builds context from the store with the settings in force.
type Builder struct {
	Store    *models.Store
	Settings func() models.Settings
}

// EstimateTokens estimates the tokens of s at about four characters each.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// block collects whole lines under a budget: a line that does not fit is
// left out whole, never cut.
type block struct {
	lines    []string
	used     int
	maxBytes int
}

func (b *block) add(line string) bool {
	if b.used+len(line)+1 > b.maxBytes {
		return false
	}
	b.lines = append(b.lines, line)
	b.used += len(line) + 1
	return true
}

// SessionContext builds the <mneme-context> block for a starting session.
func (b *Builder) SessionContext(ctx context.Context, req capture.ContextRequest) (string, error) {
	st := b.Settings().Injection
	for _, p := range st.DisabledProjects {
		if p == req.Project {
			return "", nil
		}
	}
	maxBytes := st.MaxInjectTokens * 4
	if maxBytes > models.MaxInjectBytes {
		maxBytes = models.MaxInjectBytes
	}
	const open, closeTag = "<mneme-context>\n", "\n</mneme-context>"
	footer := "Details: run `mneme search <words>` or open http://localhost:37777 (ids above are observation ids)."
	body := &block{maxBytes: maxBytes - len(open) - len(closeTag) - len(footer) - 1}
	if body.maxBytes <= 0 {
		return "", nil
	}
	header := fmt.Sprintf("# mneme: memory of project %s", req.Project)
	body.add(header)
	n := len(body.lines)

	db := b.Store.DB.WithContext(ctx)
	if st.Sessions > 0 {
		var sessions []models.Session
		if err := db.Where("project = ? AND id != ?", req.Project, req.SessionID).
			Order("started_at DESC").Limit(st.Sessions).Find(&sessions).Error; err != nil {
			return "", err
		}
		if len(sessions) > 0 {
			body.add("\n## Recent sessions")
		}
		for _, s := range sessions {
			line := "- " + s.StartedAt.Format("2006-01-02 15:04") + ": "
			var first models.Prompt
			if err := db.Where("session_id = ?", s.ID).Order("number").First(&first).Error; err == nil {
				line += "asked \"" + oneLine(first.Text, 160) + "\""
			}
			if s.LastAssistantMessage != "" {
				line += "; ended with \"" + oneLine(s.LastAssistantMessage, 200) + "\""
			}
			body.add(line)
		}
	}
	if st.Observations > 0 {
		var obs []models.Observation
		if err := db.Where("project = ? AND session_id != ? AND excluded_by = ''", req.Project, req.SessionID).
			Order("created_at DESC").Limit(st.Observations).Find(&obs).Error; err != nil {
			return "", err
		}
		sortByImportance(obs)
		if len(obs) > 0 {
			body.add("\n## Notable recent activity")
		}
		for _, o := range obs {
			status := ""
			if !o.Success {
				status = " [FAILED]"
			}
			body.add(fmt.Sprintf("- #%d %s%s (%s)", o.ID, oneLine(o.Title, 200), status, o.CreatedAt.Format(time.DateOnly)))
		}
	}
	if len(body.lines) == n {
		return "", nil // nothing known about this project yet
	}
	return open + strings.Join(body.lines, "\n") + "\n" + footer + closeTag, nil
}

// RelatedMemory is filled in by the related-memory search.
func (b *Builder) RelatedMemory(ctx context.Context, project string, sessionID int64, prompt string) (string, error) {
	return "", nil
}

func sortByImportance(obs []models.Observation) {
	// Stable insertion sort: few items, keeps recency order within a score.
	for i := 1; i < len(obs); i++ {
		for j := i; j > 0 && obs[j].Importance > obs[j-1].Importance; j-- {
			obs[j], obs[j-1] = obs[j-1], obs[j]
		}
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
