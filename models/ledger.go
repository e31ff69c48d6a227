package models

import (
	"context"
	"time"
)

// LedgerEntry records the tokens one LLM call cost. Day is the UTC date
// (YYYY-MM-DD) the daily budget is counted against.
type LedgerEntry struct {
	ID           int64     `gorm:"primaryKey" json:"id"`
	SessionID    int64     `json:"sessionId"`
	SummaryID    int64     `json:"summaryId"`
	Day          string    `json:"day"`
	Generator    string    `json:"generator"`
	Model        string    `json:"model"`
	InputTokens  int64     `json:"inputTokens"`
	OutputTokens int64     `json:"outputTokens"`
	CostUSD      float64   `gorm:"column:cost_usd" json:"costUsd"`
	CreatedAt    time.Time `json:"createdAt"`
}

// TableName is the ledger's table.
func (LedgerEntry) TableName() string { return "token_ledger" }

// LedgerDay is the UTC day t falls on, as the ledger keys it.
func LedgerDay(t time.Time) string { return t.UTC().Format("2006-01-02") }

// RecordTokens appends e to the ledger inside tx.
func (tx *Tx) RecordTokens(e *LedgerEntry) error {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if e.Day == "" {
		e.Day = LedgerDay(e.CreatedAt)
	}
	return tx.db.Create(e).Error
}

// TokensOnDay is the input plus output tokens spent on day (YYYY-MM-DD).
func (s *Store) TokensOnDay(ctx context.Context, day string) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Raw(`SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM token_ledger WHERE day = ?`, day).Row().Scan(&n)
	return n, err
}

// LedgerTotal is the spend of one day, one session or all time.
type LedgerTotal struct {
	Key          string  `json:"key"` // the day, or the session id, or "all"
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd"`
}

// LedgerTotals is what the stats page shows about LLM spend.
type LedgerTotals struct {
	All   LedgerTotal   `json:"all"`
	Today LedgerTotal   `json:"today"`
	Days  []LedgerTotal `json:"days"` // newest first
	// DailyBudget is the daily token budget in force (0 = unlimited) and
	// BudgetExceeded whether today's spend has reached it, in which case
	// summaries fall back to the heuristic until tomorrow (UTC).
	DailyBudget    int64 `json:"dailyBudget"`
	BudgetExceeded bool  `json:"budgetExceeded"`
}

const ledgerSums = `COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), COALESCE(SUM(cost_usd), 0)`

// LedgerTotals sums the ledger overall, for today (UTC, at now) and for
// each of the last days days, against the daily budget.
func (s *Store) LedgerTotals(ctx context.Context, now time.Time, days int, dailyBudget int64) (LedgerTotals, error) {
	out := LedgerTotals{DailyBudget: dailyBudget, Days: []LedgerTotal{}}
	db := s.db.WithContext(ctx)
	out.All.Key = "all"
	if err := db.Raw(`SELECT `+ledgerSums+` FROM token_ledger`).Row().Scan(&out.All.Calls, &out.All.InputTokens, &out.All.OutputTokens, &out.All.CostUSD); err != nil {
		return out, err
	}
	today := LedgerDay(now)
	out.Today.Key = today
	if err := db.Raw(`SELECT `+ledgerSums+` FROM token_ledger WHERE day = ?`, today).Row().Scan(&out.Today.Calls, &out.Today.InputTokens, &out.Today.OutputTokens, &out.Today.CostUSD); err != nil {
		return out, err
	}
	since := LedgerDay(now.AddDate(0, 0, -days+1))
	rows, err := db.Raw(`SELECT day, `+ledgerSums+` FROM token_ledger WHERE day >= ? GROUP BY day ORDER BY day DESC`, since).Rows()
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var t LedgerTotal
		if err := rows.Scan(&t.Key, &t.Calls, &t.InputTokens, &t.OutputTokens, &t.CostUSD); err != nil {
			return out, err
		}
		out.Days = append(out.Days, t)
	}
	out.BudgetExceeded = dailyBudget > 0 && out.Today.InputTokens+out.Today.OutputTokens >= dailyBudget
	return out, rows.Err()
}

// LedgerOfSession sums the LLM spend of one session.
func (s *Store) LedgerOfSession(ctx context.Context, sessionID int64) (LedgerTotal, error) {
	t := LedgerTotal{}
	err := s.db.WithContext(ctx).Raw(`SELECT `+ledgerSums+` FROM token_ledger WHERE session_id = ?`, sessionID).Row().
		Scan(&t.Calls, &t.InputTokens, &t.OutputTokens, &t.CostUSD)
	return t, err
}
