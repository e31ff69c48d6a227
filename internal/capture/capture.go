// Package capture is the service that turns one Claude Code hook event
// into stored rows: sessions, prompts and observations. Service.Handle
// reads top to bottom and never comes back to a step it has left:
//
//  1. the door: the decoded payload is cleaned whole, every field, by one
//     call (shape.Policy.CleanEvent) into a shape.Event, the only type the
//     rest accepts, so no code below can be handed a raw value; what the
//     event names on this machine (the git project of its cwd, its
//     transcript) is read through the Event and cleaned by it too;
//  2. the event's shaper (sessionStart, userPrompt, toolUse, stop,
//     sessionEnd, preToolUse) shapes its rows through internal/shape;
//  3. the rows are written in one transaction by the store's group-commit
//     writer, and what it stored reaches the live stream after the commit.
//
// internal/archtest keeps this so: capture calls no cleaning of its own,
// and none of its functions but Handle takes a shape.Payload.
package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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
	// Person is who the session belongs to (sessions.captured_by): ""
	// for the owner, else a teammate, whose own proposed memories their
	// context holds.
	Person string
}

// SummaryQueue receives requests for turn and session summaries.
type SummaryQueue interface {
	Enqueue(ctx context.Context, sessionID int64, kind string, promptNumber int, at time.Time) error
}

// Service is the capture pipeline. It is safe for concurrent use.
type Service struct {
	Store     *models.Store
	Context   ContextBuilder
	Summaries SummaryQueue
	// Files answers the file gate (PreToolUse); nil answers nothing.
	Files FileRecaller
	// Failures answers a failure seen before; nil answers nothing.
	Failures FailureRecaller

	policy   func() *shape.Policy
	sessions sync.Map // claude session id → models.SessionRef
	prompts  sync.Map // session database id → knownPrompt: its latest known prompt
	hashes   filestate.Cache
	disk     disk // reads what the owner's events name on this machine
	now      func() time.Time
	log      *slog.Logger // the worker's redacting logger
}

// Deps are what the service uses besides the store; Log is required, the
// rest may be nil (nothing injected, no file gate, no summaries).
type Deps struct {
	Context   ContextBuilder
	Files     FileRecaller
	Failures  FailureRecaller
	Summaries SummaryQueue
	// Policy is the settings in force, compiled (settings.Service.Policy):
	// required.
	Policy func() *shape.Policy
	// Log is the worker's logger: the service logs what it cannot do for
	// an event (context, summaries) there.
	Log *slog.Logger
}

// New builds the service over store with its dependencies.
func New(store *models.Store, d Deps) (*Service, error) {
	if d.Log == nil || d.Policy == nil {
		return nil, errors.New("capture.New: no logger or no policy")
	}
	return &Service{Store: store, Context: d.Context, Files: d.Files, Failures: d.Failures, Summaries: d.Summaries, policy: d.Policy,
		log: d.Log, disk: disk{projects: hookwire.NewProjects(hookwire.DefaultProjects)}, now: func() time.Time { return time.Now().UTC() }}, nil
}

// Policy is the compiled settings in force (Deps.Policy): each event is
// cleaned by the policy in force when it arrives.
func (s *Service) Policy() *shape.Policy { return s.policy() }

// Handle captures one event and returns what the hook must print. It reads
// top to bottom: the payload is cleaned whole at the door (one call,
// shape.Policy.CleanEvent), so every function below it is handed a
// *shape.Event, never the raw payload; the event's shaper then shapes its
// rows and writes them in one group-committed transaction, whose events
// reach the live stream after the commit. An error the same event would
// meet again however often it is sent is marked permanent
// (hookwire.ErrPermanent), so a replayed spool sets the event aside.
func (s *Service) Handle(ctx context.Context, event string, p *shape.Payload) (shape.Output, error) {
	ev := s.Policy().CleanEvent(p, PersonFrom(ctx), s.disk)
	if claimed, ok := ev.BoundTime(s.now()); !ok {
		s.log.Warn("capture: an event claimed a time outside the replay window; stored at the time it was received",
			"event", event, "person", ev.Person(), "claimed", claimed)
	}
	out, err := s.handle(ctx, event, ev)
	if permanent(err) {
		err = hookwire.Permanent(err)
	}
	return out, err
}

// permanent tells an error retrying the event cannot fix: the event is
// invalid, names what is not there or not its own, or the database
// refuses its data (models.Refused). A storage problem (disk full, a
// read-only or locked database) passes, and is retried.
func permanent(err error) bool {
	var ve *models.ValidationError
	switch {
	case err == nil, models.StorageProblem(err) != "":
		return false
	case errors.As(err, &ve), errors.Is(err, models.ErrInvalid), errors.Is(err, models.ErrNotFound), errors.Is(err, models.ErrForbidden):
		return true
	}
	return models.Refused(err)
}

// handle runs ev through its event's shaper.
func (s *Service) handle(ctx context.Context, event string, ev *shape.Event) (shape.Output, error) {
	switch event {
	case hookwire.SessionStart:
		return s.sessionStart(ctx, ev)
	case hookwire.UserPromptSubmit:
		return s.userPrompt(ctx, ev)
	case hookwire.PostToolUse, hookwire.PostToolUseFailure:
		return s.toolUse(ctx, event, ev)
	case hookwire.PreToolUse:
		return s.preToolUse(ctx, ev), nil
	case hookwire.Stop:
		return shape.Continue(), s.stop(ctx, ev)
	case hookwire.SessionEnd:
		return shape.Continue(), s.sessionEnd(ctx, ev)
	}
	return shape.Output{}, errors.New("unknown event " + event)
}

// session returns the session of ev, creating it inside tx when needed.
// The session may come from the cache: a write on it that finds it gone
// fails with models.ErrSessionGone, and writeSession runs it again.
func (s *Service) session(tx *models.Tx, ev *shape.Event) (models.SessionRef, error) {
	if ref, ok := s.sessions.Load(ev.SessionID()); ok {
		r := ref.(models.SessionRef)
		r.Created = false
		return r, owned(r, ev)
	}
	return s.ensureSession(tx, ev)
}

// ensureSession returns the session of ev as stored, creating it inside tx
// when it is not: a session forgotten while it ran is recorded again, as
// a new row, from its next event.
func (s *Service) ensureSession(tx *models.Tx, ev *shape.Event) (models.SessionRef, error) {
	proj := ev.Project()
	ref, err := tx.EnsureSession(&models.Session{
		ClaudeSessionID: ev.SessionID(),
		Project:         proj.Name,
		Cwd:             ev.Cwd(),
		GitBranch:       proj.Branch,
		Source:          ev.Source(),
		StartedAt:       ev.When(s.now),
		TranscriptPath:  ev.TranscriptPath(),
		CapturedBy:      ev.Person(),
	})
	if err != nil {
		return ref, err
	}
	if err := owned(ref, ev); err != nil {
		return ref, err
	}
	if ref.Created {
		if _, err := tx.AppendEventAt(ev.When(s.now), models.EventSessionStarted, ref.Project, ref.ID, ref.ID, map[string]any{
			"sessionId": ref.ID, "claudeSessionId": ev.SessionID(), "project": ref.Project,
			"branch": proj.Branch, "source": ev.Source(), "cwd": ev.Cwd(),
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
func owned(ref models.SessionRef, ev *shape.Event) error {
	if ref.CapturedBy == ev.Person() {
		return nil
	}
	return fmt.Errorf("%w: session %s belongs to someone else: an event may only add to a session its sender captured", models.ErrForbidden, ev.SessionID())
}

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

// knownPrompt is which prompt of a session a prompt_id is: a fact that
// never changes once committed, so every tool call of a turn after the
// first skips the lookup.
type knownPrompt struct {
	promptID string
	number   int
	private  bool
	found    bool // promptID was recorded: the answer is final
}

// promptNumber resolves the prompt an event belongs to (Tx.PromptNumber),
// from the cache when the session's latest prompt_id is this one.
func (s *Service) promptNumber(tx *models.Tx, sessionID int64, promptID string) (knownPrompt, error) {
	if promptID != "" {
		if v, ok := s.prompts.Load(sessionID); ok && v.(knownPrompt).promptID == promptID {
			return v.(knownPrompt), nil
		}
	}
	number, private, found, err := tx.PromptNumber(sessionID, promptID)
	return knownPrompt{promptID: promptID, number: number, private: private, found: found}, err
}

// rememberPrompt caches a resolved prompt after its transaction committed.
// An event without a prompt_id, or whose prompt has not arrived yet,
// belonged to whatever prompt was current, which may move: never cached.
func (s *Service) rememberPrompt(sessionID int64, p knownPrompt) {
	if sessionID != 0 && p.found {
		s.prompts.Store(sessionID, p)
	}
}

// disk is the shape.Outside of the worker's owner's events: what they
// name on this machine, read here and cleaned by the event.
type disk struct{ projects *hookwire.Projects }

// Project resolves cwd's git project, remembering the latest directories.
func (d disk) Project(cwd string) hookwire.Project { return d.projects.Resolve(cwd) }

// LastAssistantMessage reads a transcript's last assistant message.
func (disk) LastAssistantMessage(path string) string { return readLastAssistantMessage(path) }

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
		s.prompts.Delete(ref.(models.SessionRef).ID)
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
		s.prompts.Delete(id)
	}
	s.sessions.Range(func(k, v any) bool {
		if gone[v.(models.SessionRef).ID] {
			s.sessions.Delete(k)
		}
		return true
	})
}

// PreviewContext is the context a new session of project would receive now.
func (s *Service) PreviewContext(ctx context.Context, project string) (string, error) {
	if s.Context == nil || project == "" {
		return "", nil
	}
	return s.Context.SessionContext(ctx, ContextRequest{Project: project, Source: "startup", Created: true})
}
