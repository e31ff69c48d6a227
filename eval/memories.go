//go:build unix

package eval

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mneme-dev/mneme/e2e"
)

// The memory scenarios (issue 23): what was decided, a rule the user set and
// a next step left open, as memories across sessions. Each is run like a
// recall scenario, and the SessionStart context of the sessions named by
// Checked is read for two things, line by line in its "Memories in force"
// section: the memories that must be there (Recall), and the ones a later
// session replaced or completed (Stale), which must not be there: a stale
// memory in that section is one presented as in force.

// MemoryScenario is a scenario scored on the memories section of the
// context.
type MemoryScenario struct {
	Scenario
	// Checked are the sessions whose SessionStart context is scored, as
	// indexes into Sessions; len(Sessions) is Next. Empty: Next only.
	Checked []int
	// Recall are the memories that must be in force, each found when one
	// line of the memories section matches all its patterns.
	Recall []Fact
	// Stale are memories replaced (superseded) or completed (done) by a
	// later session: a line of the memories section matching one is a
	// memory wrongly given as current.
	Stale []Fact
	// States are the states the stored memories must end in, checked
	// through GET /api/memories before Next: each pattern (matched
	// against a memory's text) with its expected state.
	States []MemoryState
}

// MemoryState is a stored memory's expected state.
type MemoryState struct {
	Text  string // a regular expression the memory's text matches
	State string // current, superseded, done
}

// MemoryScenarios are the memory scenarios, in table order.
func MemoryScenarios() []MemoryScenario {
	return []MemoryScenario{decisionSuperseded(), todoDone(), correctionHolds()}
}

// memoriesTitle is the heading of the context's memories section
// (recall.memoriesSection).
const memoriesTitle = "## Memories in force"

// MemorySection is the memories section of a SessionStart context: its
// lines up to the next heading or the end of the block.
func MemorySection(ctx string) []string {
	i := strings.Index(ctx, memoriesTitle)
	if i < 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(ctx[i:], "\n")[1:] {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "</mneme-context>") {
			break
		}
		if strings.HasPrefix(line, "- ") {
			out = append(out, line)
		}
	}
	return out
}

// inLines reports whether one of lines matches every pattern of f.
func (f *Fact) inLines(lines []string) bool {
	for _, l := range lines {
		if f.In(l) {
			return true
		}
	}
	return false
}

// MemoryScore is one checked context's score.
type MemoryScore struct {
	Recalled int // Recall facts found in the memories section
	Expected int // len(Recall)
	Wrong    int // Stale facts found in the memories section
	// StaleElsewhere counts Stale facts found on a line of the rest of
	// the context (a session line quoting an old answer): not presented
	// as in force, reported for honesty, with the lines in StaleLines.
	StaleElsewhere int
	StaleLines     []string
	SectionBytes   int // the memories section's bytes
	ContextBytes   int // the whole context's bytes
	Missed         []string
	WrongNames     []string
}

// ScoreMemories scores one SessionStart context.
func (s *MemoryScenario) ScoreMemories(ctx string) MemoryScore {
	lines := MemorySection(ctx)
	sc := MemoryScore{Expected: len(s.Recall), ContextBytes: len(ctx)}
	if i := strings.Index(ctx, memoriesTitle); i >= 0 && len(lines) > 0 {
		title, _, _ := strings.Cut(ctx[i:], "\n")
		sc.SectionBytes = len(title) + 1
	}
	for _, l := range lines {
		sc.SectionBytes += len(l) + 1
	}
	var rest []string
	for _, l := range strings.Split(ctx, "\n") {
		if !slices.Contains(lines, l) {
			rest = append(rest, l)
		}
	}
	for i := range s.Recall {
		if s.Recall[i].inLines(lines) {
			sc.Recalled++
		} else {
			sc.Missed = append(sc.Missed, s.Recall[i].Name)
		}
	}
	for i := range s.Stale {
		if s.Stale[i].inLines(lines) {
			sc.Wrong++
			sc.WrongNames = append(sc.WrongNames, s.Stale[i].Name)
			continue
		}
		for _, l := range rest {
			if s.Stale[i].In(l) {
				sc.StaleElsewhere++
				sc.StaleLines = append(sc.StaleLines, l)
				break
			}
		}
	}
	return sc
}

// Validate checks the scenario's patterns and checked sessions.
func (s *MemoryScenario) Validate() error {
	for _, l := range [][]Fact{s.Recall, s.Stale} {
		for i := range l {
			if err := l[i].compile(); err != nil {
				return err
			}
		}
	}
	for _, st := range s.States {
		if _, err := regexp.Compile("(?i)" + st.Text); err != nil {
			return fmt.Errorf("%s: state pattern: %w", s.Name, err)
		}
	}
	for _, i := range s.Checked {
		if i < 1 || i > len(s.Sessions) {
			return fmt.Errorf("%s: checked session %d out of range", s.Name, i)
		}
	}
	return nil
}

// checked are the indexes of the sessions scored (len(Sessions) is Next).
func (s *MemoryScenario) checked() []int {
	if len(s.Checked) == 0 {
		return []int{len(s.Sessions)}
	}
	return s.Checked
}

// A decision stated in a colon-label list, an unrelated session, then a
// session that switches it: the next one must be told the new decision
// (and the other one of the first list, still in force), not the old.
func decisionSuperseded() MemoryScenario {
	return MemoryScenario{Scenario: Scenario{
		Name: "decision superseded two sessions later",
		Sessions: []Session{{
			Project: "notifier",
			Prompt:  "Pick a job queue for the notifier and enqueue the welcome email.",
			Steps: []e2e.Step{
				write("queue.go", "package notifier\n\n// Enqueue puts a job on the queue.\nfunc Enqueue(kind string, payload []byte) error { return nil }\n"),
				bash("grep -n Enqueue queue.go"),
				e2e.Text("The welcome email is enqueued from signup.\n\nKey decisions:\n- Went with Asynq for the job queue, backed by the local Redis.\n- A failed email job is retried at most 3 times.\n\nLet me know if you want a dead-letter queue."),
			},
		}, {
			Project: "notifier",
			Prompt:  "Add a /healthz endpoint to the notifier.",
			Steps: []e2e.Step{
				write("health.go", "package notifier\n\nimport \"net/http\"\n\nfunc healthz(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }\n"),
				e2e.Text("Added /healthz in health.go; it answers 200."),
			},
		}, {
			Project: "notifier",
			Prompt:  "Ops will not run Redis in production. Move the jobs off it.",
			Steps: []e2e.Step{
				edit("queue.go", "// Enqueue puts a job on the queue.", "// Enqueue puts a job on the River queue (Postgres)."),
				e2e.Text("Moved the jobs off Redis.\n\nKey decisions:\n- Switched the job queue from Asynq to River instead, so jobs live in the Postgres we already run.\n\n`queue.go` now uses River."),
			},
		}},
		Next: Session{Project: "notifier", Prompt: "Add a job that sends the weekly digest."},
	},
		Recall: []Fact{
			{Name: "the job queue is River (on Postgres)", All: []string{`decision`, `river`}},
			{Name: "a failed email job is retried at most 3 times", All: []string{`retried at most 3`}},
		},
		Stale: []Fact{
			{Name: "the job queue is Asynq on Redis (superseded)", All: []string{`went with asynq`}},
		},
		States: []MemoryState{
			{Text: `^Went with Asynq`, State: "superseded"},
			{Text: `^Switched the job queue from Asynq to River`, State: "current"},
			{Text: `retried at most 3`, State: "current"},
		},
	}
}

// A next step left open in one session, done two sessions later: the next
// session must not be told it is still to do; the decision of the first
// session stays.
func todoDone() MemoryScenario {
	return MemoryScenario{Scenario: Scenario{
		Name: "todo opened, then done",
		Sessions: []Session{{
			Project: "invoices",
			Prompt:  "Add CSV export of invoices.",
			Steps: []e2e.Step{
				write("export.go", "package invoices\n\n// ExportCSV writes invoices as CSV, amounts in integer cents.\nfunc ExportCSV(rows [][]string) string { return \"\" }\n"),
				e2e.Text("Invoices export to CSV with `ExportCSV` in export.go.\n\nDecisions:\n- Amounts are written as integer cents, so the CSV round-trips exactly.\n\nNext steps:\n- Add a test for `ExportCSV` with an empty invoice list."),
			},
		}, {
			Project: "invoices",
			Prompt:  "Add the PDF export too.",
			Steps: []e2e.Step{
				write("pdf.go", "package invoices\n\n// ExportPDF renders invoices as PDF.\nfunc ExportPDF() []byte { return nil }\n"),
				e2e.Text("The PDF export is in pdf.go."),
			},
		}, {
			Project: "invoices",
			Prompt:  "Write the missing test for the CSV export.",
			Steps: []e2e.Step{
				write("export_test.go", "package invoices\n\nimport \"testing\"\n\nfunc TestExportCSVEmpty(t *testing.T) {\n\tif got := ExportCSV(nil); got != \"\" {\n\t\tt.Fatalf(\"got %q\", got)\n\t}\n}\n"),
				e2e.Text("Added the test for `ExportCSV` with an empty invoice list in export_test.go."),
			},
		}},
		Next: Session{Project: "invoices", Prompt: "Add a due-date column to the CSV export."},
	},
		Recall: []Fact{
			{Name: "amounts are integer cents", All: []string{`decision`, `integer cents`}},
		},
		Stale: []Fact{
			{Name: "todo: a test for ExportCSV with an empty list (done)", All: []string{`todo`, `test for .?ExportCSV`}},
		},
		States: []MemoryState{
			{Text: `^Add a test for .ExportCSV`, State: "done"},
			{Text: `integer cents`, State: "current"},
		},
	}
}

// A user's correction in a prompt ("no, don't use npm: always pnpm")
// replaces a decision Claude made, and must hold in each of the five
// sessions that follow, about other things.
func correctionHolds() MemoryScenario {
	later := []struct{ prompt, file, content, answer string }{
		{"Add a Button component.", "src/Button.tsx", "export function Button() { return null }\n", "Button is in src/Button.tsx."},
		{"Add a dark theme.", "src/theme.css", ":root { --bg: #111; }\n", "The dark theme is in src/theme.css."},
		{"Add a 404 page.", "src/NotFound.tsx", "export function NotFound() { return null }\n", "The 404 page is src/NotFound.tsx."},
		{"Write the README.", "README.md", "# webapp\n", "README.md written."},
	}
	sc := MemoryScenario{Scenario: Scenario{
		Name: "user correction across five sessions",
		Sessions: []Session{{
			Project: "webapp",
			Prompt:  "Add a lint script for the web app.",
			Steps: []e2e.Step{
				write("package.json", "{\n  \"name\": \"webapp\",\n  \"scripts\": { \"lint\": \"eslint src\" }\n}\n"),
				bash("cat package.json"),
				e2e.Text("Added a `lint` script to package.json.\n\nKey decisions:\n- Went with npm for running the scripts, since there is no lockfile yet."),
			},
		}, {
			Project: "webapp",
			Prompt:  "No, don't use npm for the scripts in this repo: always run them with pnpm, and commit pnpm-lock.yaml.",
			Steps: []e2e.Step{
				edit("package.json", "\"name\": \"webapp\",", "\"name\": \"webapp\",\n  \"packageManager\": \"pnpm@9.12.0\","),
				e2e.Text("Done: package.json names pnpm as its package manager."),
			},
		}},
		Next: Session{Project: "webapp", Prompt: "Add a test runner to the web app."},
	},
		Recall: []Fact{
			{Name: "constraint: never npm, always pnpm", All: []string{`constraint`, `npm`, `pnpm`}},
		},
		Stale: []Fact{
			{Name: "scripts run with npm (replaced by the user)", All: []string{`went with npm`}},
		},
		States: []MemoryState{
			{Text: `^Went with npm`, State: "superseded"},
			{Text: `always run them with pnpm`, State: "current"},
		},
	}
	for _, l := range later {
		sc.Sessions = append(sc.Sessions, Session{Project: "webapp", Prompt: l.prompt, Steps: []e2e.Step{write(l.file, l.content), e2e.Text(l.answer)}})
	}
	// The five sessions after the correction: sessions 3 to 6, and Next.
	sc.Checked = []int{2, 3, 4, 5, 6}
	return sc
}
