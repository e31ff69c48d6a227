package report

import (
	"bufio"
	"context"
	"time"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
)

// htmlRenderer writes a self-contained HTML document through the templ
// components in views/report.templ, which escape every stored value. The
// structural tags between components are constant strings.
type htmlRenderer struct {
	w      *bufio.Writer
	ctx    context.Context
	loc    *time.Location
	now    time.Time
	multi  bool
	listOn bool
}

func (r *htmlRenderer) t(t time.Time, layout string) string { return t.In(r.loc).Format(layout) }

func (r *htmlRenderer) start(title string, multi bool) error {
	r.multi = multi
	return views.ReportDocStart(title).Render(r.ctx, r.w)
}

func (r *htmlRenderer) session(sd *sessionData) error {
	s := sd.sess
	h := views.ReportHeader{
		Title: sd.title, Project: s.Project, Branch: s.GitBranch, Cwd: s.Cwd, ClaudeSessionID: s.ClaudeSessionID,
		Started: r.t(s.StartedAt, "2006-01-02 15:04 MST"), Ended: "—", Duration: duration(s), Status: s.Status,
	}
	if s.EndedAt != nil {
		h.Ended = r.t(*s.EndedAt, "2006-01-02 15:04 MST")
	}
	var sums []views.ReportSummary
	for _, x := range pickSummaries(sd.summaries) {
		sums = append(sums, views.ReportSummary{
			Kind: x.Kind, PromptNumber: x.PromptNumber, Request: x.Request, Investigated: x.Investigated,
			Learned: x.Learned, Completed: x.Completed, NextSteps: x.NextSteps, Generator: x.Generator,
			Note: x.Note, Created: r.t(x.CreatedAt, "15:04"),
		})
	}
	r.w.WriteString(`<article class="session">`)
	if err := views.ReportSessionHead(h, sums, r.multi).Render(r.ctx, r.w); err != nil {
		return err
	}
	mems := make([]views.ReportMemory, len(sd.memories))
	for i, m := range sd.memories {
		mems[i] = views.ReportMemory{Kind: memoryKindLabel(m.Kind), Text: m.Text, State: m.State, Pinned: m.Pinned,
			Voice: memoryVoice(&m, sd.person), Date: sd.memoryDate(&m), Subject: m.Subject, ReplacedBy: sd.replacedText(&m)}
	}
	if err := views.ReportMemories(mems).Render(r.ctx, r.w); err != nil {
		return err
	}
	r.w.WriteString(`<section class="major timeline"><h2>Timeline</h2>`)
	return nil
}

func (r *htmlRenderer) closeList() {
	if r.listOn {
		r.w.WriteString("</ol>")
		r.listOn = false
	}
}

func (r *htmlRenderer) prompt(p *models.Prompt, number int) error {
	r.closeList()
	when, text := "", ""
	if p != nil {
		when, text = r.t(p.CreatedAt, "15:04"), clip(p.Text, 4000)
	} else if number > 0 {
		text = "(prompt not recorded)"
	}
	return views.ReportPrompt(number, when, text).Render(r.ctx, r.w)
}

func (r *htmlRenderer) call(o *models.Observation) error {
	if !r.listOn {
		r.w.WriteString(`<ol class="calls">`)
		r.listOn = true
	}
	return views.ReportCallLine(views.ReportCall{
		ID: o.ID, Time: r.t(o.CreatedAt, "15:04:05"), Tool: o.ToolName, Title: o.Title,
		Failed: !o.Success, Excluded: o.ExcludedBy,
	}).Render(r.ctx, r.w)
}

func (r *htmlRenderer) endSession(sd *sessionData, a *aggregates) error {
	r.closeList()
	r.w.WriteString("</section>")
	a.finish()
	fails := make([]views.ReportFailure, len(a.failures.Failures))
	for i, f := range a.failures.Failures {
		fails[i] = views.ReportFailure{Prompt: f.Obs.PromptNumber, Title: f.Obs.Title, Reason: f.Reason, Fixed: f.Fixed, Resolution: resolution(f)}
	}
	files := make([]views.ReportFile, len(a.Files))
	for i, f := range a.Files {
		files[i] = views.ReportFile{Path: f.Path, Created: f.Created, Edits: f.Edits}
	}
	tests := make([]views.ReportTest, len(a.Tests))
	for i, t := range a.Tests {
		tests[i] = views.ReportTest{Time: r.t(t.Time, "15:04:05"), Command: clip(t.Command, 200), Result: t.Result, Passed: t.Passed}
	}
	var stats []views.ReportStat
	for _, s := range statList(sd, a) {
		stats = append(stats, views.ReportStat{Label: s[0], Value: s[1]})
	}
	if err := views.ReportAggregates(fails, files, tests, stats, a.omittedNote()).Render(r.ctx, r.w); err != nil {
		return err
	}
	r.w.WriteString("</article>")
	return nil
}

func (r *htmlRenderer) end() error {
	return views.ReportDocEnd(r.t(r.now, "2006-01-02 15:04 MST")).Render(r.ctx, r.w)
}
