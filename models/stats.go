package models

import (
	"context"
	"fmt"
	"sort"
	"strings"
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

// FileCount is how many tool calls touched a file of a project.
type FileCount struct {
	Name    string `json:"name"`
	Count   int64  `json:"count"`
	Project string `json:"project"`
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
	// A path a search looked in (Grep's) is not a file touched.
	Files []FileCount `json:"files"`
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
// of the window q describes. Observations are read in one pass over a
// covering index (created_at, or project and created_at: migration 5),
// grouped by day, project and tool and summed up here; prompts likewise;
// files through json_each. The cost follows the rows in the window, not
// the size of the database. Days are UTC days, taken from the stored text
// (substr of created_at) rather than parsed.
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
	scope, sessScope := "created_at >= ? AND created_at < ?", "started_at >= ? AND started_at < ?"
	args := []any{s.timeBound(from), s.timeBound(end)}
	if q.Project != "" {
		scope, sessScope = "project = ? AND "+scope, "project = ? AND "+sessScope
		args = append([]any{q.Project}, args...)
	}
	byDay := map[string]*DayStats{}
	for d := from; d.Before(end); d = d.AddDate(0, 0, 1) {
		st.Days = append(st.Days, DayStats{Day: d.Format(time.DateOnly)})
	}
	for i := range st.Days {
		byDay[st.Days[i].Day] = &st.Days[i]
	}
	projects := map[string]*ProjectStats{}
	project := func(name string) *ProjectStats {
		p := projects[name]
		if p == nil {
			p = &ProjectStats{Project: name}
			projects[name] = p
		}
		return p
	}
	tools := map[string]int64{}
	db := s.db.WithContext(ctx)

	var obs []struct {
		Day, Project, Tool string
		N, Failed          int64
	}
	if err := db.Raw(`SELECT `+s.dayOf("created_at")+` AS day, project, tool_name AS tool, COUNT(*) AS n, SUM(CASE WHEN success THEN 0 ELSE 1 END) AS failed
		FROM observations WHERE `+scope+` GROUP BY day, project, tool_name`, args...).Scan(&obs).Error; err != nil {
		return nil, err
	}
	for _, r := range obs {
		if d := byDay[r.Day]; d != nil {
			d.Observations += r.N
			d.Failures += r.Failed
		}
		st.Totals.Observations += r.N
		st.Totals.Failures += r.Failed
		tools[r.Tool] += r.N
		p := project(r.Project)
		p.Observations += r.N
		p.Failures += r.Failed
	}
	var prompts []struct {
		Day, Project string
		N            int64
	}
	if err := db.Raw(`SELECT `+s.dayOf("created_at")+` AS day, project, COUNT(*) AS n FROM prompts WHERE `+scope+`
		GROUP BY day, project`, args...).Scan(&prompts).Error; err != nil {
		return nil, err
	}
	for _, r := range prompts {
		if d := byDay[r.Day]; d != nil {
			d.Prompts += r.N
		}
		st.Totals.Prompts += r.N
		project(r.Project).Prompts += r.N
	}
	var sessions []struct {
		Project string
		N       int64
	}
	if err := db.Raw(`SELECT project, COUNT(*) AS n FROM sessions WHERE `+sessScope+` GROUP BY project`, args...).Scan(&sessions).Error; err != nil {
		return nil, err
	}
	for _, r := range sessions {
		st.Totals.Sessions += r.N
		project(r.Project).Sessions += r.N
	}
	if err := db.Raw(`SELECT COUNT(*) FROM summaries WHERE `+scope, args...).Row().Scan(&st.Totals.Summaries); err != nil {
		return nil, err
	}

	st.Tools = make([]NameCount, 0, len(tools))
	for name, n := range tools {
		st.Tools = append(st.Tools, NameCount{Name: name, Count: n})
	}
	sort.Slice(st.Tools, func(i, j int) bool {
		a, b := st.Tools[i], st.Tools[j]
		return a.Count > b.Count || a.Count == b.Count && a.Name < b.Name
	})
	st.Tools = st.Tools[:min(top, len(st.Tools))]
	st.Projects = make([]ProjectStats, 0, len(projects))
	for _, p := range projects {
		st.Projects = append(st.Projects, *p)
	}
	sort.Slice(st.Projects, func(i, j int) bool {
		a, b := st.Projects[i], st.Projects[j]
		if a.Observations != b.Observations {
			return a.Observations > b.Observations
		}
		if a.Prompts != b.Prompts {
			return a.Prompts > b.Prompts
		}
		return a.Project < b.Project
	})
	st.Projects = st.Projects[:min(top, len(st.Projects))]

	st.Files = []FileCount{}
	files, isText := s.filesOf("o.files", "j")
	// A search's path (Grep's) is where it looked, most often a
	// directory: not a file touched.
	if err := db.Raw(`SELECT o.project AS project, j.value AS name, COUNT(*) AS count
		FROM observations o, `+files+`
		WHERE `+strings.ReplaceAll(strings.ReplaceAll(scope, "project", "o.project"), "created_at", "o.created_at")+`
		AND o.files != '[]' AND o.kind <> '`+KindSearch+`' AND `+isText+`
		GROUP BY o.project, j.value ORDER BY count DESC, name, project LIMIT ?`, append(args, top)...).Scan(&st.Files).Error; err != nil {
		return nil, err
	}
	return st, nil
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
	rows, err := s.db.WithContext(ctx).Raw(`SELECT s.project, s.sessions, s.last,
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
