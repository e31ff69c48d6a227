package recall

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/models"
)

// memoriesConsidered bounds the memories in force read for one
// SessionStart: pinned first, then the newest.
const memoriesConsidered = 200

// minMemoryLine is the shortest a memory's line can be ("- #m1 todo: "
// and a text of 8 characters, then its date): no more memories than the
// share holds of these are read.
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

// MemoryRef is how context and tools name a memory: "#m12" (an
// observation is "#12").
func MemoryRef(id int64) string { return fmt.Sprintf("#m%d", id) }

// memoriesSection is the memories in force of the project, as lines:
// pinned first, constraints and decisions before causes and todos, newest
// first; kinds the settings switch off are left out. It fills at most
// share bytes (title included), whole lines only.
func (b *Builder) memoriesSection(ctx context.Context, project string, share int, c cleaner) (section, error) {
	sec := section{title: "## Memories in force (decisions, constraints, causes, todos)"}
	if share <= 0 {
		return sec, nil
	}
	mems, err := b.Store.MemoriesInForce(ctx, project, min(memoriesConsidered, share/minMemoryLine+1))
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
	for _, m := range kept {
		line := memoryLine(m, check, c, "")
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
func memoryLine(m models.Memory, check *filestate.Checker, c cleaner, age string) string {
	return "- " + MemoryRef(m.ID) + " " + memoryBody(m, check, c, age)
}

// memoryBody is a memory's kind, text, date (or age when set) and, when a
// file it names changed or is gone since it was made, a mark saying so.
func memoryBody(m models.Memory, check *filestate.Checker, c cleaner, age string) string {
	when := m.CreatedAt.UTC().Format(time.DateOnly)
	if age != "" {
		when = age
	}
	var notes []string
	notes = append(notes, when)
	if m.Pinned {
		notes = append(notes, "pinned")
	}
	if mark := memoryFileMark(m, check); mark != "" {
		notes = append(notes, mark)
	}
	return fmt.Sprintf("%s: %s (%s)", m.Kind, c.text(m.Text, 300), strings.Join(notes, ", "))
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
