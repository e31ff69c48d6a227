package models

import (
	"context"
	"fmt"
	"time"
)

// Stats window defaults and bounds.
const (
	DefaultStatsDays = 14
	MaxStatsDays     = 366
	defaultTopN      = 10
)

// StatsQuery selects the window and scope of Stats. Days are UTC calendar
// days.
type StatsQuery struct {
	// Project restricts every figure to one project ("" for all).
	Project string
	// From and To are the first and last day of the window (inclusive, only
	// their dates count). Zero values mean: To is today, From is Days-1 days
	// before To.
	From, To time.Time
	// Days is the window length when From is zero (DefaultStatsDays if 0).
	Days int
	// Top bounds the tool, file and project lists (10 if 0).
	Top int
}

// DayStats is the activity of one day.
type DayStats struct {
	Day          string `json:"day"` // YYYY-MM-DD (UTC)
	Prompts      int64  `json:"prompts"`
	Observations int64  `json:"observations"`
	Failures     int64  `json:"failures"`
}

// NameCount is one row of a ranking: a tool, a file.
type NameCount struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// ProjectStats are one project's counts within the window.
type ProjectStats struct {
	Project      string `json:"project"`
	Sessions     int64  `json:"sessions"`
	Prompts      int64  `json:"prompts"`
	Observations int64  `json:"observations"`
	Failures     int64  `json:"failures"`
}

// StatsTotals sum the window.
type StatsTotals struct {
	Sessions     int64 `json:"sessions"`
	Prompts      int64 `json:"prompts"`
	Observations int64 `json:"observations"`
	Failures     int64 `json:"failures"`
	Summaries    int64 `json:"summaries"`
}

// Stats are the aggregates behind /stats and /api/stats.
type Stats struct {
	From    string      `json:"from"` // first day, YYYY-MM-DD
	To      string      `json:"to"`   // last day, YYYY-MM-DD
	Project string      `json:"project,omitempty"`
	Totals  StatsTotals `json:"totals"`
	// Days has one entry per day of the window, oldest first, zeros
	// included, so a chart can draw it as it is.
	Days []DayStats `json:"days"`
	// Tools are the most used tools, most used first.
	Tools []NameCount `json:"tools"`
	// Files are the most touched files (observations' files), most first.
	Files []NameCount `json:"files"`
	// Projects are the most active projects by observations (all projects
	// in the window when Project is empty; just that one otherwise).
	Projects []ProjectStats `json:"projects"`
}

// statsWindow resolves q into the first day and the day after the last.
func statsWindow(q StatsQuery, now time.Time) (from, end time.Time, err error) {
	day := func(t time.Time) time.Time {
		t = t.UTC()
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	to := day(now)
	if !q.To.IsZero() {
		to = day(q.To)
	}
	days := q.Days
	if days == 0 {
		days = DefaultStatsDays
	}
	if days < 1 || days > MaxStatsDays {
		return from, end, fmt.Errorf("%w: days must be from 1 to %d", ErrInvalid, MaxStatsDays)
	}
	from = to.AddDate(0, 0, -(days - 1))
	if !q.From.IsZero() {
		from = day(q.From)
	}
	if from.After(to) {
		return from, end, fmt.Errorf("%w: from is after to", ErrInvalid)
	}
	if to.Sub(from) >= MaxStatsDays*24*time.Hour {
		return from, end, fmt.Errorf("%w: the window is longer than %d days", ErrInvalid, MaxStatsDays)
	}
	return from, to.AddDate(0, 0, 1), nil
}

// Stats computes the activity, tool, failure, file and project aggregates
// of the window q describes. Every query is bounded by created_at (indexed,
// and by project first when q.Project is set), so the cost follows the rows
// in the window, not the size of the database. Days are UTC days, taken
// from the stored text (substr of created_at) rather than parsed.
func (s *Store) Stats(ctx context.Context, q StatsQuery) (*Stats, error) {
	from, end, err := statsWindow(q, time.Now())
	if err != nil {
		return nil, err
	}
	top := q.Top
	if top <= 0 {
		top = defaultTopN
	}
	st := &Stats{From: from.Format(time.DateOnly), To: end.AddDate(0, 0, -1).Format(time.DateOnly), Project: q.Project}
	// Scope: the window, and the project when asked. The project index
	// (project, created_at) serves both conditions at once.
	scope := "created_at >= ? AND created_at < ?"
	args := []any{timeBound(from), timeBound(end)}
	if q.Project != "" {
		scope = "project = ? AND " + scope
		args = append([]any{q.Project}, args...)
	}
	db := s.DB.WithContext(ctx)

	byDay := map[string]*DayStats{}
	for d := from; d.Before(end); d = d.AddDate(0, 0, 1) {
		st.Days = append(st.Days, DayStats{Day: d.Format(time.DateOnly)})
	}
	for i := range st.Days {
		byDay[st.Days[i].Day] = &st.Days[i]
	}
	rows, err := db.Raw(`SELECT substr(created_at, 1, 10) AS day, COUNT(*), SUM(success = 0)
		FROM observations WHERE `+scope+` GROUP BY day`, args...).Rows()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var day string
		var n, failed int64
		if err := rows.Scan(&day, &n, &failed); err != nil {
			rows.Close()
			return nil, err
		}
		if d := byDay[day]; d != nil {
			d.Observations, d.Failures = n, failed
		}
		st.Totals.Observations += n
		st.Totals.Failures += failed
	}
	rows.Close()
	rows, err = db.Raw(`SELECT substr(created_at, 1, 10) AS day, COUNT(*) FROM prompts WHERE `+scope+` GROUP BY day`, args...).Rows()
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var day string
		var n int64
		if err := rows.Scan(&day, &n); err != nil {
			rows.Close()
			return nil, err
		}
		if d := byDay[day]; d != nil {
			d.Prompts = n
		}
		st.Totals.Prompts += n
	}
	rows.Close()

	sessScope := "started_at >= ? AND started_at < ?"
	if q.Project != "" {
		sessScope = "project = ? AND " + sessScope
	}
	if err := db.Raw(`SELECT
		(SELECT COUNT(*) FROM sessions WHERE `+sessScope+`),
		(SELECT COUNT(*) FROM summaries WHERE `+scope+`)`, append(append([]any{}, args...), args...)...).
		Row().Scan(&st.Totals.Sessions, &st.Totals.Summaries); err != nil {
		return nil, err
	}

	st.Tools = []NameCount{}
	if err := db.Raw(`SELECT tool_name AS name, COUNT(*) AS count FROM observations WHERE `+scope+`
		GROUP BY tool_name ORDER BY count DESC, name LIMIT ?`, append(args, top)...).Scan(&st.Tools).Error; err != nil {
		return nil, err
	}
	st.Files = []NameCount{}
	if err := db.Raw(`SELECT j.value AS name, COUNT(*) AS count
		FROM observations o, json_each(o.files) j
		WHERE `+prefixed("o.", q.Project != "")+` AND o.files != '[]' AND j.type = 'text'
		GROUP BY j.value ORDER BY count DESC, name LIMIT ?`, append(args, top)...).Scan(&st.Files).Error; err != nil {
		return nil, err
	}
	if st.Projects, err = s.projectStats(ctx, q.Project, from, end, top); err != nil {
		return nil, err
	}
	return st, nil
}

// prefixed is the stats scope with its columns qualified by p.
func prefixed(p string, project bool) string {
	scope := p + "created_at >= ? AND " + p + "created_at < ?"
	if project {
		scope = p + "project = ? AND " + scope
	}
	return scope
}

// projectStats counts sessions, prompts, observations and failures per
// project in [from, end), the top projects by observations first.
func (s *Store) projectStats(ctx context.Context, project string, from, end time.Time, top int) ([]ProjectStats, error) {
	scope := "created_at >= ? AND created_at < ?"
	args := []any{timeBound(from), timeBound(end)}
	if project != "" {
		scope = "project = ? AND " + scope
		args = append([]any{project}, args...)
	}
	sessScope := "started_at >= ? AND started_at < ?"
	if project != "" {
		sessScope = "project = ? AND " + sessScope
	}
	all := append(append(append([]any{}, args...), args...), args...)
	out := []ProjectStats{}
	err := s.DB.WithContext(ctx).Raw(`SELECT project, SUM(sessions) AS sessions, SUM(prompts) AS prompts,
			SUM(observations) AS observations, SUM(failures) AS failures FROM (
		SELECT project, 0 AS sessions, 0 AS prompts, COUNT(*) AS observations, SUM(success = 0) AS failures
			FROM observations WHERE `+scope+` GROUP BY project
		UNION ALL SELECT project, 0, COUNT(*), 0, 0 FROM prompts WHERE `+scope+` GROUP BY project
		UNION ALL SELECT project, COUNT(*), 0, 0, 0 FROM sessions WHERE `+sessScope+` GROUP BY project)
		GROUP BY project ORDER BY observations DESC, prompts DESC, project LIMIT ?`, append(all, top)...).Scan(&out).Error
	return out, err
}

// ProjectInfo is one project as /api/projects lists it.
type ProjectInfo struct {
	Project      string     `json:"project"`
	Sessions     int64      `json:"sessions"`
	Observations int64      `json:"observations"`
	LastActive   *time.Time `json:"lastActive,omitempty"`
}

// Projects lists every project that has a session, the most recently
// active first, with its session and observation counts.
func (s *Store) Projects(ctx context.Context) ([]ProjectInfo, error) {
	rows, err := s.DB.WithContext(ctx).Raw(`SELECT s.project, s.sessions, s.last,
			(SELECT COUNT(*) FROM observations o WHERE o.project = s.project)
		FROM (SELECT project, COUNT(*) AS sessions, MAX(started_at) AS last FROM sessions GROUP BY project) s
		ORDER BY s.last DESC, s.project`).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ProjectInfo{}
	for rows.Next() {
		var p ProjectInfo
		var last any
		if err := rows.Scan(&p.Project, &p.Sessions, &last, &p.Observations); err != nil {
			return nil, err
		}
		if t := parseStoredTime(last); !t.IsZero() {
			p.LastActive = &t
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
