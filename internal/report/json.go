package report

import (
	"bufio"
	"encoding/json"
	"time"

	"github.com/mneme-dev/mneme/models"
)

// jsonRenderer writes the full structured data, observations streamed one
// by one:
//
//	{"schemaVersion":1,"generatedAt":…,"title":…,"sessions":[{"session":…,
//	 "stats":…,"ledger":…,"summaries":[…],"memories":[…],"prompts":[…],"observations":[…],
//	 "failures":[…],"tests":[…],"files":[…]}]}
type jsonRenderer struct {
	w        *bufio.Writer
	now      time.Time
	sessions int
	calls    int
}

func (r *jsonRenderer) raw(s string) { r.w.WriteString(s) }

func (r *jsonRenderer) value(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = r.w.Write(b)
	return err
}

func (r *jsonRenderer) field(name string, v any) error {
	r.raw(`,"` + name + `":`)
	return r.value(v)
}

func (r *jsonRenderer) start(title string, _ bool) error {
	r.raw(`{"schemaVersion":`)
	r.value(SchemaVersion)
	r.field("generatedAt", r.now.UTC())
	r.field("title", title)
	r.raw(`,"sessions":[`)
	return nil
}

type jsonStats struct {
	Prompts      int `json:"prompts"`
	ToolCalls    int `json:"toolCalls"`
	Failures     int `json:"failures"`
	Observations int `json:"observations"`
}

func (r *jsonRenderer) session(sd *sessionData) error {
	if r.sessions > 0 {
		r.raw(",")
	}
	r.sessions++
	r.calls = 0
	r.raw(`{"session":`)
	if err := r.value(sd.sess); err != nil {
		return err
	}
	r.field("title", sd.title)
	r.field("durationSeconds", durationSeconds(sd.sess))
	r.field("stats", jsonStats{sd.stats.Prompts, sd.stats.ToolCalls, sd.stats.Failures, sd.stats.Observations})
	r.field("ledger", sd.ledger)
	r.field("summaries", nonNil(sd.summaries))
	r.field("memories", nonNil(sd.memories))
	r.field("prompts", nonNil(sd.prompts))
	r.raw(`,"observations":[`)
	return nil
}

func durationSeconds(s *models.Session) *int64 {
	if s.EndedAt == nil {
		return nil
	}
	d := int64(s.EndedAt.Sub(s.StartedAt).Seconds())
	return &d
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (r *jsonRenderer) prompt(*models.Prompt, int) error { return nil }

func (r *jsonRenderer) call(o *models.Observation) error {
	if r.calls > 0 {
		r.raw(",")
	}
	r.calls++
	return r.value(o)
}

// jsonFailure is a failure in the JSON export.
type jsonFailure struct {
	Prompt     int       `json:"prompt"`
	ID         int64     `json:"observationId"`
	Tool       string    `json:"tool"`
	Title      string    `json:"title"`
	Reason     string    `json:"reason"`
	Time       time.Time `json:"time"`
	Fixed      bool      `json:"fixed"`
	FixedByID  int64     `json:"fixedById,omitempty"`
	FixedBy    string    `json:"fixedBy,omitempty"`
	Changes    []string  `json:"changesBeforeFix,omitempty"`
	Resolution string    `json:"resolution"`
}

func (r *jsonRenderer) endSession(_ *sessionData, a *aggregates) error {
	a.finish()
	r.raw("]")
	fails := make([]jsonFailure, len(a.failures.Failures))
	for i, f := range a.failures.Failures {
		o := f.Obs
		fails[i] = jsonFailure{Prompt: o.PromptNumber, ID: o.ID, Tool: o.ToolName, Title: o.Title, Reason: f.Reason, Time: o.CreatedAt,
			Fixed: f.Fixed, Changes: f.Changes, Resolution: resolution(f)}
		if f.Fixed {
			fails[i].FixedByID, fails[i].FixedBy = f.FixedBy.ID, f.FixedBy.Title
		}
	}
	r.field("failures", fails)
	r.field("tests", a.Tests)
	r.field("files", a.Files)
	if n := a.Dropped + a.failures.Dropped; n > 0 {
		r.field("omittedFromLists", n)
	}
	r.raw("}")
	return nil
}

func (r *jsonRenderer) end() error {
	r.raw("]}\n")
	return nil
}
