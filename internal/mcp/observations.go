package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/models"
)

// maxRecord caps one observation's text in get_observations' answer.
const maxRecord = 4096

func (s *Server) getDescription() string {
	return fmt.Sprintf(`Step 3 of 3 — the full records of tool calls (observations) by id: tool, time, project, session and prompt, success, files, and the stored input and output (compressed at capture: long outputs keep their first and last lines; secrets were redacted).
Give ids=[…] with at most %d #ids from search or timeline rows, only those worth reading: a record over %d bytes loses its middle (marked with how much).
For more of a session around a record, use timeline anchor=<id>.`, s.opts.MaxIDs, maxRecord)
}

// GetObservationsInput is the get_observations tool's arguments.
type GetObservationsInput struct {
	IDs []ID `json:"ids" jsonschema:"observation ids: the #ids of search or timeline rows"`
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
	ids := make([]int64, len(in.IDs))
	for i, id := range in.IDs {
		if id <= 0 {
			return "", fmt.Errorf("%d is not an observation id: ids are positive whole numbers (the #id of a search row)", id)
		}
		ids[i] = int64(id)
	}
	body, _ := json.Marshal(map[string][]int64{"ids": ids})
	var res batchAnswer
	if err := s.call(ctx, http.MethodPost, "/api/observations/batch", body, &res); err != nil {
		return "", err
	}
	if len(res.Items) == 0 {
		return "", fmt.Errorf("no observation with id %s: take #ids from search or timeline rows", joinIDs(res.Missing))
	}
	var b strings.Builder
	for i := range res.Items {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(record(&res.Items[i]))
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(&b, "\n\nNot found: %s.", joinIDs(res.Missing))
	}
	return b.String(), nil
}

// record is one observation in full, cut at maxRecord bytes.
func record(o *models.Observation) string {
	var b strings.Builder
	status := "ok"
	if !o.Success {
		status = "FAILED"
	}
	fmt.Fprintf(&b, "#%d  %s\n", o.ID, oneLine(o.Title, 300))
	fmt.Fprintf(&b, "%s · %s · %s · project %s · session %d, prompt %d · %s · importance %.1f", stamp(o.CreatedAt), o.ToolName, o.Kind, o.Project, o.SessionID, o.PromptNumber, status, o.Importance)
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

func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("#%d", id)
	}
	return strings.Join(parts, ", ")
}
