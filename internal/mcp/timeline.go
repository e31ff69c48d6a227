package mcp

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

const timelineDescription = `Step 2 of 3 — what happened around a search hit: the tool calls of one session in order, with the prompts that asked for them and the turn summaries.
Give anchor=<observation id> (the #id of a search row) with before/after (tool calls on each side, default 5, at most 100), or session=s<N> (the session of a prompt/summary row, or of recent_sessions) with offset/limit to page through the session.
Answers compact rows within maxTokens (≈4 bytes per token, default 1000): "#<id>  <time>  <kind>  <title>" per tool call (the anchor marked with >>), prompts and summaries between them.
Next: get_observations with the ids whose full input and output you need.`

// TimelineInput is the timeline tool's arguments.
type TimelineInput struct {
	Anchor    ID   `json:"anchor,omitempty" jsonschema:"an observation id (#id of a search row): show the tool calls around it"`
	Session   ID   `json:"session,omitempty" jsonschema:"a session id (s7 as search and recent_sessions rows print it, or 7): show that session from offset"`
	Before    *int `json:"before,omitempty" jsonschema:"with anchor: tool calls before it, 0 to 100 (default 5)"`
	After     *int `json:"after,omitempty" jsonschema:"with anchor: tool calls after it, 0 to 100 (default 5)"`
	Offset    int  `json:"offset,omitempty" jsonschema:"with session: skip this many tool calls"`
	Limit     int  `json:"limit,omitempty" jsonschema:"with session: tool calls to show, 1 to 200 (default 30)"`
	MaxTokens int  `json:"maxTokens,omitempty" jsonschema:"size limit of the answer in tokens (≈4 bytes each), 200 to 25000, default 1000"`
}

func (s *Server) timeline(ctx context.Context, in TimelineInput) (string, error) {
	maxTokens, err := readTokens(in.MaxTokens)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	switch {
	case in.Anchor < 0 || in.Session < 0:
		return "", fmt.Errorf("anchor and session are positive ids")
	case (in.Anchor == 0) == (in.Session == 0):
		return "", fmt.Errorf("give either anchor (an observation #id from search) or session (a session id), not both or neither")
	case in.Anchor > 0:
		q.Set("anchor", strconv.FormatInt(int64(in.Anchor), 10))
		for _, side := range []struct {
			name string
			n    *int
		}{{"before", in.Before}, {"after", in.After}} {
			n := 5
			if side.n != nil {
				n = *side.n
			}
			if n < 0 || n > 100 {
				return "", fmt.Errorf("%s must be from 0 to 100", side.name)
			}
			q.Set(side.name, strconv.Itoa(n))
		}
	default:
		if in.Offset < 0 {
			return "", fmt.Errorf("offset must be 0 or more")
		}
		if in.Limit < 0 || in.Limit > 200 {
			return "", fmt.Errorf("limit must be from 1 to 200, or left out for 30")
		}
		if in.Limit == 0 {
			in.Limit = 30
		}
		q.Set("session", strconv.FormatInt(int64(in.Session), 10))
		q.Set("offset", strconv.Itoa(in.Offset))
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	var tl models.Timeline
	if err := s.get(ctx, "/api/timeline?"+q.Encode(), &tl); err != nil {
		if isNotFound(err) && in.Anchor > 0 {
			return "", fmt.Errorf("no observation #%d: take an #id from a search row", in.Anchor)
		}
		if isNotFound(err) {
			return "", fmt.Errorf("no session %s: take a session id (s7) from a search or recent_sessions row", ref.Sess(int64(in.Session)))
		}
		return "", err
	}
	return formatTimeline(&tl, in, maxTokens), nil
}

// formatTimeline writes a timeline's rows within maxTokens: the anchor
// first, then outwards, so a small budget keeps what is nearest to it.
func formatTimeline(tl *models.Timeline, in TimelineInput, maxTokens int) string {
	w := newBudget(maxTokens)
	if sess := tl.Session; sess != nil {
		w.must(fmt.Sprintf("session %s · %s · started %s · %s%s", ref.Sess(sess.ID), sess.Project, stamp(sess.StartedAt), sess.Status, branch(sess.GitBranch)))
	}
	rows := make([]string, len(tl.Items))
	var firstObs, lastObs int64
	for i, it := range tl.Items {
		rows[i] = timelineRow(it, tl.Anchor)
		if o := it.Observation; o != nil {
			if firstObs == 0 {
				firstObs = o.ID
			}
			lastObs = o.ID
		}
	}
	footer := func(omitted int) string {
		var lines []string
		if omitted > 0 {
			lines = append(lines, fmt.Sprintf("… %d row(s) left out for maxTokens=%d: raise it, or ask for fewer rows.", omitted, maxTokens))
		}
		if len(tl.Items) == 0 {
			lines = append(lines, "(nothing recorded here)")
		}
		if tl.HasBefore && firstObs > 0 {
			if in.Anchor > 0 {
				lines = append(lines, fmt.Sprintf("Earlier: timeline anchor=%d after=0.", firstObs))
			} else {
				lines = append(lines, fmt.Sprintf("Earlier: timeline session=%s offset=%d.", ref.Sess(int64(in.Session)), max(0, in.Offset-in.Limit)))
			}
		}
		if tl.HasAfter && lastObs > 0 {
			if in.Anchor > 0 {
				lines = append(lines, fmt.Sprintf("Later: timeline anchor=%d before=0.", lastObs))
			} else {
				lines = append(lines, fmt.Sprintf("Later: timeline session=%s offset=%d.", ref.Sess(int64(in.Session)), in.Offset+countObs(tl)))
			}
		}
		return strings.Join(append(lines, "Next: get_observations ids=[…] for full input and output."), "\n")
	}
	keep := pickRows(rows, anchorIndex(tl), w, len(footer(len(rows)))+8)
	omitted := 0
	for i, r := range rows {
		if keep[i] {
			w.must(r)
		} else {
			omitted++
		}
	}
	w.must(footer(omitted))
	return w.String()
}

// pickRows chooses the rows that fit w: from the anchor (or the start)
// outwards, alternating sides.
func pickRows(rows []string, anchor int, w *budget, reserve int) []bool {
	keep := make([]bool, len(rows))
	used := w.b.Len()
	room := w.limit - reserve
	take := func(i int) bool {
		if i < 0 || i >= len(rows) || used+len(rows[i])+1 > room {
			return false
		}
		keep[i] = true
		used += len(rows[i]) + 1
		return true
	}
	if anchor < 0 {
		for i := range rows {
			if !take(i) {
				break
			}
		}
		return keep
	}
	if !take(anchor) {
		return keep
	}
	lo, hi := anchor-1, anchor+1
	for lo >= 0 || hi < len(rows) {
		okLo, okHi := take(lo), take(hi)
		if !okLo && !okHi {
			break
		}
		if okLo {
			lo--
		}
		if okHi {
			hi++
		}
	}
	return keep
}

func anchorIndex(tl *models.Timeline) int {
	for i, it := range tl.Items {
		if it.Observation != nil && it.Observation.ID == tl.Anchor && tl.Anchor > 0 {
			return i
		}
	}
	return -1
}

func countObs(tl *models.Timeline) int {
	n := 0
	for _, it := range tl.Items {
		if it.Observation != nil {
			n++
		}
	}
	return n
}

// timelineRow is one timeline item on one line.
func timelineRow(it models.TimelineItem, anchor int64) string {
	switch {
	case it.Observation != nil:
		o := it.Observation
		mark := "  "
		if o.ID == anchor {
			mark = ">>"
		}
		row := fmt.Sprintf("%s #%d  %s  %s  %s", mark, o.ID, stamp(o.CreatedAt), o.Kind, oneLine(o.Title, 160))
		if !o.Success {
			row += "  [failed]"
		}
		return row + staleMark(o.Stale)
	case it.Prompt != nil:
		return fmt.Sprintf("   prompt %d  %s  %s", it.Prompt.Number, stamp(it.Prompt.CreatedAt), oneLine(quote(it.Prompt.Text), 200))
	case it.Summary != nil:
		return fmt.Sprintf("   summary (%s)  %s  %s", it.Summary.Kind, stamp(it.Summary.CreatedAt), oneLine(summaryLine(it.Summary), 240))
	}
	return ""
}

func quote(s string) string { return "\u201c" + strings.TrimSpace(s) + "\u201d" }

func branch(b string) string {
	if b == "" {
		return ""
	}
	return " · branch " + b
}

// summaryLine is a summary in one line: what was asked, what got done,
// what is next.
func summaryLine(s *models.Summary) string {
	var parts []string
	for _, f := range []struct{ name, v string }{{"request", s.Request}, {"completed", s.Completed}, {"learned", s.Learned}, {"next", s.NextSteps}} {
		if v := strings.TrimSpace(f.v); v != "" {
			parts = append(parts, f.name+": "+oneLine(v, 120))
		}
	}
	return strings.Join(parts, "; ")
}
