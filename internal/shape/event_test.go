package shape

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
	"github.com/mneme-dev/mneme/models"
)

// planted is a distinct secret (a GitHub token, by a built-in rule) for
// the n-th place one is planted in; plantedRe finds any part of one that
// survived ("Planted" is in every one, and in nothing else).
func planted(n int) string {
	body := fmt.Sprintf("F%03dPlanted", n)
	return "ghp_" + body + strings.Repeat("Q", 36-len(body))
}

var plantedRe = regexp.MustCompile(`F\d{3}Planted|Planted|ghp_F`)

// plantJSON is a tool input or response holding a planted secret in every
// member any shaper reads, from n on; it returns the next n.
func plantJSON(n int) (json.RawMessage, int) {
	next := func() string { n++; return planted(n) }
	doc := map[string]any{}
	for _, k := range []string{"command", "file_path", "content", "old_string", "new_string", "notebook_path", "pattern",
		"path", "url", "query", "prompt", "description", "subagent_type", "name", "stdout", "stderr", "result", "type"} {
		doc[k] = next()
	}
	doc["filenames"] = []string{next(), next()}
	doc["edits"] = []any{map[string]any{"old_string": next(), "new_string": next()}}
	doc["file"] = map[string]any{"content": next(), "filePath": next(), "numLines": 3}
	doc["structuredPatch"] = []any{map[string]any{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
		"lines": []string{"-" + next(), "+" + next()}}}
	b, _ := json.Marshal(doc)
	return b, n
}

// plantPayload returns a payload for event with a distinct planted secret
// in every string field and every JSON one, found by reflection so that a
// field added to Payload is planted too, and the number of fields planted.
func plantPayload(t *testing.T, event string) (*Payload, int) {
	t.Helper()
	p := &Payload{}
	v := reflect.ValueOf(p).Elem()
	n, fields := 0, 0
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if !sf.IsExported() {
			t.Fatalf("Payload has an unexported field %s: plant it, or say why it holds no text", sf.Name)
		}
		switch {
		case f.Kind() == reflect.String:
			n++
			f.SetString(planted(n))
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			var doc json.RawMessage
			doc, n = plantJSON(n)
			f.Set(reflect.ValueOf(doc))
		case f.Kind() == reflect.Bool, f.Kind() == reflect.Int64, f.Type() == reflect.TypeFor[*time.Time]():
			continue // holds no text
		default:
			t.Fatalf("Payload's field %s is a %s: teach this test to plant a secret in it", sf.Name, f.Type())
		}
		fields++
	}
	p.HookEventName = event // as Decode sets it when the body has none
	return p, fields
}

// plantedOutside is what the worker's disk answers for a planted event: a
// secret in the project's name, root and branch, and in the transcript.
type plantedOutside struct{}

func (plantedOutside) Project(cwd string) hookwire.Project {
	return hookwire.Project{Name: planted(900), Root: planted(901), Branch: planted(902)}
}

func (plantedOutside) LastAssistantMessage(string) string { return "done " + planted(903) }

// A secret planted in every string of a payload, for every event kind, as
// the owner's event and a person's, and for every tool shape, survives in
// nothing the Event yields: its cleaned payload, field by field, the
// project and branch read outside it, the transcript's last message, the
// description and the observation shaped from it.
func TestCleanEventLeavesNoPlantedSecret(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("one goroutine, nothing for the race detector to watch: make test runs it without it (test-norace)")
	}
	pol := NewPolicy(models.DefaultSettings())
	tools := []string{"", "Bash", "Edit", "MultiEdit", "Write", "Read", "NotebookEdit", "Grep", "Glob", "WebFetch", "WebSearch", "Task", "mcp__srv__do", "Other"}
	checked := 0
	for _, event := range []string{hookwire.SessionStart, hookwire.UserPromptSubmit, hookwire.PostToolUse, hookwire.PostToolUseFailure,
		hookwire.PreToolUse, hookwire.Stop, hookwire.SessionEnd} {
		for _, person := range []string{"", "carol"} {
			for _, tool := range tools {
				for _, withMessage := range []bool{true, false} {
					raw, fields := plantPayload(t, event)
					if fields < 18 {
						t.Fatalf("only %d fields planted", fields)
					}
					if tool != "" {
						raw.ToolName = tool
					}
					if !withMessage {
						raw.LastAssistantMessage = "" // the transcript is read instead
					}
					rawJSON, _ := json.Marshal(raw)
					if !plantedRe.Match(rawJSON) {
						t.Fatal("nothing was planted")
					}
					name := fmt.Sprintf("%s/person=%q/tool=%q/message=%v", event, person, tool, withMessage)
					ev := pol.CleanEvent(raw, person, plantedOutside{})

					got := ev.Payload()
					cv := reflect.ValueOf(got)
					for i := range cv.NumField() {
						var text string
						switch f := cv.Field(i); {
						case f.Kind() == reflect.String:
							text = f.String()
						case f.Type() == reflect.TypeFor[json.RawMessage]():
							text = string(f.Bytes())
						default:
							continue
						}
						if m := plantedRe.FindString(text); m != "" {
							t.Errorf("%s: cleaned %s still holds %q: %.120q", name, cv.Type().Field(i).Name, m, text)
						}
						checked++
					}
					if !strings.Contains(got.Cwd, "[REDACTED:github_token]") {
						t.Errorf("%s: cwd %q: the secret was not redacted where it stood", name, got.Cwd)
					}
					proj := ev.Project()
					yields := map[string]string{
						"Project().Name": proj.Name, "Project().Branch": proj.Branch, "Project().Root": proj.Root,
						"LastAssistantMessage()": ev.LastAssistantMessage(),
						"SessionID()":            ev.SessionID(), "PromptID()": ev.PromptID(), "Cwd()": ev.Cwd(),
						"TranscriptPath()": ev.TranscriptPath(), "Source()": ev.Source(), "Prompt()": ev.Prompt(),
						"ToolInput()": string(ev.ToolInput()), "Reason()": ev.Reason(),
					}
					if d, err := json.Marshal(Describe(ev)); err == nil {
						yields["Describe()"] = string(d)
					}
					if o := ev.Observation(); o != nil {
						b, _ := json.Marshal(o)
						yields["Observation()"] = string(b)
					}
					for what, text := range yields {
						if m := plantedRe.FindString(text); m != "" {
							t.Errorf("%s: %s holds %q: %.160q", name, what, m, text)
						}
						checked++
					}
					if !withMessage && person == "" && !strings.Contains(ev.LastAssistantMessage(), "done [REDACTED:github_token]") {
						t.Errorf("%s: the transcript's message %q was not read and cleaned", name, ev.LastAssistantMessage())
					}
				}
			}
		}
	}
	t.Logf("%d cleaned values checked", checked)
}

// An Event is the payload as cleaned, and the payload it came from is
// left as it was: the door copies, it does not clean in place.
func TestCleanEventLeavesRawAlone(t *testing.T) {
	raw := &Payload{SessionID: "s1", Cwd: "/src/app", Prompt: "<private>all of it</private>", LastAssistantMessage: ""}
	ev := NewPolicy(models.DefaultSettings()).CleanEvent(raw, "", nil)
	if raw.Prompt != "<private>all of it</private>" {
		t.Errorf("the raw payload changed: %q", raw.Prompt)
	}
	if ev.Prompt() != "" || !ev.PromptPrivate() {
		t.Errorf("a wholly private prompt: cleaned %q, private %v", ev.Prompt(), ev.PromptPrivate())
	}
	if p := ev.Project(); p.Name != "app" || p.Branch != "" {
		t.Errorf("with nothing read outside, the project is cwd's base name: %+v", p)
	}
	if ev.LastAssistantMessage() != "" {
		t.Errorf("with nothing read outside, no message: %q", ev.LastAssistantMessage())
	}
}
