// Package capture is the service that turns one Claude Code hook event
// into stored rows: sessions, prompts and observations. It shapes the
// payload through internal/shape (privacy policy, description,
// compression), commits through the store's group-commit writer, and
// announces what it stored to the live stream only after the commit.
package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// ContextBuilder builds what SessionStart and UserPromptSubmit inject.
type ContextBuilder interface {
	SessionContext(ctx context.Context, req ContextRequest) (string, error)
	RelatedMemory(ctx context.Context, project string, sessionID int64, prompt string) (string, error)
}

// ContextRequest describes the session asking for context.
type ContextRequest struct {
	Project   string
	SessionID int64  // the database id of the session starting
	Source    string // startup, resume, clear, compact
	Created   bool   // the session did not exist before this event
}

// SummaryQueue receives requests for turn and session summaries.
type SummaryQueue interface {
	Enqueue(ctx context.Context, sessionID int64, kind string, promptNumber int, at time.Time) error
}

// Service is the ingest pipeline. It is safe for concurrent use.
type Service struct {
	Store     *models.Store
	Context   ContextBuilder
	Summaries SummaryQueue
	// Files answers the file gate (PreToolUse); nil answers nothing.
	Files FileRecaller

	policy   atomic.Pointer[shape.Policy]
	idKey    []byte   // keys the hash of cleaned identifiers; see SetIDKey
	sessions sync.Map // claude session id → models.SessionRef
	turns    sync.Map // session database id → promptTurn: its latest known prompt
	hashes   filestate.Cache
	projects *hookwire.Projects // the projects of the cwds seen lately
	now      func() time.Time
	log      *slog.Logger // the worker's redacting logger
}

// Deps are what the service uses besides the store; Log is required, the
// rest may be nil (nothing injected, no file gate, no summaries).
type Deps struct {
	Context   ContextBuilder
	Files     FileRecaller
	Summaries SummaryQueue
	// IDKey keys the hash of cleaned identifiers (privacy.LoadIDKey: the
	// hook uses the same one); nil hashes them without a key.
	IDKey []byte
	// Log is the worker's logger: the service logs what it cannot do for
	// an event (context, summaries) there.
	Log *slog.Logger
}

// New builds the service with the stored settings and its dependencies.
func New(ctx context.Context, store *models.Store, d Deps) (*Service, error) {
	if d.Log == nil {
		return nil, errors.New("capture.New: no logger")
	}
	st, err := store.LoadSettings(ctx)
	if err != nil {
		return nil, err
	}
	s := &Service{Store: store, Context: d.Context, Files: d.Files, Summaries: d.Summaries, idKey: d.IDKey,
		log: d.Log, projects: hookwire.NewProjects(hookwire.DefaultProjects), now: func() time.Time { return time.Now().UTC() }}
	s.SetSettings(st)
	return s, nil
}

// SetSettings swaps in new runtime settings; they apply to the next event.
func (s *Service) SetSettings(st models.Settings) {
	p := shape.NewPolicy(st)
	if key := s.idKey; key != nil {
		p.Redactor = p.Redactor.WithIDKey(func() []byte { return key })
	}
	s.policy.Store(p)
}

// SetIDKey sets the key of the hash that keeps cleaned identifiers apart
// (privacy.LoadIDKey: the hook uses the same one), before the service
// handles events.
func (s *Service) SetIDKey(key []byte) {
	s.idKey = key
	s.SetSettings(s.Policy().Settings)
}

// Policy is the compiled settings in force.
func (s *Service) Policy() *shape.Policy { return s.policy.Load() }

// Handle ingests one event and returns what the hook must print. Every
// string of the event is cleaned first (shape.Policy.CleanPayload), so
// nothing below stores a raw value.
func (s *Service) Handle(ctx context.Context, event string, p *shape.Payload) (shape.Output, error) {
	p = s.Policy().CleanPayload(p)
	p.CapturedBy = PersonFrom(ctx)
	switch event {
	case hookwire.SessionStart:
		return s.sessionStart(ctx, p)
	case hookwire.UserPromptSubmit:
		return s.userPrompt(ctx, p)
	case hookwire.PostToolUse, hookwire.PostToolUseFailure:
		return shape.Continue(), s.toolUse(ctx, p)
	case hookwire.PreToolUse:
		return s.preToolUse(ctx, p), nil
	case hookwire.Stop:
		return shape.Continue(), s.stop(ctx, p)
	case hookwire.SessionEnd:
		return shape.Continue(), s.sessionEnd(ctx, p)
	}
	return shape.Output{}, errors.New("unknown event " + event)
}

// session returns the session of p, creating it inside tx when needed.
// The session may come from the cache: a write on it that finds it gone
// fails with models.ErrSessionGone, and writeSession runs it again.
func (s *Service) session(tx *models.Tx, p *shape.Payload) (models.SessionRef, error) {
	if ref, ok := s.sessions.Load(p.SessionID); ok {
		r := ref.(models.SessionRef)
		r.Created = false
		return r, owned(r, p)
	}
	return s.ensureSession(tx, p)
}

// ensureSession returns the session of p as stored, creating it inside tx
// when it is not: a session forgotten while it ran is recorded again, as
// a new row, from its next event.
func (s *Service) ensureSession(tx *models.Tx, p *shape.Payload) (models.SessionRef, error) {
	proj := s.project(p)
	ref, err := tx.EnsureSession(&models.Session{
		ClaudeSessionID: p.SessionID,
		Project:         proj.Name,
		Cwd:             p.Cwd,
		GitBranch:       proj.Branch,
		Source:          p.Source,
		StartedAt:       eventTime(p, s.now),
		TranscriptPath:  p.TranscriptPath,
		CapturedBy:      p.CapturedBy,
	})
	if err != nil {
		return ref, err
	}
	if err := owned(ref, p); err != nil {
		return ref, err
	}
	if ref.Created {
		if _, err := tx.AppendEventAt(eventTime(p, s.now), models.EventSessionStarted, ref.Project, ref.ID, ref.ID, map[string]any{
			"sessionId": ref.ID, "claudeSessionId": p.SessionID, "project": ref.Project,
			"branch": proj.Branch, "source": p.Source, "cwd": p.Cwd,
		}); err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// owned refuses an event for a session that someone else captured: a
// session is the record of one person's Claude Code (or the owner's), and
// nobody else may add to it, end it or overwrite its last message. Claude
// Code's session ids are random UUIDs, so two people never share one by
// chance: such an event was replayed or made up. The answer is a 403, which
// the hook drops as permanent (it is neither retried nor spooled).
func owned(ref models.SessionRef, p *shape.Payload) error {
	if ref.CapturedBy == p.CapturedBy {
		return nil
	}
	return fmt.Errorf("%w: session %s belongs to someone else: an event may only add to a session its sender captured", models.ErrForbidden, p.SessionID)
}

// onThisMachine reports whether the paths p names (its transcript, its
// cwd, the files of its tools) are this machine's, and the worker may
// open them: only for events of the worker's owner (its socket or its
// secret, which may already run programs as this user). A person's events
// come from their own machine; the worker opens none of their paths, and
// their hook sends what it read there itself (hookwire.AddRemoteFacts).
func onThisMachine(p *shape.Payload) bool { return p.CapturedBy == "" }

// personKey is the context key of the person an event comes from.
type personKey struct{}

// WithPerson marks ctx as carrying the events of person (a team member's
// API token): the sessions they create record who captured them.
func WithPerson(ctx context.Context, person string) context.Context {
	return context.WithValue(ctx, personKey{}, person)
}

// PersonFrom is the person WithPerson set: "" for the worker's owner.
func PersonFrom(ctx context.Context) string {
	p, _ := ctx.Value(personKey{}).(string)
	return p
}

// remember caches a session once its creating transaction has committed.
func (s *Service) remember(claudeID string, ref models.SessionRef) {
	if ref.ID != 0 {
		ref.Created = false
		s.sessions.Store(claudeID, ref)
	}
}

// promptTurn is which prompt of a session a prompt_id is: a fact that never
// changes once committed, so every tool call of a turn after the first
// skips the lookup.
type promptTurn struct {
	promptID string
	number   int
	private  bool
	found    bool // promptID was recorded: the answer is final
}

// promptTurn resolves the prompt an event belongs to, from the cache when
// the session's latest prompt_id is this one.
func (s *Service) promptTurn(tx *models.Tx, sessionID int64, promptID string) (promptTurn, error) {
	if promptID != "" {
		if v, ok := s.turns.Load(sessionID); ok && v.(promptTurn).promptID == promptID {
			return v.(promptTurn), nil
		}
	}
	number, private, found, err := tx.PromptTurn(sessionID, promptID)
	return promptTurn{promptID: promptID, number: number, private: private, found: found}, err
}

// rememberTurn caches a resolved prompt after its transaction committed.
// An event without a prompt_id, or whose prompt has not arrived yet,
// belonged to whatever prompt was current, which may move: never cached.
func (s *Service) rememberTurn(sessionID int64, t promptTurn) {
	if sessionID != 0 && t.found {
		s.turns.Store(sessionID, t)
	}
}

// project is the project and branch of p's session, found from the cleaned
// cwd (the directory on disk when cleaning left it as it was; a path with
// a secret in it gives the base name of its cleaned form, never a part of
// the secret that a '/' cut off), and cleaned like every stored string: a
// repository or branch name may hold a secret.
//
// For a person's event (onThisMachine false) nothing is looked up on disk:
// the project is what their hook found for cwd on their machine
// (mneme_project, else cwd's base name) and the branch is theirs
// (mneme_branch).
func (s *Service) project(p *shape.Payload) hookwire.Project {
	pol := s.Policy()
	cwd := p.Cwd
	var proj hookwire.Project
	switch {
	case onThisMachine(p):
		proj = s.projects.Resolve(cwd)
	case p.MnemeProject != "":
		proj = hookwire.Project{Name: p.MnemeProject, Branch: p.MnemeBranch}
	case cwd != "":
		proj = hookwire.Project{Name: filepath.Base(cwd), Branch: p.MnemeBranch}
	default:
		proj = hookwire.Project{Name: "unknown", Branch: p.MnemeBranch}
	}
	switch {
	case p.Project != "":
		proj.Name = p.Project
	default:
		if name := aliasFor(pol.Settings.Capture.ProjectAliases, cwd); name != "" {
			proj.Name = name
		}
	}
	proj.Name, proj.Branch, proj.Root = pol.Clean(proj.Name), pol.Clean(proj.Branch), ""
	return proj
}

// aliasFor returns the project name the user gave the longest path prefix
// of cwd, matched at a directory boundary ("/src/a" covers "/src/a/b" but
// not "/src/ab"), or "" when none covers it.
func aliasFor(aliases map[string]string, cwd string) string {
	best, name := -1, ""
	for prefix, n := range aliases {
		prefix = strings.TrimRight(prefix, "/")
		if prefix == "" || n == "" || len(prefix) <= best {
			continue
		}
		if cwd == prefix || strings.HasPrefix(cwd, prefix+"/") {
			best, name = len(prefix), n
		}
	}
	return name
}

// Expect announces an event about to be handled (its request is still
// being decoded), so a group commit starting meanwhile waits for it rather
// than committing without it. Pass the context on to Handle; call the
// func when done.
func (s *Service) Expect(ctx context.Context) (context.Context, func()) {
	return s.Store.Writer.Expect(ctx)
}

// write runs fn in a group-committed transaction. The events fn appends
// reach the live stream from the writer, after the commit and in commit order.
func (s *Service) write(ctx context.Context, fn func(tx *models.Tx) error) error {
	return s.Store.Writer.Do(ctx, fn)
}

// writeSession is write for an event of Claude Code session claudeID. When
// the session the cache holds is gone (models.ErrSessionGone: forgotten
// on this worker or, on PostgreSQL, on another replica, whose forgotten
// event may not have arrived yet), the cache entry is dropped and fn runs
// once more: it then finds the session missing and records it again.
// Forgetting a running session forgets what was recorded, it does not stop
// the recording.
func (s *Service) writeSession(ctx context.Context, claudeID string, fn func(tx *models.Tx) error) error {
	err := s.write(ctx, fn)
	if errors.Is(err, models.ErrSessionGone) {
		s.uncache(claudeID)
		err = s.write(ctx, fn)
	}
	return err
}

// uncache drops what the cache holds of Claude Code session claudeID.
func (s *Service) uncache(claudeID string) {
	if ref, ok := s.sessions.LoadAndDelete(claudeID); ok {
		s.turns.Delete(ref.(models.SessionRef).ID)
	}
}

// Committed is told of every committed event (the store's OnCommit; on
// PostgreSQL every replica's): a forgotten event drops the forgotten
// sessions from the cache, so their next events record them again without
// first failing on the rows that are gone (writeSession still catches a
// forget whose event comes late).
func (s *Service) Committed(ev models.Event) {
	if ev.Kind != models.EventForgotten {
		return
	}
	var f models.Forgotten
	if json.Unmarshal(ev.Data, &f) != nil || len(f.Sessions) == 0 {
		return
	}
	gone := make(map[int64]bool, len(f.Sessions))
	for _, id := range f.Sessions {
		gone[id] = true
		s.turns.Delete(id)
	}
	s.sessions.Range(func(k, v any) bool {
		if gone[v.(models.SessionRef).ID] {
			s.sessions.Delete(k)
		}
		return true
	})
}

// eventTime is when the event happened: the spooled time of a replayed
// event, else now.
func eventTime(p *shape.Payload, now func() time.Time) time.Time {
	if p.MnemeTime != nil && !p.MnemeTime.IsZero() {
		return p.MnemeTime.UTC()
	}
	return now()
}

// PreviewContext is the context a new session of project would receive now.
func (s *Service) PreviewContext(ctx context.Context, project string) (string, error) {
	if s.Context == nil || project == "" {
		return "", nil
	}
	return s.Context.SessionContext(ctx, ContextRequest{Project: project, Source: "startup", Created: true})
}
