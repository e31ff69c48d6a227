package shape

import "github.com/mneme-dev/mneme/models"

// CleanRestored puts the rows of a full export (`mneme import FILE.json`)
// through this machine's privacy settings, as every stored string goes
// through them: the export was redacted by the rules of the machine that
// wrote it, which may be fewer. Ids are cleaned by CleanID and text by
// Clean (both leave already clean values as they are, so a restore stays
// idempotent); an observation an exclude glob matches becomes the stub
// capture stores, and a skipped tool is dropped. It returns false when the
// session's project is excluded here: nothing of it is to be stored.
func (p *Policy) CleanRestored(r *models.RestoreRows) bool {
	s := &r.Session
	s.ClaudeSessionID = p.CleanID(s.ClaudeSessionID)
	for _, f := range []*string{&s.Project, &s.Cwd, &s.GitBranch, &s.Source, &s.EndReason, &s.TranscriptPath, &s.LastAssistantMessage} {
		*f = p.Clean(*f)
	}
	if p.ProjectExcluded(s.Project) {
		return false
	}
	for i := range r.Prompts {
		pr := &r.Prompts[i]
		pr.PromptID = p.CleanID(pr.PromptID)
		pr.Project, pr.Text = p.Clean(pr.Project), p.Clean(pr.Text)
	}
	for i := range r.Summaries {
		m := &r.Summaries[i]
		for _, f := range []*string{&m.Project, &m.Request, &m.Investigated, &m.Learned, &m.Completed, &m.NextSteps,
			&m.LastUserMessage, &m.LastAssistantMessage, &m.Note} {
			*f = p.Clean(*f)
		}
	}
	r.Memories = p.CleanRestoredMemories(r.Memories)
	kept := r.Observations[:0]
	for _, o := range r.Observations {
		if p.Skips(o.ToolName) {
			continue
		}
		if o.ToolUseID != nil {
			id := p.CleanID(*o.ToolUseID)
			o.ToolUseID = &id
		}
		for _, f := range []*string{&o.Project, &o.ToolName, &o.Title, &o.Input, &o.Output, &o.CommandKind, &o.TestOutcome} {
			*f = p.Clean(*f) // as Re-apply redaction cleans stored rows
		}
		for k, f := range o.Files {
			o.Files[k] = p.Clean(f)
		}
		if o.ExcludedBy == "" {
			if rule := p.ExcludedBy(s.Cwd, o.Title, o.Files); rule != "" {
				o.Kind, o.ExcludedBy = models.KindExcluded, rule
				o.Title = o.ToolName + ": excluded by privacy rule " + rule
				o.Input, o.Output, o.Files = "", "", []string{}
			}
		}
		kept = append(kept, o)
	}
	r.Observations = kept
	return true
}

// CleanRestoredMemories passes restored memories through this machine's
// privacy settings, as CleanRestored does a session's rows, and keeps
// those whose project is not excluded here.
func (p *Policy) CleanRestoredMemories(ms []models.ExportMemory) []models.ExportMemory {
	kept := ms[:0]
	for i := range ms {
		m := &ms[i]
		for _, f := range []*string{&m.Project, &m.Text, &m.OriginalText} {
			*f = p.Clean(*f)
		}
		for _, l := range [][]string{m.Files, m.Idents, m.Terms} {
			for k := range l {
				l[k] = p.Clean(l[k])
			}
		}
		refs := []*models.MemoryRef{m.SupersededByRef}
		for k := range m.Supersedes {
			refs = append(refs, &m.Supersedes[k])
		}
		for _, r := range refs {
			if r != nil { // cleaned as the memory it names was
				r.Session, r.Project, r.OriginalText = p.CleanID(r.Session), p.Clean(r.Project), p.Clean(r.OriginalText)
			}
		}
		if !p.ProjectExcluded(m.Project) {
			kept = append(kept, *m)
		}
	}
	return kept
}
