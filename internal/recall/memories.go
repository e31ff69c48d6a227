package recall

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

// memoriesConsidered bounds the memories in force read for one
// SessionStart: pinned first, then the newest.
const memoriesConsidered = 200

// minMemoryLine is the shortest a memory's line can be ("- m1 todo, "
// a voice, ", 11-26: " and a text of 8 characters): no more memories
// than the share holds of these are read.
const minMemoryLine = 35

// kindRank orders memory kinds in context: constraints and decisions
// first, then root causes, then todos.
func kindRank(k string) int {
	switch k {
	case models.MemoryConstraint, models.MemoryDecision:
		return 0
	case models.MemoryCause:
		return 1
	}
	return 2
}

// MemoryRef is how context and tools name a memory: "m12" (an
// observation is "#12": package ref).
func MemoryRef(id int64) string { return ref.Mem(id) }

// memoriesSection is the memories in force of the project (and, in a
// teammate's session, that person's own proposed ones), as lines:
// pinned first, constraints and decisions before causes and todos, newest
// first; kinds the settings switch off are left out. It fills at most
// share bytes (title included), whole lines only.
func (b *Builder) memoriesSection(ctx context.Context, project, person string, share int, c cleaner) (section, error) {
	sec := section{title: "## Memories in force (decisions, constraints, causes, todos)"}
	if share <= 0 {
		return sec, nil
	}
	mems, err := b.Store.MemoriesInForce(ctx, project, person, min(memoriesConsidered, share/minMemoryLine+1))
	if err != nil {
		return sec, err
	}
	st := c.p.Settings.Memory
	kept := mems[:0]
	for _, m := range mems {
		if st.KindEnabled(m.Kind) {
			kept = append(kept, m)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Pinned != b.Pinned {
			return a.Pinned
		}
		if ra, rb := kindRank(a.Kind), kindRank(b.Kind); ra != rb {
			return ra < rb
		}
		return a.ID > b.ID
	})
	left := share - len(sec.title) - 2
	check := filestate.NewChecker()
	w := memoryWho{person: person, now: b.now()}
	for _, m := range kept {
		line := memoryLine(m, check, c, w)
		if len(line)+1 > left {
			break
		}
		left -= len(line) + 1
		sec.items = append(sec.items, line)
		sec.ids = append(sec.ids, m.ID)
	}
	return sec, nil
}

// memoryLine is one memory on one line: its id, then memoryBody.
func memoryLine(m models.Memory, check *filestate.Checker, c cleaner, w memoryWho) string {
	return "- " + MemoryRef(m.ID) + " " + memoryBody(m, check, c, w)
}

// memoryWho is what a memory's line is said relative to: who reads it
// (the session's person, "" for the owner), today, and an age to show
// instead of the date ("" for the date).
type memoryWho struct {
	person string
	now    time.Time
	age    string
}

// memoryBody is a memory's head, then its text: kind, who said it, when
// (MM-DD this year, else the whole date; or the age when set), and what
// else holds ("pinned", "proposed": a teammate's own not yet accepted, a
// file it names changed or gone since), then the text, and its subject
// when the text does not say it: "decision, user, 11-26: Use pnpm".
func memoryBody(m models.Memory, check *filestate.Checker, c cleaner, w memoryWho) string {
	notes := []string{m.Kind, contextVoice(m, w.person), shortDate(m.CreatedAt, w.now)}
	if w.age != "" {
		notes[2] = w.age
	}
	if m.Pinned {
		notes = append(notes, "pinned")
	}
	if m.State == models.MemoryProposed {
		notes = append(notes, "proposed")
	}
	if mark := memoryFileMark(m, check); mark != "" {
		notes = append(notes, mark)
	}
	text := c.text(m.Text, 300)
	if sub := c.text(m.Subject, 40); sub != "" && len(m.Subject) <= 40 && !strings.Contains(strings.ToLower(text), strings.ToLower(sub)) {
		text += " [" + sub + "]"
	}
	return strings.Join(notes, ", ") + ": " + text
}

// contextVoice is who said m, as the session of person (its Claude) reads
// it: "user" for the session's own user (the owner in the owner's
// sessions; a teammate in their own), "owner" for the owner seen from a
// teammate's session, "Claude", a teammate by name, or "quoted: FILE".
// Not "you": the reader is Claude.
func contextVoice(m models.Memory, person string) string {
	switch m.Speaker {
	case models.SpeakerUser:
		if person != "" {
			return "owner"
		}
		return "user"
	case models.SpeakerTeammate:
		if person != "" && m.SpeakerRef == person {
			return "user"
		}
	}
	return m.Voice()
}

// shortDate is t as a memory's line dates it: "11-26" in now's year,
// "2025-11-26" before (UTC).
func shortDate(t, now time.Time) string {
	t = t.UTC()
	if t.Year() == now.UTC().Year() {
		return t.Format("01-02")
	}
	return t.Format(time.DateOnly)
}

// memoryFileMark is "changed since" when a file the memory names changed
// after it was made, "gone since" when one is gone, else "".
func memoryFileMark(m models.Memory, check *filestate.Checker) string {
	mark := ""
	for _, fs := range m.FileStates {
		switch check.Status(filestate.Of(fs)) {
		case filestate.Gone:
			return "gone since"
		case filestate.Changed:
			mark = "changed since"
		}
	}
	return mark
}
