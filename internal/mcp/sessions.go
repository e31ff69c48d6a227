package mcp

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

const recentDescription = `The latest Claude Code sessions of a project, newest first, each with its dates, counts (prompts, tool calls, failures) and its summary: what was asked, what got done, what is next.
project defaults to the project Claude Code runs in; limit is 1 to 20 sessions (default 5); the answer stays within maxTokens (≈4 bytes per token, default 1000).
Next: timeline session=s<N> to walk through a session, search to find something specific.`

// RecentSessionsInput is the recent_sessions tool's arguments.
type RecentSessionsInput struct {
	Project   string `json:"project,omitempty" jsonschema:"the project (a repository's directory name); default: the one Claude Code runs in"`
	Limit     int    `json:"limit,omitempty" jsonschema:"sessions to show, 1 to 20 (default 5)"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"size limit of the answer in tokens (≈4 bytes each), 200 to 25000, default 1000"`
}

func (s *Server) recentSessions(ctx context.Context, in RecentSessionsInput) (string, error) {
	maxTokens, err := readTokens(in.MaxTokens)
	if err != nil {
		return "", err
	}
	if in.Limit < 0 || in.Limit > 20 {
		return "", fmt.Errorf("limit must be from 1 to 20, or left out for 5")
	}
	limit := in.Limit
	if limit == 0 {
		limit = 5
	}
	project := in.Project
	if project == "" {
		project = s.opts.Project
	}
	sessions, err := s.sessionsOf(ctx, project, limit)
	if err != nil {
		return "", err
	}
	w := newBudget(maxTokens)
	if len(sessions.Items) == 0 {
		if in.Project != "" || project == "" {
			return fmt.Sprintf("No sessions recorded for project %q.", project), nil
		}
		// Nothing for the directory Claude Code runs in: say so, and show
		// the latest of all projects instead.
		w.must(fmt.Sprintf("No sessions recorded for project %q (this directory); the latest of all projects:", project))
		if sessions, err = s.sessionsOf(ctx, "", limit); err != nil {
			return "", err
		}
		if len(sessions.Items) == 0 {
			return "mneme has recorded no sessions yet.", nil
		}
	} else if project != "" {
		w.must(fmt.Sprintf("Latest sessions of %s, newest first:", project))
	} else {
		w.must("Latest sessions, newest first:")
	}
	footer := func(shown int) string {
		more := ""
		if shown < len(sessions.Items) {
			more = fmt.Sprintf("… %d more session(s) over maxTokens=%d.\n", len(sessions.Items)-shown, maxTokens)
		} else if sessions.HasMore {
			more = fmt.Sprintf("… older sessions exist: raise limit (now %d, at most 20).\n", limit)
		}
		return more + "Next: timeline session=s<N> to walk through one; search to find something specific."
	}
	reserve := len(footer(0)) + 8
	// A session's summary is fetched only when its row is written.
	shown, err := w.rows(len(sessions.Items), reserve, func(i int) (string, error) {
		sum, err := s.latestSummary(ctx, sessions.Items[i].ID)
		return sessionRows(sessions.Items[i], sum), err
	})
	if err != nil {
		return "", err
	}
	w.must(footer(shown))
	return w.String(), nil
}

func (s *Server) sessionsOf(ctx context.Context, project string, limit int) (api.Page[models.SessionStats], error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if project != "" {
		q.Set("project", project)
	}
	var page api.Page[models.SessionStats]
	err := s.get(ctx, "/api/sessions?"+q.Encode(), &page)
	return page, err
}

// latestSummary is the summary that says most about a session: its final
// one, else its latest; nil when it has none.
func (s *Server) latestSummary(ctx context.Context, sessionID int64) (*models.Summary, error) {
	var page api.Page[models.Summary]
	if err := s.get(ctx, "/api/summaries?limit=5&session="+strconv.FormatInt(sessionID, 10), &page); err != nil {
		return nil, err
	}
	for i := range page.Items {
		if page.Items[i].Kind == models.SummaryFinal {
			return &page.Items[i], nil
		}
	}
	if len(page.Items) > 0 {
		return &page.Items[0], nil
	}
	return nil, nil
}

// sessionRows is a session's head line and its summary line.
func sessionRows(sess models.SessionStats, sum *models.Summary) string {
	when := stamp(sess.StartedAt)
	if sess.EndedAt != nil {
		when += "–" + sess.EndedAt.Local().Format("15:04")
		if day(*sess.EndedAt) != day(sess.StartedAt) {
			when = stamp(sess.StartedAt) + " – " + stamp(*sess.EndedAt)
		}
	}
	title := ""
	if sess.Title != "" {
		title = "  " + strconv.Quote(oneLine(sess.Title, 120))
	}
	head := fmt.Sprintf("session %s%s  %s  %s · %s · %d prompt(s), %d tool call(s), %d failed%s", ref.Sess(sess.ID), title, when, sess.Project, sess.Status, sess.Prompts, sess.ToolCalls, sess.Failures, branch(sess.GitBranch))
	switch {
	case sum != nil:
		return head + "\n  " + oneLine(summaryLine(sum), 400)
	case sess.LastAssistantMessage != "":
		return head + "\n  last answer: " + oneLine(sess.LastAssistantMessage, 300)
	}
	return head + "\n  (no summary yet)"
}
