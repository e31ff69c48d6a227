package capture

import (
	"context"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

func (s *Service) sessionStart(ctx context.Context, ev *shape.Event) (shape.Output, error) {
	var ref models.SessionRef
	// A session starts (or resumes) rarely: it is looked up in the
	// database, never the cache, so a session forgotten meanwhile starts
	// anew with its context.
	err := s.writeSession(ctx, ev.SessionID(), func(tx *models.Tx) error {
		var err error
		ref, err = s.ensureSession(tx, ev)
		if err != nil || ref.Created {
			return err
		}
		// A resumed, cleared or compacted session: record the new source
		// and mark it active again. A second "startup" is a duplicate (a
		// replayed spool), and an event older than the session's end is a
		// late replay: neither reopens a completed session.
		if ev.Source() == "startup" {
			return nil
		}
		return tx.ReopenSession(ref.ID, ev.Source(), ev.When(s.now))
	})
	if err != nil {
		return shape.Output{}, err
	}
	s.remember(ev.SessionID(), ref)
	if s.Context == nil || ev.Imported() || ev.Policy().ProjectExcluded(ref.Project) {
		return shape.Continue(), nil
	}
	text, err := s.Context.SessionContext(ctx, ContextRequest{Project: ref.Project, SessionID: ref.ID, Source: ev.Source(), Created: ref.Created, Person: ref.CapturedBy})
	if err != nil {
		// Context is a courtesy: the session must start regardless.
		s.log.Warn("build session context", "project", ref.Project, "err", err)
		return shape.Continue(), nil
	}
	return shape.WithContext(hookwire.SessionStart, text), nil
}

func (s *Service) userPrompt(ctx context.Context, ev *shape.Event) (shape.Output, error) {
	pol := ev.Policy()
	text := shape.Window(ev.Prompt()) // cleaned whole at the door, then cut
	private := ev.PromptPrivate()
	var ref models.SessionRef
	var res models.PromptResult
	err := s.writeSession(ctx, ev.SessionID(), func(tx *models.Tx) error {
		var err error
		if ref, err = s.session(tx, ev); err != nil {
			return err
		}
		if pol.ProjectExcluded(ref.Project) {
			return nil
		}
		res, err = tx.RecordPrompt(ref.ID, ref.Project, ev.PromptID(), text, private, ev.When(s.now))
		if err != nil || res.PromptID == 0 {
			return err
		}
		_, err = tx.AppendEventAt(ev.When(s.now), models.EventPrompt, ref.Project, ref.ID, res.PromptID, map[string]any{
			"id": res.PromptID, "sessionId": ref.ID, "project": ref.Project, "number": res.Number,
			"text": shape.Truncate(text, 2000),
		})
		return err
	})
	if err != nil {
		return shape.Output{}, err
	}
	s.remember(ev.SessionID(), ref)
	if private || res.PromptID == 0 || s.Context == nil || ev.Imported() {
		return shape.Continue(), nil
	}
	hint, err := s.Context.RelatedMemory(ctx, ref.Project, ref.ID, text)
	if err != nil {
		s.log.Warn("related memory", "project", ref.Project, "err", err)
		return shape.Continue(), nil
	}
	return shape.WithContext(hookwire.UserPromptSubmit, hint), nil
}

// toolUse stores a tool call; a failure seen before is answered with
// what is known of it (failureHint).
func (s *Service) toolUse(ctx context.Context, event string, ev *shape.Event) (shape.Output, error) {
	pol := ev.Policy()
	obs := ev.Observation()
	states := s.fileStates(ev, obs)
	var ref models.SessionRef
	var prompt knownPrompt
	var stored *models.Observation
	err := s.writeSession(ctx, ev.SessionID(), func(tx *models.Tx) error {
		stored = nil
		var err error
		if ref, err = s.session(tx, ev); err != nil {
			return err
		}
		if obs == nil || pol.ProjectExcluded(ref.Project) {
			return nil
		}
		if prompt, err = s.promptNumber(tx, ref.ID, ev.PromptID()); err != nil || prompt.private {
			return err // the turn of a fully private prompt is not recorded
		}
		o := *obs
		o.SessionID, o.Project, o.PromptNumber, o.CreatedAt = ref.ID, ref.Project, prompt.number, ev.When(s.now)
		if err := tx.QueueObservation(&o, observationEvent); err != nil {
			return err
		}
		stored = &o
		if len(states) == 0 {
			return nil
		}
		return tx.RecordFileStates(ref.ID, *o.ToolUseID, states)
	})
	if err != nil {
		return shape.Output{}, err
	}
	s.remember(ev.SessionID(), ref)
	s.rememberPrompt(ref.ID, prompt)
	return shape.WithContext(event, s.failureHint(ctx, ev, ref, stored)), nil
}

// FailureRecaller answers a failure just stored that was seen before.
type FailureRecaller interface {
	FailureHint(ctx context.Context, req FailureRequest) (string, error)
}

// FailureRequest is one failure just stored, by its signature.
type FailureRequest struct {
	Project       string
	SessionID     int64 // the session's database id: its own failures are not "before"
	ObservationID int64
	Signature     string
	Cwd           string
}

// failureHint is what is known of a failure o seen before, or "" (none,
// no signature, an import, a replayed call).
func (s *Service) failureHint(ctx context.Context, ev *shape.Event, ref models.SessionRef, o *models.Observation) string {
	if s.Failures == nil || o == nil || o.ID == 0 || o.Signature == "" || ev.Imported() {
		return ""
	}
	text, err := s.Failures.FailureHint(ctx, FailureRequest{Project: ref.Project, SessionID: ref.ID, ObservationID: o.ID, Signature: o.Signature, Cwd: ev.Cwd()})
	if err != nil {
		s.log.Warn("failure hint", "project", ref.Project, "err", err)
		return ""
	}
	return text
}

// observationEvent is the JSON an observation travels as on the stream: the
// row minus its bulky input and output. A struct, not a map: it is encoded
// once per observation on the writer's goroutine.
func observationEvent(o *models.Observation) any {
	return observationEventData{
		ID: o.ID, SessionID: o.SessionID, Project: o.Project, PromptNumber: o.PromptNumber,
		ToolName: o.ToolName, Kind: o.Kind, Title: o.Title, Files: o.Files,
		Success: o.Success, Importance: o.Importance, DurationMS: o.DurationMS,
		ExcludedBy: o.ExcludedBy, CreatedAt: o.CreatedAt,
	}
}

type observationEventData struct {
	CreatedAt    time.Time `json:"createdAt"`
	DurationMS   int64     `json:"durationMs"`
	ExcludedBy   string    `json:"excludedBy"`
	Files        []string  `json:"files"`
	ID           int64     `json:"id"`
	Importance   float64   `json:"importance"`
	Kind         string    `json:"kind"`
	Project      string    `json:"project"`
	PromptNumber int       `json:"promptNumber"`
	SessionID    int64     `json:"sessionId"`
	Success      bool      `json:"success"`
	Title        string    `json:"title"`
	ToolName     string    `json:"toolName"`
}

func (s *Service) stop(ctx context.Context, ev *shape.Event) error {
	pol := ev.Policy()
	// The payload's, or the transcript's read on this machine; cleaned
	// either way. A person's transcript is on their machine: their hook
	// sends its last message instead.
	msg := ev.LastAssistantMessage()
	var ref models.SessionRef
	var number int
	err := s.writeSession(ctx, ev.SessionID(), func(tx *models.Tx) error {
		var err error
		if ref, err = s.session(tx, ev); err != nil {
			return err
		}
		if pol.ProjectExcluded(ref.Project) {
			return nil
		}
		var private bool
		if number, private, _, err = tx.PromptNumber(ref.ID, ev.PromptID()); err != nil || private {
			return err
		}
		return tx.SetLastAssistantMessage(ref.ID, msg)
	})
	if err != nil {
		return err
	}
	s.remember(ev.SessionID(), ref)
	if s.Summaries != nil && !pol.ProjectExcluded(ref.Project) {
		if err := s.Summaries.Enqueue(ctx, ref.ID, models.SummaryTurn, number, ev.When(s.now)); err != nil {
			s.log.Warn("queue turn summary", "session", ref.ID, "err", err)
		}
	}
	return nil
}

func (s *Service) sessionEnd(ctx context.Context, ev *shape.Event) error {
	// The reason is free text like every other stored field, cleaned at
	// the door (a secret in it reached the database, the stream and the
	// pages before), then cut.
	reason := shape.Truncate(ev.Reason(), 100)
	var ref models.SessionRef
	err := s.writeSession(ctx, ev.SessionID(), func(tx *models.Tx) error {
		var err error
		if ref, err = s.session(tx, ev); err != nil {
			return err
		}
		now := ev.When(s.now)
		if done, err := tx.CompleteSession(ref.ID, now, reason); err != nil || !done {
			return err // !done: already completed, a replay
		}
		_, err = tx.AppendEventAt(now, models.EventSessionCompleted, ref.Project, ref.ID, ref.ID, map[string]any{
			"sessionId": ref.ID, "project": ref.Project, "reason": reason, "endedAt": now,
		})
		return err
	})
	if err != nil {
		return err
	}
	s.remember(ev.SessionID(), ref)
	if s.Summaries != nil && !ev.Policy().ProjectExcluded(ref.Project) {
		if err := s.Summaries.Enqueue(ctx, ref.ID, models.SummaryFinal, 0, ev.When(s.now)); err != nil {
			s.log.Warn("queue final summary", "session", ref.ID, "err", err)
		}
	}
	return nil
}
