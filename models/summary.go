package models

import (
	"context"
	"sort"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Summary kinds.
const (
	SummaryTurn         = "turn"
	SummaryIntermediate = "intermediate"
	SummaryFinal        = "final"
)

// Summary is a structured account of a turn or a session.
type Summary struct {
	ID                   int64     `gorm:"primaryKey" json:"id"`
	SessionID            int64     `json:"sessionId"`
	Project              string    `json:"project"`
	PromptNumber         int       `json:"promptNumber"`
	Kind                 string    `json:"kind"`
	Request              string    `json:"request"`
	Investigated         string    `json:"investigated"`
	Learned              string    `json:"learned"`
	Completed            string    `json:"completed"`
	NextSteps            string    `json:"nextSteps"`
	LastUserMessage      string    `json:"lastUserMessage,omitempty"`
	LastAssistantMessage string    `json:"lastAssistantMessage,omitempty"`
	Generator            string    `json:"generator"`
	Note                 string    `json:"note,omitempty"`
	InputTokens          int64     `json:"inputTokens"`
	OutputTokens         int64     `json:"outputTokens"`
	CostUSD              float64   `gorm:"column:cost_usd" json:"costUsd"`
	CreatedAt            time.Time `json:"createdAt"`
}

// Summaries lists summaries newest first (one more than Limit).
func (s *Store) Summaries(ctx context.Context, f ListFilter) ([]Summary, error) {
	q := s.db.WithContext(ctx).Model(&Summary{})
	if f.Project != "" {
		q = q.Where("project = ?", f.Project)
	}
	if f.SessionID != 0 {
		q = q.Where("session_id = ?", f.SessionID)
	}
	q = f.byPerson(q)
	var out []Summary
	err := q.Order("id DESC").Offset(f.Offset).Limit(limitPlusOne(f.Limit)).Find(&out).Error
	return out, err
}

// SummariesOfSession lists a session's summaries in order.
func (s *Store) SummariesOfSession(ctx context.Context, sessionID int64) ([]Summary, error) {
	var out []Summary
	err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id").Find(&out).Error
	return out, err
}

// Restates reports whether s, a session's final or intermediate summary,
// says nothing its turn summary t does not: each of its fields is empty or
// found in t's (ignoring case and spacing). A session of one turn shows
// one card, not the same account twice (the summary queue does not store
// such a summary; the viewer hides those stored before).
func (s Summary) Restates(t Summary) bool {
	pairs := [][2]string{{s.Request, t.Request}, {s.Investigated, t.Investigated}, {s.Learned, t.Learned},
		{s.Completed, t.Completed}, {s.NextSteps, t.NextSteps}}
	for _, p := range pairs {
		if f := squash(p[0]); f != "" && !strings.Contains(squash(p[1]), f) {
			return false
		}
	}
	return true
}

// squash lower-cases text and collapses its runs of white space.
func squash(text string) string {
	return strings.ToLower(strings.Join(strings.Fields(text), " "))
}

// SingleTurnSummaries maps each of the sessions given that has one prompt
// at most, and exactly one turn summary, to that summary: what a session
// summary of theirs must say more than (Summary.Restates).
func (s *Store) SingleTurnSummaries(ctx context.Context, sessionIDs []int64) (map[int64]Summary, error) {
	out := map[int64]Summary{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	var rows []Summary
	err := s.db.WithContext(ctx).Where("kind = ? AND session_id IN (SELECT id FROM sessions WHERE id IN ? AND prompt_counter <= 1)", SummaryTurn, sessionIDs).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, err
	}
	seen := map[int64]int{}
	for _, r := range rows {
		seen[r.SessionID]++
		out[r.SessionID] = r
	}
	for id, n := range seen {
		if n > 1 {
			delete(out, id)
		}
	}
	return out, nil
}

// InsertSummary stores a summary; sum.ID is set.
// The session's automatic title follows its summaries' requests
// (Session.Title).
func (tx *Tx) InsertSummary(sum *Summary) error {
	sum.ID = 0
	if err := tx.db.Create(sum).Error; err != nil {
		return err
	}
	if sum.Request == "" {
		return nil
	}
	return tx.refreshTitle(sum.SessionID)
}

// SummaryWork is what a summary of a session, or of one of its turns, is
// made from.
type SummaryWork struct {
	Prompts      []Prompt
	Observations []Observation // in id order; input and output cut
	Omitted      int           // observations left out past the limit
}

// LoadSummaryWork reads a session's prompts and observations, or only
// turn's when turn > 0. Each observation's input is cut to 400 bytes and
// its output to outputBytes; past limit observations, the most important
// limit are kept (Omitted says how many were not).
func (s *Store) LoadSummaryWork(ctx context.Context, sessionID int64, turn, outputBytes, limit int) (*SummaryWork, error) {
	return loadSummaryWork(s.db.WithContext(ctx), sessionID, turn, 0, outputBytes, limit)
}

// loadSummaryWork is LoadSummaryWork on db; with upTo > 0 (and turn 0),
// only the prompts and observations of the turns up to upTo.
func loadSummaryWork(db *gorm.DB, sessionID int64, turn, upTo, outputBytes, limit int) (*SummaryWork, error) {
	w := &SummaryWork{}
	pq := db.Where("session_id = ?", sessionID)
	oq := db.Model(&Observation{}).Where("session_id = ?", sessionID)
	switch {
	case turn > 0:
		pq = pq.Where("number = ?", turn)
		oq = oq.Where("prompt_number = ?", turn)
	case upTo > 0:
		pq = pq.Where("number <= ?", upTo)
		oq = oq.Where("prompt_number <= ?", upTo)
	}
	if err := pq.Order("number").Find(&w.Prompts).Error; err != nil {
		return nil, err
	}
	var total int64
	if err := oq.Count(&total).Error; err != nil {
		return nil, err
	}
	cols := `id, session_id, project, prompt_number, tool_use_id, tool_name, kind, title, substr(input, 1, 400) AS input,
		` + sqlPrefix("output", outputBytes) + ` AS output, files, success, importance, duration_ms, excluded_by, command_kind, test_outcome, file_created, created_at`
	q := oq.Select(cols)
	if total > int64(limit) {
		q = q.Order("importance DESC, id DESC").Limit(limit)
		w.Omitted = int(total) - limit
	} else {
		q = q.Order("id")
	}
	if err := q.Find(&w.Observations).Error; err != nil {
		return nil, err
	}
	sort.Slice(w.Observations, func(i, j int) bool { return w.Observations[i].ID < w.Observations[j].ID })
	return w, nil
}

// PreviousTurn is the user's prompt and Claude's answer (as its turn
// summary keeps it) of the newest turn of session sessionID before turn
// promptNumber: "" for what there is none of.
func (s *Store) PreviousTurn(ctx context.Context, sessionID int64, promptNumber int) (prompt, answer string, err error) {
	var sums []Summary
	err = s.db.WithContext(ctx).Model(&Summary{}).Select("prompt_number", "last_assistant_message").
		Where("session_id = ? AND kind = ? AND prompt_number < ? AND prompt_number > 0", sessionID, SummaryTurn, promptNumber).
		Order("prompt_number DESC, id DESC").Limit(1).Find(&sums).Error
	if err != nil || len(sums) == 0 {
		return "", "", err
	}
	var texts []string
	err = s.db.WithContext(ctx).Model(&Prompt{}).Where("session_id = ? AND number = ?", sessionID, sums[0].PromptNumber).
		Order("id").Pluck("text", &texts).Error
	return strings.Join(texts, "\n\n"), sums[0].LastAssistantMessage, err
}
