// Package memory turns what a turn said into memories (models.Memory) and
// keeps them in force: a newer statement on the same subject supersedes
// an older one, a todo a later answer completes is done.
//
// The statements come from the pure extractor (package extract) or from
// an LLM summarizer's structured output; both fill the same rows. Work is
// split so that the writer never waits for a read: Prepare reads the
// project's memories in force and the named files' states (off the
// writer), and Batch.Write stores everything in the caller's transaction.
package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/memory/extract"
	"github.com/mneme-dev/mneme/models"
)

// candidates bounds how many memories in force of a project a new one is
// compared with: the newest.
const candidates = 5000

// Turn is one turn to extract memories from.
type Turn struct {
	Project      string
	SessionID    int64
	PromptNumber int
	Cwd          string   // the session's directory, to read named files
	Prompts      []string // the user's prompt(s) of the turn
	Answer       string   // Claude's answer of the turn
	// PrevPrompt and PrevAnswer are the turn before in the same session:
	// the question asked and the options Claude offered, which a prompt
	// may choose among.
	PrevPrompt, PrevAnswer string
	// Person is who captured the session in team mode ("" is the owner);
	// Trusted tells whether the owner trusts that person's memories.
	Person  string
	Trusted bool
	// Imported is the transcript file of an imported session ("" for a
	// live one): the memory says where it was read.
	Imported string
	// Tools are what the turn's tools returned and the files it read: an
	// answer's statement copied from one of them is a quote of it.
	Tools []ToolText
	At    time.Time
}

// Statement is a memory as a source states it, before it is stored.
type Statement struct {
	extract.Memory
	Source string // models.SourceAnswer, SourcePrompt, …
}

// Extract runs the heuristic extractor over the turn: the prompts (the
// user's constraints and corrections, and a choice among the options
// the answer before offered) and the answer, keeping the kinds st
// enables.
func Extract(t Turn, st models.MemorySettings) []Statement {
	var out []Statement
	topic := ""
	if len(t.Prompts) > 0 {
		topic = extract.PromptTopic(t.Prompts[0])
	}
	for _, p := range t.Prompts {
		if m, ok := extract.FromChoice(t.PrevPrompt, t.PrevAnswer, p); ok {
			out = append(out, Statement{Memory: m, Source: models.SourcePrompt})
			continue
		}
		for _, m := range extract.FromPrompt(p) {
			if m.Subject == "" {
				// "Add pagination to /api/orders/. And a general rule: no
				// list endpoint may …": a rule that names no subject of
				// its own is about what the prompt is about.
				m.Subject = topic
			}
			out = append(out, Statement{Memory: m, Source: models.SourcePrompt})
		}
	}
	decided := len(out) // the prompts' statements
	carried := func(m extract.Memory) bool {
		// "We're dropping Vitest" — "Vitest and its config are removed.":
		// the answer carries out the user's decision or rule.
		return !m.Quoted && (slices.ContainsFunc(out[:decided], func(d Statement) bool { return extract.Carries(m, d.Memory) }) ||
			// "`WAKEUP_PERIOD_S` is 300 now." after "every 5 minutes is
			// the rule": in a turn whose prompt made a choice, Claude's
			// decision with no reason of its own (why, or over what) that
			// tells a change or shares a word with the choice is that
			// choice carried out.
			m.Kind == extract.KindDecision && !extract.OwnReason(m.Text) && slices.ContainsFunc(out[:decided], func(d Statement) bool {
				return !d.Quoted && isChoice(string(d.Kind)) && (m.Change || extract.Near(m, d.Memory))
			}))
	}
	chose := func() bool {
		return slices.ContainsFunc(out[:decided], func(d Statement) bool { return d.Kind == extract.KindDecision })
	}
	for _, m := range extract.FromAnswer(t.Answer) {
		if carried(m) {
			continue // by its own subject: "Reverted the audio path to the SDL2 queue" after "Back to SDL2 for audio after all"
		}
		if topic != "" && !m.Quoted && (m.WeakSubject && m.Kind != extract.KindTodo || m.Kind == extract.KindCause && !extract.OwnCauseSubject(m)) {
			// "Add an audit trail for admin actions" — "Admin actions go
			// to an append-only table instead of the log pipeline": the
			// answer is about what the prompt asked. A root cause is the
			// cause of what the prompt reported; a todo names its own.
			m.Subject = topic
			if carried(m) {
				continue
			}
		}
		// "…, as you chose" tells the user's pick only right after Claude
		// asked them to choose; anywhere else it is Claude's own words.
		m.UsersChoice = m.UsersChoice && !m.Quoted && extract.AsksToChoose(t.PrevAnswer)
		if m.UsersChoice && chose() {
			continue // the prompt's choice, already read
		}
		if m.UsersChoice {
			if asked := extract.PromptTopic(t.PrevPrompt); asked != "" {
				m.Subject = asked // the question the options answered
			}
		}
		out = append(out, Statement{Memory: m, Source: models.SourceAnswer})
	}
	return Enabled(QuotedFromTools(partOfChange(out), t.Tools), st)
}

// partOfChange drops Claude's statements that only tell what a change of
// the turn took away ("`tsup` and its config are removed" after "took
// bundling out: the extension ships plain tsc output"): part of that
// change, no choice of their own.
func partOfChange(out []Statement) []Statement {
	other := slices.ContainsFunc(out, func(s Statement) bool {
		return isChoice(string(s.Kind)) && !s.Quoted && !extract.RemovalOnly(s.Text)
	})
	var keep []Statement
	for _, s := range out {
		if other && s.Source == models.SourceAnswer && s.Kind == extract.KindDecision && !s.Quoted && extract.RemovalOnly(s.Text) {
			continue
		}
		keep = append(keep, s)
	}
	return keep
}

// QuotedFromTools marks the answer statements that copy what a tool of
// the turn returned, or a file it read, as quotes of it: Claude repeating
// a file's "Decision: …" line is the file speaking, not Claude.
func QuotedFromTools(in []Statement, tools []ToolText) []Statement {
	if len(tools) == 0 {
		return in
	}
	texts := make([]string, len(tools))
	for i, tt := range tools {
		texts[i] = tt.Text
	}
	for i := range in {
		s := &in[i]
		if s.Quoted || s.Source == models.SourcePrompt {
			continue
		}
		ev := s.Evidence
		if ev == "" {
			ev = s.Text
		}
		if j, ok := extract.QuotedIn(ev, texts); ok {
			s.Quoted, s.QuotedFrom = true, tools[j].Ref
		} else if j, ok := extract.QuotedIn(s.Text, texts); ok {
			s.Quoted, s.QuotedFrom = true, tools[j].Ref
		}
	}
	return in
}

// provenance gives m its speaker and state: a quote is noted, never in
// force; a teammate's memory is proposed until the owner accepts it,
// unless the owner trusts that person.
func (t Turn) provenance(m *models.Memory, s Statement) {
	m.State = models.MemoryCurrent
	switch {
	case s.Quoted:
		m.Speaker, m.SpeakerRef, m.State = models.SpeakerQuoted, s.QuotedFrom, models.MemoryNoted
	case t.Person != "":
		m.Speaker, m.SpeakerRef = models.SpeakerTeammate, t.Person
		if !t.Trusted {
			m.State = models.MemoryProposed
		}
	case s.Source == models.SourcePrompt, s.UsersChoice && s.Source == models.SourceAnswer:
		// "…, as you chose": the answer tells the user's choice.
		m.Speaker = models.SpeakerUser
	default:
		m.Speaker = models.SpeakerClaude
	}
	if s.Source == models.SourceAnswer && m.Kind == models.MemoryConstraint && m.State != models.MemoryNoted {
		// A rule is the user's or the project's to set. Stated in an
		// answer, it repeats one the user set (kept from their prompt)
		// or one a source states that the quote patterns missed ("The
		// upstream docs' position is: never …"): a note, searchable,
		// never injected as a rule.
		m.State = models.MemoryNoted
	}
	if t.Imported != "" && m.Speaker != models.SpeakerQuoted && m.Speaker != models.SpeakerTeammate {
		m.SpeakerRef = t.Imported
	}
}

// MayReplace reports whether newer, a memory in force, may replace older
// by who said each: a user's constraint only by the user; the user's
// other memories by the user or Claude of the owner's sessions; a
// teammate's by anyone in force; Claude's by any voice in force.
func MayReplace(newer, older models.Memory) bool {
	if newer.State != models.MemoryCurrent {
		return false
	}
	switch older.Speaker {
	case models.SpeakerUser:
		if older.Kind == models.MemoryConstraint {
			// The user in their own words: not an answer that says it
			// carries out their choice.
			return newer.Speaker == models.SpeakerUser && newer.Source != models.SourceAnswer
		}
		return newer.Speaker == models.SpeakerUser || newer.Speaker == models.SpeakerClaude
	case models.SpeakerQuoted:
		return false // never in force: nothing to replace
	}
	return true
}

// Enabled keeps the statements of the kinds st enables.
func Enabled(in []Statement, st models.MemorySettings) []Statement {
	out := in[:0:0]
	for _, s := range in {
		if st.KindEnabled(string(s.Kind)) {
			out = append(out, s)
		}
	}
	return out
}

// Batch is a turn's new memories with what they do to older ones, ready
// to be written in one transaction.
type Batch struct {
	New []models.Memory
	// supersedes[i] are the ids of memories in force that New[i] replaces.
	supersedes [][]int64
	// completes are the todos in force that the answer completes, by
	// the answer's speaker.
	completes []int64
	by        string
}

// Prepare builds the rows of statements for turn (clean is the privacy
// pipeline, applied to every text; nil keeps them as they are), reads the
// project's memories in force, and decides which of them the new ones
// supersede and which todos the turn's answer completes. It reads the
// named files' states too, so context can later tell a file changed.
func Prepare(ctx context.Context, store *models.Store, t Turn, statements []Statement, clean func(string) string) (*Batch, error) {
	if clean == nil {
		clean = func(s string) string { return s }
	}
	b := &Batch{}
	cache := &filestate.Cache{}
	for _, s := range statements {
		m := models.Memory{
			SessionID: t.SessionID, Project: t.Project, PromptNumber: t.PromptNumber, Source: s.Source,
			Kind: string(s.Kind), Text: clean(s.Text), Files: cleanAll(s.Files, clean), Idents: cleanAll(s.Idents, clean),
			Terms: cleanAll(s.Terms, clean), Change: s.Change, CreatedAt: t.At,
			Subject: clean(s.Subject), Evidence: clean(s.Evidence),
		}
		t.provenance(&m, s)
		if m.SpeakerRef != "" {
			m.SpeakerRef = clean(m.SpeakerRef)
		}
		for _, f := range m.Files {
			if abs := filestate.Abs(f, t.Cwd); abs != "" {
				st := cache.Read(abs)
				m.FileStates = append(m.FileStates, models.FileState{Path: abs, Kind: st.Kind, SHA256: st.SHA256, Size: st.Size, MtimeNS: st.MtimeNS})
			}
		}
		b.New = append(b.New, m)
	}
	if len(b.New) == 0 && strings.TrimSpace(t.Answer) == "" {
		b.supersedes = make([][]int64, 0)
		return b, nil
	}
	older, err := store.Memories(ctx, models.MemoryFilter{Project: t.Project, States: []string{models.MemoryCurrent}, Limit: candidates})
	if err != nil {
		return nil, err
	}
	same := sameAnswer(t, b.New, older)
	b.New = dropRepeated(b.New, older, same)
	b.supersedes = make([][]int64, len(b.New))
	for i := range b.New {
		m := &b.New[i]
		nm := ExtractForm(*m)
		for _, o := range older {
			if !same(o) && m.Speaker == models.SpeakerTeammate && m.State == models.MemoryCurrent &&
				m.Kind == models.MemoryConstraint && o.Kind == models.MemoryConstraint && o.Speaker == models.SpeakerUser &&
				(extract.SameTopic(nm, ExtractForm(o)) || extract.Touches(nm, ExtractForm(o)) || extract.Retires(nm, ExtractForm(o))) {
				// A teammate's rule on a subject the owner has a rule
				// on ("from now on just use squirrel" after "use sqlc for
				// all new queries"), or on what it speaks of ("pushing
				// to main is fine for docs" after "never commit directly
				// to main"), or one that drops what the owner's
				// names ("the Atlantis-only rule is dropped"): the owner
				// decides.
				m.State = models.MemoryProposed
			}
			if same(o) || !extract.Supersedes(nm, ExtractForm(o)) {
				continue // the same answer does not contradict itself
			}
			if MayReplace(*m, o) {
				b.supersedes[i] = append(b.supersedes[i], o.ID)
			} else if m.Speaker == models.SpeakerTeammate && m.State == models.MemoryCurrent {
				// A trusted teammate going against the owner's rule: the
				// owner decides (proposed), both are never in force.
				m.State = models.MemoryProposed
			}
		}
	}
	b.replaceLast(t, older, same)
	// A todo is done when the turn's answer says so in the voice of the
	// project (Claude, a trusted teammate's Claude), never in a quote.
	if t.Answer != "" && (t.Person == "" || t.Trusted) {
		answer := extract.Unquoted(t.Answer)
		for _, o := range older {
			if o.Kind == models.MemoryTodo && !same(o) && extract.Completes(answer, ExtractForm(o)) {
				b.completes = append(b.completes, o.ID)
			}
		}
	}
	b.by = models.SpeakerClaude
	if t.Person != "" {
		b.by = models.SpeakerTeammate + ":" + t.Person
	}
	return b, nil
}

// replaceLast lets the turn's change of design replace what the
// conversation points at without naming its subject: the last change
// when it says it changes again ("Switched again: Odoo Online" after
// "moving the instance to our own Docker host"); a decision whose thing
// the turn's answer took out ("… and removed our RAF tracking calls") or
// its prompt found fault with ("testers hate dragging"); and the
// decision of the session's last turn that had one, when this turn
// speaks of it. A decision and a user's rule speak of the same choices
// ("The floor is now 1.74" — "Minimum supported Rust version from now
// on: 1.79"); who may replace whom is MayReplace's.
func (b *Batch) replaceLast(t Turn, older []models.Memory, same func(models.Memory) bool) {
	var removed, faulted []string
	if t.Person == "" || t.Trusted {
		removed = extract.Removed(extract.Unquoted(t.Answer))
	}
	for _, p := range t.Prompts {
		faulted = append(faulted, extract.Faulted(p)...)
	}
	turnText := strings.Join(append(slices.Clone(t.Prompts), extract.Unquoted(t.Answer)), "\n")
	prevTurn := extract.TextMemory(t.PrevPrompt + "\n" + extract.Unquoted(t.PrevAnswer))
	pointed := false // the turn's first choice took what it points at
	for i := range b.New {
		m := &b.New[i]
		if !isChoice(m.Kind) || m.State != models.MemoryCurrent || m.Speaker == models.SpeakerQuoted {
			continue
		}
		replaceable := func(o models.Memory) bool { return !same(o) && isChoice(o.Kind) && MayReplace(*m, o) }
		replace := func(o models.Memory) {
			if replaceable(o) && !slices.Contains(b.supersedes[i], o.ID) {
				b.supersedes[i] = append(b.supersedes[i], o.ID)
			}
		}
		if m.Change && m.Kind == models.MemoryDecision && extract.SaysAgain(m.Text) {
			if o := lastChange(*m, older, replaceable); o != nil {
				replace(*o)
			}
		}
		if !pointed {
			pointed = true
			for _, o := range older {
				took := m.Change && slices.ContainsFunc(removed, func(w string) bool { return slices.Contains(o.Terms, w) })
				// "Testers hate dragging to rotate" — "standardised on
				// MagnifyGesture …": the user found fault with the choice
				// the new one takes the place of.
				faults := slices.ContainsFunc(faulted, func(w string) bool { return extract.Names(ExtractForm(o), w) })
				if took || faults {
					replace(o)
				}
			}
		}
		if m.Change && m.SessionID != 0 {
			for _, o := range lastTurnSpokenOf(*m, older, same, turnText, prevTurn) {
				replace(o)
			}
		}
	}
}

// isChoice reports whether kind is a decision or a rule.
func isChoice(kind string) bool {
	return kind == models.MemoryDecision || kind == models.MemoryConstraint
}

// lastChange is the last change in force that m may replace — of those
// that share a word with m, if any do — whether or not m replaces it on
// its own already: never one before it.
func lastChange(m models.Memory, older []models.Memory, replaceable func(models.Memory) bool) *models.Memory {
	var last, lastNamed *models.Memory
	for j := range older {
		o := &older[j]
		if !o.Change || !replaceable(*o) {
			continue
		}
		if last == nil || o.CreatedAt.After(last.CreatedAt) {
			last = o
		}
		if slices.ContainsFunc(o.Terms, func(w string) bool { return slices.Contains(m.Terms, w) }) &&
			(lastNamed == nil || o.CreatedAt.After(lastNamed.CreatedAt)) {
			lastNamed = o
		}
	}
	if lastNamed != nil {
		return lastNamed
	}
	return last
}

// lastTurnSpokenOf are the choices in force of the session's last turn
// before m's that made any ("the CI box is full every week" — "Moved the
// build artifacts to the shared NFS volume"), when they are on one
// subject ("Swap it for redpanda" and Claude's "Replaced Mosquitto with
// Redpanda: …") and m's turn speaks of them — or, right after their
// turn, of what that turn was about by a name it used ("Bumped
// `rust-version` … to 1.74" — "Updated `rust-version` … to 1.79").
func lastTurnSpokenOf(m models.Memory, older []models.Memory, same func(models.Memory) bool, turnText string, prevTurn extract.Memory) []models.Memory {
	last := 0
	for _, o := range older {
		if o.SessionID == m.SessionID && o.PromptNumber < m.PromptNumber && isChoice(o.Kind) && !same(o) {
			last = max(last, o.PromptNumber)
		}
	}
	var prev []models.Memory
	for _, o := range older {
		if o.SessionID == m.SessionID && o.PromptNumber == last && isChoice(o.Kind) && !same(o) {
			prev = append(prev, o)
		}
	}
	if len(prev) == 0 || slices.ContainsFunc(prev[1:], func(o models.Memory) bool { return !extract.SameTopic(ExtractForm(o), ExtractForm(prev[0])) }) {
		return nil
	}
	if slices.ContainsFunc(prev, func(o models.Memory) bool { return extract.SpeaksOf(turnText, ExtractForm(o)) }) ||
		last == m.PromptNumber-1 && extract.SpeaksOfName(turnText, prevTurn) {
		return prev
	}
	return nil
}

// fromAnswer reports whether a memory was read from Claude's answer (by
// the extractor or an LLM summarizer), not from the user's prompt.
func fromAnswer(source string) bool {
	return source == models.SourceAnswer || source == models.SourceSummary
}

// sameAnswer tells which memories in force came from the answer the turn
// t states again: memories of t's own turn (its summary job run again),
// and those of an earlier turn of the session whose answer memories all
// recur among t's (a Stop that repeats an earlier answer: a turn with no
// new answer, whose last assistant message is read back from the
// transcript). Memories of one answer are never compared with each
// other: a list that says "went with X" and then "switched from X to Y"
// states both, it does not replace one by the other.
func sameAnswer(t Turn, fresh, older []models.Memory) func(models.Memory) bool {
	texts := map[string]bool{}
	for _, m := range fresh {
		if fromAnswer(m.Source) {
			texts[strings.ToLower(m.Text)] = true
		}
	}
	// Per earlier turn of the session: does every memory of its answer
	// recur now?
	repeated := map[int]bool{}
	for _, o := range older {
		if o.SessionID != t.SessionID || t.SessionID == 0 || !fromAnswer(o.Source) {
			continue
		}
		ok, seen := repeated[o.PromptNumber]
		if !seen {
			ok = true
		}
		repeated[o.PromptNumber] = ok && texts[strings.ToLower(o.OriginalText)]
	}
	return func(o models.Memory) bool {
		if t.SessionID == 0 || o.SessionID != t.SessionID {
			return false
		}
		return o.PromptNumber == t.PromptNumber || repeated[o.PromptNumber] && fromAnswer(o.Source)
	}
}

// dropRepeated leaves out of fresh the answer memories an earlier turn of
// the same answer stored already (same reports it).
func dropRepeated(fresh, older []models.Memory, same func(models.Memory) bool) []models.Memory {
	stored := map[string]bool{}
	for _, o := range older {
		if same(o) && fromAnswer(o.Source) {
			stored[strings.ToLower(o.OriginalText)] = true
		}
	}
	kept := fresh[:0]
	for _, m := range fresh {
		if !fromAnswer(m.Source) || !stored[strings.ToLower(m.Text)] {
			kept = append(kept, m)
		}
	}
	return kept
}

func cleanAll(in []string, clean func(string) string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s = clean(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ExtractForm is a stored memory as the extractor compares it.
func ExtractForm(m models.Memory) extract.Memory {
	return extract.Memory{Kind: extract.Kind(m.Kind), Text: m.Text, Files: m.Files, Idents: m.Idents, Terms: m.Terms, Change: m.Change, Subject: m.Subject}
}

// Write stores the batch in tx: the new memories, then the supersessions
// and completions (of memories still in force: a user's pin or retire
// meanwhile wins). Each row stored or changed appends its memory event,
// published after the commit. It reports how many memories were stored.
func (b *Batch) Write(tx *models.Tx) (int, error) {
	n := 0
	for i := range b.New {
		m := &b.New[i]
		ok, err := tx.InsertMemory(m)
		if err != nil {
			return n, err
		}
		if !ok {
			continue // stored by an earlier run of the same job
		}
		n++
		for _, old := range b.supersedes[i] {
			if _, err := tx.SupersedeMemory(old, m.ID); err != nil {
				return n, err
			}
		}
	}
	for _, id := range b.completes {
		if _, err := tx.CompleteMemory(id, b.by); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Replaced lists the project's memories in force that m, coming into
// force now (a teammate's proposal the owner accepts), replaces: as a
// new memory of a turn would, by subject, with the owner's authority.
func Replaced(ctx context.Context, store *models.Store, m models.Memory) ([]int64, error) {
	older, err := store.Memories(ctx, models.MemoryFilter{Project: m.Project, States: []string{models.MemoryCurrent}, Limit: candidates})
	if err != nil {
		return nil, err
	}
	// The owner's acceptance is the owner's act: the proposal replaces
	// what the owner's own word could.
	owner := m
	owner.State, owner.Speaker = models.MemoryCurrent, models.SpeakerUser
	nm := ExtractForm(m)
	var out []int64
	for _, o := range older {
		if o.ID != m.ID && MayReplace(owner, o) && extract.Supersedes(nm, ExtractForm(o)) {
			out = append(out, o.ID)
		}
	}
	return out, nil
}
