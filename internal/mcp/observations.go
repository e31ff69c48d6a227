package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

// maxRecord caps one observation's text in get_observations' answer.
const maxRecord = 4096

func (s *Server) getDescription() string {
	return fmt.Sprintf(`Step 3 of 3 — the full records of tool calls (observations) by id: tool, time, project, session and prompt, success, files, and the stored input and output (compressed at capture: long outputs keep their first and last lines; secrets were redacted). Memories (m6) and sessions (s7) by their ids too, as the context and rows print them.
Give ids=[…] with at most %d ids from search or timeline rows or the context (#123, m6, s7), only those worth reading: a record over %d bytes loses its middle (marked with how much).
For more of a session around a record, use timeline anchor=<id>.`, s.opts.MaxIDs, maxRecord)
}

// GetObservationsInput is the get_observations tool's arguments.
type GetObservationsInput struct {
	IDs []Ref `json:"ids" jsonschema:"ids as rows and the context print them: #123 (a tool call), m6 (a memory), s7 (a session)"`
}

// batchAnswer is POST /api/observations/batch's answer.
type batchAnswer struct {
	Items   []models.Observation `json:"items"`
	Missing []int64              `json:"missing"`
}

func (s *Server) getObservations(ctx context.Context, in GetObservationsInput) (string, error) {
	switch {
	case len(in.IDs) == 0:
		return "", fmt.Errorf("ids is empty: give the #ids of search or timeline rows, e.g. ids=[123, 456]")
	case len(in.IDs) > s.opts.MaxIDs:
		return "", fmt.Errorf("%d ids asked, at most %d per call: pick the ones worth reading, or call again for the rest", len(in.IDs), s.opts.MaxIDs)
	}
	var obs, mems []int64
	var sessions []int64
	for _, r := range in.IDs {
		if r.ID <= 0 {
			return "", fmt.Errorf("%d is not an id: ids are positive (#123, m6, s7)", r.ID)
		}
		switch r.Kind {
		case ref.Memory:
			mems = append(mems, r.ID)
		case ref.Session:
			sessions = append(sessions, r.ID)
		default:
			obs = append(obs, r.ID)
		}
	}
	found := map[ref.Ref]string{}
	var missing []string
	if len(obs) > 0 {
		body, _ := json.Marshal(map[string][]int64{"ids": obs})
		var res batchAnswer
		if err := s.call(ctx, http.MethodPost, "/api/observations/batch", body, &res); err != nil {
			return "", err
		}
		for i := range res.Items {
			found[ref.Ref{Kind: ref.Observation, ID: res.Items[i].ID}] = record(&res.Items[i])
		}
	}
	if len(mems) > 0 {
		var page struct {
			Items []models.Memory `json:"items"`
		}
		if err := s.get(ctx, "/api/memories?state=all&limit=500&id="+joinNums(mems), &page); err != nil {
			return "", err
		}
		for _, m := range page.Items {
			found[ref.Ref{Kind: ref.Memory, ID: m.ID}] = memoryRecord(m)
		}
	}
	for _, id := range sessions {
		text, err := s.sessionRecord(ctx, id)
		if err != nil {
			return "", err
		}
		if text != "" {
			found[ref.Ref{Kind: ref.Session, ID: id}] = text
		}
	}
	var b strings.Builder
	seen := map[ref.Ref]bool{}
	for _, r := range in.IDs {
		if seen[r.Ref] {
			continue
		}
		seen[r.Ref] = true
		text, ok := found[r.Ref]
		if !ok {
			missing = append(missing, r.Ref.String())
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(text)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("nothing stored as %s: take ids from search or timeline rows or the context (forgotten rows are gone)", strings.Join(missing, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\n\nNot found: %s.", strings.Join(missing, ", "))
	}
	return b.String(), nil
}

// memoryRecord is one memory in full: who said it, its state and what
// replaced it, where it was read.
func memoryRecord(m models.Memory) string {
	var b strings.Builder
	state := m.State
	if m.SupersededBy != 0 {
		state = "superseded by " + ref.Mem(m.SupersededBy)
	}
	fmt.Fprintf(&b, "%s  %s · %s · %s · project %s · %s\n", ref.Mem(m.ID), m.Kind, voice(m), state, m.Project, day(m.CreatedAt))
	if m.SessionID != 0 {
		fmt.Fprintf(&b, "from session %s\n", ref.Sess(m.SessionID))
	}
	if m.Subject != "" {
		fmt.Fprintf(&b, "about: %s\n", oneLine(m.Subject, 200))
	}
	b.WriteString(strings.TrimSpace(m.Text))
	if m.Evidence != "" && m.Evidence != m.Text {
		fmt.Fprintf(&b, "\nread from: %s", oneLine(m.Evidence, 600))
	}
	return cutMiddle(b.String(), maxRecord)
}

// sessionRecord is a session's head and summary lines, "" when it is not
// stored.
func (s *Server) sessionRecord(ctx context.Context, id int64) (string, error) {
	var page struct {
		Items []models.SessionStats `json:"items"`
	}
	if err := s.get(ctx, "/api/sessions?limit=1&id="+strconv.FormatInt(id, 10), &page); err != nil {
		return "", err
	}
	if len(page.Items) == 0 {
		return "", nil
	}
	sum, err := s.latestSummary(ctx, id)
	if err != nil {
		return "", err
	}
	return sessionRows(page.Items[0], sum), nil
}

func joinNums(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

// record is one observation in full, cut at maxRecord bytes.
func record(o *models.Observation) string {
	var b strings.Builder
	status := "ok"
	if !o.Success {
		status = "FAILED"
	}
	fmt.Fprintf(&b, "#%d  %s\n", o.ID, oneLine(o.Title, 300))
	fmt.Fprintf(&b, "%s · %s · %s · project %s · session %s, prompt %d · %s · importance %.1f", stamp(o.CreatedAt), o.ToolName, o.Kind, o.Project, ref.Sess(o.SessionID), o.PromptNumber, status, o.Importance)
	if o.DurationMS > 0 {
		fmt.Fprintf(&b, " · %d ms", o.DurationMS)
	}
	b.WriteByte('\n')
	if len(o.Files) > 0 {
		files := make([]string, len(o.Files))
		for i, f := range o.Files {
			files[i] = f + fileMark(o.FileStatus[f])
		}
		fmt.Fprintf(&b, "files: %s\n", strings.Join(files, ", "))
	}
	if o.ExcludedBy != "" {
		fmt.Fprintf(&b, "excluded by privacy rule %s: no content was stored\n", o.ExcludedBy)
	}
	for _, part := range []struct{ name, text string }{{"input", o.Input}, {"output", o.Output}} {
		if strings.TrimSpace(part.text) != "" {
			fmt.Fprintf(&b, "%s:\n%s\n", part.name, strings.TrimRight(part.text, "\n"))
		}
	}
	text := strings.TrimRight(b.String(), "\n")
	if len(text) <= maxRecord {
		return text
	}
	return cutMiddle(text, maxRecord)
}

// cutMiddle shortens s to at most n bytes by leaving out its middle,
// marked with how much is gone: the head (what was run) and the tail (how
// it ended) are what matter. Runes are never split.
func cutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	keep := max(0, n-len("\n[… 9999999999 bytes cut …]\n"))
	h := s[:runeStart(s, keep*3/5)]
	t := s[runeStart(s, len(s)-(keep-len(h))):]
	if len(s)-len(t) < len(h) { // a rune straddles the cut: step past it
		t = s[len(h):]
	}
	return h + fmt.Sprintf("\n[… %d bytes cut …]\n", len(s)-len(h)-len(t)) + t
}

// runeStart is the start of the rune holding byte i of s.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
