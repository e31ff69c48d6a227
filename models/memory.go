package models

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Memory kinds: what a memory states.
const (
	MemoryDecision   = "decision"   // what was chosen, over what
	MemoryConstraint = "constraint" // a rule the user or the project set
	MemoryCause      = "cause"      // the root cause of a failure
	MemoryTodo       = "todo"       // a next step left open
)

// MemoryKinds lists the kinds in the order injected context shows them.
var MemoryKinds = []string{MemoryConstraint, MemoryDecision, MemoryCause, MemoryTodo}

// Memory states.
const (
	MemoryCurrent    = "current"    // in force
	MemorySuperseded = "superseded" // replaced by SupersededBy
	MemoryDone       = "done"       // a todo a later turn completed
	MemoryRetired    = "retired"    // retired by the user
	// MemoryNoted is text Claude quoted or reported (a file, a command's
	// output, a page): searchable, with its source, never in force.
	MemoryNoted = "noted"
	// MemoryProposed is a teammate's memory awaiting the owner's
	// acceptance (team mode): not in force until accepted.
	MemoryProposed = "proposed"
)

// Speakers: who said a memory (Memory.Speaker). Only the project's own
// voices make memories in force: the user, Claude's own conclusions, and
// teammates the owner trusts or accepted.
const (
	SpeakerUser     = "user"     // the owner: a prompt, the Memory page, remember from the user
	SpeakerClaude   = "claude"   // Claude's own conclusion in an answer, or remember through MCP
	SpeakerQuoted   = "quoted"   // a document or command Claude quoted or reported (SpeakerRef: which)
	SpeakerTeammate = "teammate" // another person of a team (SpeakerRef: the person)
)

// ValidSpeaker reports whether s is a speaker.
func ValidSpeaker(s string) bool {
	switch s {
	case SpeakerUser, SpeakerClaude, SpeakerQuoted, SpeakerTeammate:
		return true
	}
	return false
}

// Memory sources: where a memory came from.
const (
	SourceAnswer  = "answer"  // Claude's answer of a turn, by the heuristic extractor
	SourcePrompt  = "prompt"  // the user's prompt of a turn
	SourceSummary = "summary" // an LLM summarizer's structured output for a turn
	SourceClaude  = "claude"  // stated by Claude through MCP's remember
	SourceUser    = "user"    // written by the user
)

// MaxMemoryText bounds a memory's text, its evidence and its subject's
// and speaker's names.
const (
	MaxMemoryText     = 1000
	MaxMemorySubject  = 120
	MaxMemorySpeakRef = 300
)

// Memory is one statement worth carrying forward: a decision, a
// constraint, a root cause or a todo, with where it came from, the files
// and identifiers it names, and whether it is still in force. Text is
// what is injected; OriginalText is what was extracted or stated, kept
// when the user edits Text.
type Memory struct {
	ID int64 `gorm:"primaryKey" json:"id"`
	// SessionID is the session the memory came from, 0 for one stated
	// outside a session (stored as NULL).
	SessionID    int64    `json:"sessionId,omitempty"`
	Project      string   `json:"project"`
	PromptNumber int      `json:"promptNumber,omitempty"`
	Source       string   `json:"source"`
	Kind         string   `json:"kind"`
	Text         string   `json:"text"`
	OriginalText string   `json:"originalText"`
	Files        []string `gorm:"serializer:json" json:"files"`
	Idents       []string `gorm:"serializer:json" json:"idents"`
	// Terms and Change are what supersession compares (the key words of
	// the statement, and whether it announces a change: "instead",
	// "switched", "no longer").
	Terms  []string `gorm:"serializer:json" json:"terms,omitempty"`
	Change bool     `json:"change,omitempty"`
	// FileStates are the named files as they were when the memory was
	// made, so context can say a file changed since.
	FileStates   []FileState `gorm:"serializer:json" json:"fileStates,omitempty"`
	State        string      `json:"state"`
	SupersededBy int64       `json:"supersededBy,omitempty"`
	Pinned       bool        `json:"pinned"`
	CreatedAt    time.Time   `json:"createdAt"`
	UpdatedAt    time.Time   `json:"updatedAt"`

	// Provenance. Speaker is who said it (SpeakerUser, …), SpeakerRef
	// which document or command (quoted), which person (teammate), or the
	// transcript file of an imported session's memory. Evidence is the
	// span it was read from, as read (cleaned like every stored text);
	// with SessionID and PromptNumber (the turn) it says where.
	Speaker    string `json:"speaker"`
	SpeakerRef string `json:"speakerRef,omitempty"`
	Evidence   string `json:"evidence,omitempty"`
	// Subject is what the memory is about ("cache", "config format"):
	// a newer memory on the same subject replaces an older one.
	Subject string `json:"subject,omitempty"`
	// InForceAt is when the memory came into force (nil: never, as a
	// noted quote or a proposal not yet accepted); EndedAt when it left
	// force (superseded, done, retired) and EndedBy who ended it (a
	// speaker, or "teammate:NAME"). Together they answer what held on a
	// date (MemoryFilter.AsOf).
	InForceAt *time.Time `json:"inForceAt,omitempty"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
	EndedBy   string     `json:"endedBy,omitempty"`
}

// Voice is how a speaker is named where a memory is shown: "you",
// "Claude", a teammate's name, or "quoted: README.md".
func (m *Memory) Voice() string {
	switch m.Speaker {
	case SpeakerUser:
		return "you"
	case SpeakerClaude:
		return "Claude"
	case SpeakerTeammate:
		if m.SpeakerRef != "" {
			return m.SpeakerRef
		}
		return "a teammate"
	case SpeakerQuoted:
		if m.SpeakerRef != "" {
			return "quoted: " + m.SpeakerRef
		}
		return "quoted"
	}
	return "unknown"
}

// speakerLabel is the speaker as EndedBy records it: the speaker, or
// "teammate:NAME".
func (m *Memory) speakerLabel() string {
	if m.Speaker == SpeakerTeammate && m.SpeakerRef != "" {
		return SpeakerTeammate + ":" + m.SpeakerRef
	}
	return m.Speaker
}

// inForceOn reports whether the memory was in force at t.
func (m *Memory) inForceOn(t time.Time) bool {
	return m.InForceAt != nil && !m.InForceAt.After(t) && (m.EndedAt == nil || m.EndedAt.After(t))
}

// memoryColumns are the columns a Memory is read from, session_id as 0
// when NULL.
var memoryColumns = memoryColumnsOf("")

// memoryColumnsOf is memoryColumns of the table aliased alias (with its
// dot), or "" for none.
func memoryColumnsOf(alias string) string {
	cols := []string{"id", "COALESCE(" + alias + "session_id, 0) AS session_id", "project", "prompt_number", "source", "kind",
		"text", "original_text", "files", "idents", "terms", "change", "file_states", "state", "superseded_by", "pinned",
		"created_at", "updated_at", "speaker", "speaker_ref", "evidence", "subject", "in_force_at", "ended_at", "ended_by"}
	for i, c := range cols {
		if i != 1 {
			cols[i] = alias + c
		}
	}
	return strings.Join(cols, ", ")
}

// ValidMemoryKind reports whether k is a memory kind.
func ValidMemoryKind(k string) bool {
	for _, x := range MemoryKinds {
		if k == x {
			return true
		}
	}
	return false
}

// ValidMemoryState reports whether s is a memory state.
func ValidMemoryState(s string) bool {
	switch s {
	case MemoryCurrent, MemorySuperseded, MemoryDone, MemoryRetired, MemoryNoted, MemoryProposed:
		return true
	}
	return false
}

// normalize fills what a memory must have before it is stored.
func (m *Memory) normalize() error {
	m.Text = clipBytes(strings.TrimSpace(m.Text), MaxMemoryText)
	if m.Text == "" {
		return fmt.Errorf("%w: empty memory", ErrInvalid)
	}
	if !ValidMemoryKind(m.Kind) {
		return fmt.Errorf("%w: memory kind %q", ErrInvalid, m.Kind)
	}
	if m.OriginalText == "" {
		m.OriginalText = m.Text
	}
	m.OriginalText = clipBytes(m.OriginalText, MaxMemoryText)
	if m.State == "" {
		m.State = MemoryCurrent
	}
	if !ValidMemoryState(m.State) {
		return fmt.Errorf("%w: memory state %q", ErrInvalid, m.State)
	}
	if m.Speaker == "" {
		m.Speaker = speakerOfSource(m.Source)
	}
	if !ValidSpeaker(m.Speaker) {
		return fmt.Errorf("%w: memory speaker %q", ErrInvalid, m.Speaker)
	}
	if m.Speaker == SpeakerQuoted && (m.State == MemoryCurrent || m.State == MemoryProposed) {
		m.State = MemoryNoted // a quote is never in force
	}
	m.SpeakerRef = clipBytes(strings.TrimSpace(m.SpeakerRef), MaxMemorySpeakRef)
	m.Subject = clipBytes(strings.TrimSpace(m.Subject), MaxMemorySubject)
	m.Evidence = clipBytes(m.Evidence, MaxMemoryText)
	for _, l := range []*[]string{&m.Files, &m.Idents, &m.Terms} {
		if *l == nil {
			*l = []string{}
		}
	}
	if m.FileStates == nil {
		m.FileStates = []FileState{}
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC()
	}
	m.CreatedAt = m.CreatedAt.UTC().Truncate(time.Microsecond)
	m.UpdatedAt = m.CreatedAt
	if m.State == MemoryCurrent && m.InForceAt == nil {
		at := m.CreatedAt
		m.InForceAt = &at
	}
	if m.State == MemoryNoted || m.State == MemoryProposed {
		m.InForceAt, m.EndedAt = nil, nil
	}
	return nil
}

// speakerOfSource is the speaker a memory of source has when nobody said
// otherwise: the user for a prompt or the Memory page, else Claude.
func speakerOfSource(source string) string {
	if source == SourcePrompt || source == SourceUser {
		return SpeakerUser
	}
	return SpeakerClaude
}

// memoryInsert is the INSERT of a memory's columns (but id) and its
// values: InsertMemory's and the restore's.
const memoryInsert = `INSERT INTO memories (session_id, project, prompt_number, source, kind, text, original_text,
		files, idents, terms, change, file_states, state, superseded_by, pinned, created_at, updated_at,
		speaker, speaker_ref, evidence, subject, in_force_at, ended_at, ended_by)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`

// insertValues are m's values for memoryInsert, in session sid.
func (m *Memory) insertValues(sid int64) []any {
	return []any{nullID(sid), m.Project, m.PromptNumber, m.Source, m.Kind, m.Text, m.OriginalText,
		jsonText(m.Files), jsonText(m.Idents), jsonText(m.Terms), m.Change, jsonText(m.FileStates),
		m.State, m.SupersededBy, m.Pinned, m.CreatedAt, m.UpdatedAt,
		m.Speaker, m.SpeakerRef, m.Evidence, m.Subject, m.InForceAt, m.EndedAt, m.EndedBy}
}

// clipBytes cuts s to at most n bytes on a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// nullID is id as a nullable column value: NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// InsertMemory stores m (its ID is set) and appends its EventMemory.
// inserted is false when the same turn already stored the same statement
// (a summary job run again): nothing is written then.
func (tx *Tx) InsertMemory(m *Memory) (inserted bool, err error) {
	if err := m.normalize(); err != nil {
		return false, err
	}
	err = tx.db.Raw(memoryInsert, m.insertValues(m.SessionID)...).Row().Scan(&m.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, tx.memoryEvent(m)
}

// EventMemory announces a memory stored or changed (its state, text or
// pin) on the live stream; its data is the memory.
const EventMemory = "memory"

func (tx *Tx) memoryEvent(m *Memory) error {
	_, err := tx.AppendEvent(EventMemory, m.Project, m.SessionID, m.ID, m)
	return err
}

// memoryByID reads one memory inside tx.
func (tx *Tx) memoryByID(id int64) (*Memory, error) {
	var m Memory
	err := tx.db.Model(&Memory{}).Select(memoryColumns).Where("id = ?", id).Take(&m).Error
	return &m, notFound(err)
}

// updateMemory runs set (an UPDATE's SET clause) on memory id where cond
// holds, then reads it back and announces it. It is ErrNotFound when there
// is no such memory; changed is false when cond did not hold.
func (tx *Tx) updateMemory(id int64, cond, set string, args ...any) (m *Memory, changed bool, err error) {
	q := `UPDATE memories SET ` + set + `, updated_at = ? WHERE id = ?`
	args = append(args, nowMicro(), id)
	if cond != "" {
		q += " AND " + cond
	}
	r := tx.db.Exec(q, args...)
	if r.Error != nil {
		return nil, false, r.Error
	}
	if m, err = tx.memoryByID(id); err != nil {
		return nil, false, err
	}
	if r.RowsAffected == 0 {
		return m, false, nil
	}
	return m, true, tx.memoryEvent(m)
}

// SupersedeMemory marks memory old superseded by memory newer, if old is
// still current; changed tells whether it was. Who ended it is newer's
// speaker.
func (tx *Tx) SupersedeMemory(old, newer int64) (changed bool, err error) {
	if old == newer {
		return false, nil
	}
	n, err := tx.memoryByID(newer)
	if err != nil {
		return false, err
	}
	now := nowMicro()
	_, changed, err = tx.updateMemory(old, "state = 'current' AND NOT pinned", "state = ?, superseded_by = ?, ended_at = ?, ended_by = ?",
		MemorySuperseded, newer, now, n.speakerLabel())
	return changed, err
}

// CompleteMemory marks todo id done, if it is a current todo; by is who
// said it is done (a speaker label).
func (tx *Tx) CompleteMemory(id int64, by string) (changed bool, err error) {
	_, changed, err = tx.updateMemory(id, "state = 'current' AND kind = 'todo'", "state = ?, ended_at = ?, ended_by = ?", MemoryDone, nowMicro(), by)
	return changed, err
}

// PinMemory pins or unpins memory id: pinned memories come first in
// context and are never superseded automatically.
func (tx *Tx) PinMemory(id int64, pinned bool) (*Memory, error) {
	m, _, err := tx.updateMemory(id, "", "pinned = ?", pinned)
	return m, err
}

// EditMemory replaces memory id's text (what is injected from now on);
// its original text is kept.
func (tx *Tx) EditMemory(id int64, text string) (*Memory, error) {
	text = clipBytes(strings.TrimSpace(text), MaxMemoryText)
	if text == "" {
		return nil, fmt.Errorf("%w: empty memory", ErrInvalid)
	}
	m, _, err := tx.updateMemory(id, "", "text = ?", text)
	return m, err
}

// SetMemoryState sets memory id's state by the user's hand: retired (no
// longer injected), done, or current again. Reinstating a superseded
// memory clears its link, and it is in force from now (what held before
// its end keeps no second interval). A quote (noted) is never made
// current: it is not the project's voice.
func (tx *Tx) SetMemoryState(id int64, state string) (*Memory, error) {
	now := nowMicro()
	switch state {
	case MemoryRetired, MemoryDone:
		m, _, err := tx.updateMemory(id, "state <> 'noted'", "state = ?, superseded_by = 0, ended_at = COALESCE(ended_at, ?), ended_by = CASE WHEN state IN ('current') THEN ? ELSE ended_by END",
			state, now, SpeakerUser)
		return m, err
	case MemoryCurrent:
		m, changed, err := tx.updateMemory(id, "state NOT IN ('current', 'noted')", "state = ?, superseded_by = 0, in_force_at = ?, ended_at = NULL, ended_by = ''", state, now)
		if err == nil && !changed && m.State == MemoryNoted {
			return nil, fmt.Errorf("%w: a quoted text (%s) is never a memory in force; state it as your own instead", ErrInvalid, m.Voice())
		}
		return m, err
	}
	return nil, fmt.Errorf("%w: memory state %q", ErrInvalid, state)
}

// AcceptMemory puts a teammate's proposed memory in force (the owner's
// review): it is in force from now. It is ErrInvalid for a memory that
// is not proposed.
func (tx *Tx) AcceptMemory(id int64) (*Memory, error) {
	m, changed, err := tx.updateMemory(id, "state = 'proposed'", "state = ?, in_force_at = ?", MemoryCurrent, nowMicro())
	if err == nil && !changed {
		return nil, fmt.Errorf("%w: memory %d is %s, not proposed", ErrInvalid, id, m.State)
	}
	return m, err
}

// RejectMemory retires a teammate's proposed memory: it never comes
// into force.
func (tx *Tx) RejectMemory(id int64) (*Memory, error) {
	m, changed, err := tx.updateMemory(id, "state = 'proposed'", "state = ?, ended_by = ?", MemoryRetired, SpeakerUser)
	if err == nil && !changed {
		return nil, fmt.Errorf("%w: memory %d is %s, not proposed", ErrInvalid, id, m.State)
	}
	return m, err
}

func nowMicro() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// MemoryByID loads one memory.
func (s *Store) MemoryByID(ctx context.Context, id int64) (*Memory, error) {
	var m Memory
	err := s.db.WithContext(ctx).Model(&Memory{}).Select(memoryColumns).Where("id = ?", id).Take(&m).Error
	return &m, notFound(err)
}

// MemoriesByIDs loads the memories of ids that exist, in no set order.
func (s *Store) MemoriesByIDs(ctx context.Context, ids []int64) ([]Memory, error) {
	var out []Memory
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var part []Memory
		if err := s.db.WithContext(ctx).Model(&Memory{}).Select(memoryColumns).Where("id IN ?", chunk).Find(&part).Error; err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	return out, nil
}

// MemoryFilter narrows a memory listing.
type MemoryFilter struct {
	Project   string
	SessionID int64
	Kinds     []string // any of these kinds; all when empty
	States    []string // any of these states; all when empty
	// File keeps the memories naming this path (exactly, or as a path
	// relative to it when it is absolute).
	File string
	// AsOf keeps the memories that were in force at that time, whatever
	// their state now (States is not applied then).
	AsOf *time.Time
	// Speakers keeps the memories of these speakers; all when empty.
	Speakers []string
	// IDs keeps these memories only; all when empty.
	IDs    []int64
	Offset int
	Limit  int // 0: no limit
}

// asOfCond is the condition "in force at t" on memories aliased alias.
func asOfCond(alias string) string {
	return alias + "in_force_at IS NOT NULL AND " + alias + "in_force_at <= ? AND (" + alias + "ended_at IS NULL OR " + alias + "ended_at > ?)"
}

// Memories lists memories: pinned first, then newest first.
func (s *Store) Memories(ctx context.Context, f MemoryFilter) ([]Memory, error) {
	q := s.db.WithContext(ctx).Model(&Memory{}).Select(memoryColumns)
	if f.Project != "" {
		q = q.Where("project = ?", f.Project)
	}
	if f.SessionID != 0 {
		q = q.Where("session_id = ?", f.SessionID)
	}
	if len(f.IDs) > 0 {
		q = q.Where("id IN ?", f.IDs)
	}
	if len(f.Kinds) > 0 {
		q = q.Where("kind IN ?", f.Kinds)
	}
	if f.AsOf != nil {
		at := f.AsOf.UTC()
		q = q.Where(asOfCond(""), at, at)
	} else if len(f.States) > 0 {
		q = q.Where("state IN ?", f.States)
	}
	if len(f.Speakers) > 0 {
		q = q.Where("speaker IN ?", f.Speakers)
	}
	if f.File != "" {
		// A memory names a file as it was written ("internal/x.go"); the
		// gate asks with an absolute path: match the path's tail.
		q = q.Where("files LIKE ? ESCAPE '\\'", "%"+likeEscape(lastParts(f.File, 0))+"%")
	}
	q = q.Order("pinned DESC, id DESC").Offset(f.Offset)
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	var out []Memory
	if err := q.Find(&out).Error; err != nil {
		return nil, err
	}
	if f.File == "" {
		return out, nil
	}
	kept := out[:0]
	for _, m := range out {
		if m.namesFile(f.File) {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

// namesFile reports whether the memory names the file at path: the same
// path, or one path a suffix of the other on a "/" boundary
// ("internal/x.go" names "/home/me/repo/internal/x.go").
func (m *Memory) namesFile(path string) bool {
	for _, f := range m.Files {
		if f == path || strings.HasSuffix(path, "/"+strings.TrimPrefix(f, "./")) || strings.HasSuffix(f, "/"+path) {
			return true
		}
	}
	return false
}

// lastParts is the last n+1 elements of a slash path.
func lastParts(p string, n int) string {
	parts := strings.Split(p, "/")
	if len(parts) > n+1 {
		parts = parts[len(parts)-n-1:]
	}
	return strings.Join(parts, "/")
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// MemoryCounts counts a project's memories by kind and state.
func (s *Store) MemoryCounts(ctx context.Context, project string) (map[string]map[string]int64, error) {
	var rows []struct {
		Kind, State string
		N           int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT kind, state, COUNT(*) AS n FROM memories WHERE project = ? GROUP BY kind, state`, project).Scan(&rows).Error
	out := map[string]map[string]int64{}
	for _, r := range rows {
		if out[r.Kind] == nil {
			out[r.Kind] = map[string]int64{}
		}
		out[r.Kind][r.State] = r.N
	}
	return out, err
}

// MemoryCountsAsOf counts the project's memories that were in force at
// at, by kind.
func (s *Store) MemoryCountsAsOf(ctx context.Context, project string, at time.Time) (map[string]int64, error) {
	var rows []struct {
		Kind string
		N    int64
	}
	at = at.UTC()
	err := s.db.WithContext(ctx).Raw(`SELECT kind, COUNT(*) AS n FROM memories WHERE project = ? AND `+asOfCond("")+` GROUP BY kind`,
		project, at, at).Scan(&rows).Error
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Kind] = r.N
	}
	return out, err
}

// MemoryProjects lists the projects that have memories.
func (s *Store) MemoryProjects(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT project FROM memories ORDER BY project`).Scan(&out).Error
	return out, err
}

// SupersessionChain is the memories memory id replaced, and those that
// replaced it, oldest first, itself included.
func (s *Store) SupersessionChain(ctx context.Context, id int64) ([]Memory, error) {
	m, err := s.MemoryByID(ctx, id)
	if err != nil {
		return nil, err
	}
	chain := []Memory{*m}
	seen := map[int64]bool{m.ID: true}
	// Back: what this one superseded, newest link first.
	for cur := m.ID; len(chain) < 50; {
		var older []Memory
		if err := s.db.WithContext(ctx).Model(&Memory{}).Select(memoryColumns).Where("superseded_by = ?", cur).Order("id DESC").Limit(1).Find(&older).Error; err != nil {
			return nil, err
		}
		if len(older) == 0 || seen[older[0].ID] {
			break
		}
		seen[older[0].ID] = true
		chain = append([]Memory{older[0]}, chain...)
		cur = older[0].ID
	}
	// Forward: what replaced it.
	for next := m.SupersededBy; next != 0 && !seen[next] && len(chain) < 100; {
		n, err := s.MemoryByID(ctx, next)
		if errors.Is(err, ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		seen[n.ID] = true
		chain = append(chain, *n)
		next = n.SupersededBy
	}
	return chain, nil
}

// ForgetMemory deletes memory id for good, with its events; a memory it
// had superseded is in force again. It is ErrNotFound when there is none.
func (tx *Tx) ForgetMemory(id int64) (ForgetResult, error) {
	return tx.forgetOne(ForgetMemory, "memories", id, forgetSet{memories: []int64{id}})
}

// SearchMemory is the search type of memories: SearchMemories answers it
// (the prompt, observation and summary search does not).
const SearchMemory = "memory"

// MemorySearch is one full-text search of memories.
type MemorySearch struct {
	Q       string     // FTS5 syntax, as SearchQuery.Q
	Project string     // "" for all
	Kinds   []string   // any of these kinds; all when empty
	States  []string   // any of these states; all when empty
	AsOf    *time.Time // in force at that time (States is not applied then)
	// Speakers keeps the memories of these speakers; all when empty.
	Speakers []string
	Offset   int
	Limit    int // default 20
}

// Keeps reports whether memory m passes q's filters but the query:
// project, kinds, speakers, and in force at AsOf or else one of States.
// A search by meaning, which the vectors cannot filter, keeps its hits by
// it.
func (q MemorySearch) Keeps(m Memory) bool {
	if q.Project != "" && m.Project != q.Project || len(q.Kinds) > 0 && !slices.Contains(q.Kinds, m.Kind) ||
		len(q.Speakers) > 0 && !slices.Contains(q.Speakers, m.Speaker) {
		return false
	}
	if q.AsOf != nil {
		return m.inForceOn(*q.AsOf)
	}
	return len(q.States) == 0 || slices.Contains(q.States, m.State)
}

// SearchMemories finds the memories matching q.Q, best first (bm25 on
// SQLite, ts_rank on PostgreSQL), one more than Limit when there are more.
func (s *Store) SearchMemories(ctx context.Context, q MemorySearch) ([]Memory, error) {
	match, err := normalizeQuery(q.Q)
	if err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Offset+q.Limit > MaxSearchWindow {
		return nil, fmt.Errorf("%w: offset+limit over %d", ErrInvalid, MaxSearchWindow)
	}
	ctx, cancel := context.WithTimeout(ctx, s.searchOptions().Timeout)
	defer cancel()
	db := s.db.WithContext(ctx)
	var where []string
	var args []any
	if q.Project != "" {
		where, args = append(where, "m.project = ?"), append(args, q.Project)
	}
	if len(q.Kinds) > 0 {
		where, args = append(where, "m.kind IN ?"), append(args, q.Kinds)
	}
	if q.AsOf != nil {
		at := q.AsOf.UTC()
		where, args = append(where, asOfCond("m.")), append(args, at, at)
	} else if len(q.States) > 0 {
		where, args = append(where, "m.state IN ?"), append(args, q.States)
	}
	if len(q.Speakers) > 0 {
		where, args = append(where, "m.speaker IN ?"), append(args, q.Speakers)
	}
	cond := ""
	if len(where) > 0 {
		cond = " AND " + strings.Join(where, " AND ")
	}
	cols := memoryColumnsOf("m.")
	var out []Memory
	if s.Postgres() {
		ts, err := pgTSQuery(match, SearchMemory)
		if err != nil || ts == "" {
			return nil, err
		}
		err = db.Raw(`SELECT `+cols+` FROM (SELECT to_tsquery('english', ?) AS q) q, memories m
			WHERE m.fts @@ q.q`+cond+` ORDER BY ts_rank(m.fts, q.q) DESC, m.id DESC OFFSET ? LIMIT ?`,
			append(append([]any{ts}, args...), q.Offset, q.Limit+1)...).Scan(&out).Error
		return out, queryErr(err, q.Q)
	}
	err = db.Raw(`SELECT `+cols+` FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
		WHERE memories_fts MATCH ?`+cond+` ORDER BY bm25(memories_fts), m.id DESC LIMIT ? OFFSET ?`,
		append(append([]any{match}, args...), q.Limit+1, q.Offset)...).Scan(&out).Error
	if err != nil {
		return nil, ftsError(err, q.Q)
	}
	return out, nil
}

// RelatedMemory is a memory in force matching a prompt's keywords, with
// its score (as RelatedCandidate's).
type RelatedMemory struct {
	Memory
	Score float64
}

// RelatedMemories scores the project's memories in force of kinds
// matching the FTS5 query match, outside session exclude (a memory stated
// outside any session always counts) and other than skip (those the
// session's context already holds), and returns the best limit, best
// first. A memory's text is scored as an observation's title is by
// RelatedObservations (BM25 weight 4; on PostgreSQL ts_rank on bm25's
// scale), so one relevance threshold serves both. Only the newest recent
// matches are scored, so a common term costs the same as a rare one.
func (s *Store) RelatedMemories(ctx context.Context, match, project string, kinds []string, exclude int64, skip []int64, recent, limit int) ([]RelatedMemory, error) {
	if len(kinds) == 0 || limit <= 0 {
		return nil, nil
	}
	var rows []struct {
		ID    int64
		Score float64
	}
	db := s.db.WithContext(ctx)
	cond := `m.project = ? AND m.state = ? AND m.kind IN ? AND (m.session_id IS NULL OR m.session_id != ?)`
	condArgs := []any{project, MemoryCurrent, kinds, exclude}
	if len(skip) > 0 {
		cond += ` AND m.id NOT IN ?`
		condArgs = append(condArgs, skip)
	}
	if s.Postgres() {
		ts, err := pgTSQuery(match, SearchMemory)
		if err != nil || ts == "" {
			return nil, err
		}
		// Every lexeme of a memory's tsvector has weight D: weighted 1,
		// as an observation's title (weight A) is.
		err = db.Raw(`SELECT id, score FROM (
				SELECT m.id, ts_rank('{1.0,1.0,1.0,1.0}', m.fts, q.q) * (numnode(q.q) + 1) / 2 * ? AS score
				FROM (SELECT to_tsquery('english', ?) AS q) q, memories m
				WHERE m.fts @@ q.q AND `+cond+` ORDER BY m.id DESC LIMIT ?) r
			ORDER BY score DESC, id DESC LIMIT ?`, append(append([]any{pgRelatedScale, ts}, condArgs...), recent, limit)...).Scan(&rows).Error
		if err != nil {
			return nil, err
		}
	} else {
		err := db.Raw(`SELECT id, -score AS score FROM (
				SELECT m.id, bm25(memories_fts, 4.0) AS score
				FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
				WHERE memories_fts MATCH ? AND `+cond+` ORDER BY memories_fts.rowid DESC LIMIT ?)
			ORDER BY score DESC, id DESC LIMIT ?`, append(append([]any{match}, condArgs...), recent, limit)...).Scan(&rows).Error
		if err != nil {
			return nil, ftsError(err, match)
		}
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	ms, err := s.MemoriesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]Memory, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	out := make([]RelatedMemory, 0, len(rows))
	for _, r := range rows {
		if m, ok := byID[r.ID]; ok { // forgotten meanwhile: gone
			out = append(out, RelatedMemory{Memory: m, Score: r.Score})
		}
	}
	return out, nil
}

// CountMemoryMatches counts the memories matching the FTS5 query match,
// stopping at limit: a cheap document frequency, as
// CountObservationMatches.
func (s *Store) CountMemoryMatches(ctx context.Context, match string, limit int) (int, error) {
	var n int
	if s.Postgres() {
		ts, err := pgTSQuery(match, SearchMemory)
		if err != nil || ts == "" {
			return 0, err
		}
		err = s.db.WithContext(ctx).Raw(`SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ to_tsquery('english', ?) LIMIT ?) m`,
			ts, limit).Row().Scan(&n)
		return n, err
	}
	err := s.db.WithContext(ctx).Raw(`SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)`,
		match, limit).Row().Scan(&n)
	return n, err
}

// MemoriesInForce lists the project's current memories for context: the
// pinned ones (at most limit), then the newest, limit in all. With person
// (a teammate's session, team mode) that person's own proposed memories
// count too: what they said reaches their own sessions before the owner
// accepts it, and nobody else's.
func (s *Store) MemoriesInForce(ctx context.Context, project, person string, limit int) ([]Memory, error) {
	if limit <= 0 {
		return nil, nil
	}
	db := s.db.WithContext(ctx)
	var pinned, newest, own []Memory
	// pinned = ?, not a bare boolean: the index memories_in_force
	// (project, state, pinned, id) answers both reads.
	if err := db.Model(&Memory{}).Select(memoryColumns).Where("project = ? AND state = ? AND pinned = ?", project, MemoryCurrent, true).
		Order("id DESC").Limit(limit).Find(&pinned).Error; err != nil {
		return nil, err
	}
	if err := db.Model(&Memory{}).Select(memoryColumns).Where("project = ? AND state = ? AND pinned = ?", project, MemoryCurrent, false).
		Order("id DESC").Limit(limit - len(pinned)).Find(&newest).Error; err != nil {
		return nil, err
	}
	if person != "" {
		// A third read on the same index's (project, state) prefix, so
		// the first two keep theirs.
		if err := db.Model(&Memory{}).Select(memoryColumns).Where("project = ? AND state = ? AND speaker = ? AND speaker_ref = ?",
			project, MemoryProposed, SpeakerTeammate, person).Order("pinned DESC, id DESC").Limit(limit).Find(&own).Error; err != nil {
			return nil, err
		}
	}
	if len(own) == 0 {
		return append(pinned, newest...), nil
	}
	out := append(pinned, newest...)
	out = append(out, own...)
	slices.SortStableFunc(out, func(a, b Memory) int {
		if a.Pinned != b.Pinned {
			if a.Pinned {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out[:min(len(out), limit)], nil
}

// MemoryIDsInForce are the ids of project's memories in force of kinds,
// for a search by meaning among them (SearchQuery.OnlyIDs): the vector
// index knows a memory's project, not its state or kind.
func (s *Store) MemoryIDsInForce(ctx context.Context, project string, kinds []string) ([]int64, error) {
	ids := []int64{}
	if len(kinds) == 0 {
		return ids, nil
	}
	err := s.db.WithContext(ctx).Model(&Memory{}).Where("project = ? AND state = ? AND kind IN ?", project, MemoryCurrent, kinds).
		Order("id").Pluck("id", &ids).Error
	return ids, err
}

// SessionsWithMemories tells which of the sessions produced memories.
func (s *Store) SessionsWithMemories(ctx context.Context, sessionIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	var ids []int64
	err := s.db.WithContext(ctx).Raw(`SELECT DISTINCT session_id FROM memories WHERE session_id IN ?`, sessionIDs).Scan(&ids).Error
	for _, id := range ids {
		out[id] = true
	}
	return out, err
}
