package searcheval

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/mneme-dev/mneme/internal/capture"
	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/internal/settings"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// Ref is a stored row of the corpus: its search type and id.
type Ref struct {
	Type string
	ID   int64
}

// Base is the corpus' first day; a session of day d starts at 09:00 UTC
// d days later, and each of its events comes a minute after the last.
var Base = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// Build stores the corpus in store through the capture pipeline
// (capture.Service.Handle, with each event's time set as a replayed
// spool sets it) and its summaries as the summarizer stores them
// (Tx.InsertSummary). It returns the rows by key.
func Build(ctx context.Context, store *models.Store, log *slog.Logger) (map[string]Ref, error) {
	conf, err := settings.Load(ctx, store, nil)
	if err != nil {
		return nil, err
	}
	svc, err := capture.New(store, capture.Deps{Policy: conf.Policy, Log: log})
	if err != nil {
		return nil, err
	}
	refs := map[string]Ref{}
	for _, s := range corpus {
		if err := buildSession(ctx, store, svc, s, refs); err != nil {
			return nil, fmt.Errorf("session %s: %w", s.key, err)
		}
	}
	return refs, store.FlushSearchIndex(ctx)
}

func buildSession(ctx context.Context, store *models.Store, svc *capture.Service, s session, refs map[string]Ref) error {
	at := Base.AddDate(0, 0, s.day)
	cwd := "/src/" + s.project
	claudeID := "eval-" + s.key
	handle := func(event string, p shape.Payload) error {
		at = at.Add(time.Minute)
		t := at
		// History dated from Base, as `mneme import` rebuilds it: the
		// worker takes an imported event's time however old it is.
		p.SessionID, p.Cwd, p.HookEventName, p.MnemeTime, p.MnemeImport = claudeID, cwd, event, &t, true
		_, err := svc.Handle(ctx, event, &p)
		return err
	}
	if err := handle(hookwire.SessionStart, shape.Payload{Source: "startup"}); err != nil {
		return err
	}
	toolUse := map[string]string{} // tool_use_id → key
	var sums []*summary
	var sumTurn []int
	for n, tr := range s.turns {
		if err := handle(hookwire.UserPromptSubmit, shape.Payload{Prompt: tr.prompt, PromptID: tr.key}); err != nil {
			return err
		}
		for _, st := range tr.steps {
			p := shape.Payload{PromptID: tr.key, ToolName: st.tool, ToolUseID: "toolu_" + st.key, DurationMS: 800}
			p.ToolInput, _ = json.Marshal(st.input)
			event := hookwire.PostToolUse
			if st.err != "" {
				event, p.Error = hookwire.PostToolUseFailure, st.err
			} else {
				p.ToolResponse, _ = json.Marshal(st.response)
			}
			toolUse["toolu_"+st.key] = st.key
			if err := handle(event, p); err != nil {
				return err
			}
		}
		if err := handle(hookwire.Stop, shape.Payload{PromptID: tr.key, LastAssistantMessage: "Done."}); err != nil {
			return err
		}
		if tr.sum != nil {
			sums, sumTurn = append(sums, tr.sum), append(sumTurn, n+1)
		}
	}
	if s.final != nil {
		sums, sumTurn = append(sums, s.final), append(sumTurn, len(s.turns))
	}
	var sid int64
	err := store.Writer.Do(ctx, func(tx *models.Tx) error {
		var err error
		if sid, err = tx.SessionIDOf(claudeID); err != nil {
			return err
		}
		for i, sm := range sums {
			kind := models.SummaryTurn
			if sm == s.final {
				kind = models.SummaryFinal
			}
			at = at.Add(time.Minute)
			row := models.Summary{SessionID: sid, Project: s.project, PromptNumber: sumTurn[i], Kind: kind,
				Request: sm.request, Investigated: sm.investigated, Learned: sm.learned, Completed: sm.completed,
				NextSteps: sm.next, Generator: "claude-cli", CreatedAt: at}
			if err := tx.InsertSummary(&row); err != nil {
				return err
			}
			refs[sm.key] = Ref{models.SearchSummary, row.ID}
		}
		return nil
	})
	if err != nil {
		return err
	}
	prompts, err := store.Prompts(ctx, models.ListFilter{SessionID: sid, Limit: 1000})
	if err != nil {
		return err
	}
	for _, p := range prompts {
		refs[s.turns[p.Number-1].key] = Ref{models.SearchPrompt, p.ID}
	}
	obs, err := store.Observations(ctx, models.ObservationFilter{ListFilter: models.ListFilter{SessionID: sid, Limit: 1000}})
	if err != nil {
		return err
	}
	for _, o := range obs {
		if o.ToolUseID != nil && toolUse[*o.ToolUseID] != "" {
			refs[toolUse[*o.ToolUseID]] = Ref{models.SearchObservation, o.ID}
		}
	}
	for _, tr := range s.turns {
		for _, st := range tr.steps {
			if _, ok := refs[st.key]; !ok {
				return fmt.Errorf("tool call %s was not stored", st.key)
			}
		}
	}
	return nil
}
