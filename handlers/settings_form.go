package handlers

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/retention"
	"github.com/mneme-dev/mneme/internal/settings"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
)

// ShowSettings serves GET /settings: the editor, and the context preview
// for ?project= (default: the most recently active project).
func (h *Handler) ShowSettings(c *fiber.Ctx) error {
	st := h.Settings.Policy().Settings
	p := views.SettingsPage{S: st, APIKeySet: st.Summarizer.APIKey != "", EmbeddingsKeySet: st.Embeddings.APIKey != "",
		At: views.SettingsPlace(c.Query("at")), BuiltinOpen: c.Query("open") == "builtin"}
	switch {
	case c.Query("keydropped") != "":
		p.Notice = "Settings saved and applied. The API key was removed because the base URL changed: enter the key for the new endpoint."
	case c.Query("saved") != "":
		p.Notice = "Settings saved and applied."
	case c.Query("redacted") != "":
		p.Notice = "Redaction re-applied: " + c.Query("redacted") + " stored row(s) rewritten."
	}
	return h.renderSettings(c, p, fiber.StatusOK)
}

// renderSettings fills what every rendering of the page needs: the layout,
// the projects, the preview and the retention count.
func (h *Handler) renderSettings(c *fiber.Ctx, p views.SettingsPage, status int) error {
	ctx := c.UserContext()
	p.Meta = h.PageMeta(c, "Settings", "settings")
	projects, err := h.Store.Projects(ctx)
	if err != nil {
		return err
	}
	for _, pr := range projects {
		p.Projects = append(p.Projects, pr.Project)
	}
	project := c.Query("project")
	if project == "" && len(p.Projects) > 0 {
		project = p.Projects[0]
	}
	if p.Preview, err = h.contextPreview(ctx, project); err != nil {
		return err
	}
	if p.RetentionCount, err = retention.CountOlder(ctx, h.Store, p.S.Retention.ObservationDays, time.Now()); err != nil {
		return err
	}
	eh := h.embeddingsHealth(ctx)
	p.Embeddings = &views.EmbeddingsState{State: eh.State, Model: eh.Model, Done: eh.Embedded, Total: eh.Total, Error: eh.LastError}
	c.Status(status)
	return render(c, views.Settings(p))
}

// SaveSettingsForm serves POST /settings, the page's form (no JavaScript
// needed). Invalid input comes back as the page with each error next to its
// field (422); a retention that would delete observations asks to save again
// to confirm; success redirects to the page (303), back at the place the
// form says it was saved from (the hidden at and builtinOpen).
func (h *Handler) SaveSettingsForm(c *fiber.Ctx) error {
	cur := h.Settings.Current()
	proposed, clearKey, errs := settingsFromForm(c, cur)
	next, keyDropped := h.Settings.Prepare(cur, settings.Edit{Proposed: proposed, ClearSummarizerKey: clearKey,
		ClearEmbeddingsKey: c.FormValue("embeddings.clearApiKey") == "on"})
	page := views.SettingsPage{S: next, APIKeySet: next.Summarizer.APIKey != "", EmbeddingsKeySet: next.Embeddings.APIKey != "",
		At: views.SettingsPlace(c.FormValue("at")), BuiltinOpen: c.FormValue("builtinOpen") == "1"}
	page.S.Summarizer.APIKey, page.S.Embeddings.APIKey = "", ""
	// Validate the rest too, so every problem shows at once; a field that
	// was not even a number keeps that message.
	var ve *models.ValidationError
	if err := next.Validate(); errors.As(err, &ve) {
		errs = append(errs, ve.Fields...)
	} else if err != nil {
		return err
	}
	status := fiber.StatusUnprocessableEntity
	if d := dangerousChanges(cur, next); len(d) > 0 && !h.mayChangeDangerous(c, c.FormValue("secret")) {
		errs = append(errs, models.FieldError{Field: "secret", Message: dangerousRefusal(d)})
		status = fiber.StatusForbidden
	}
	if len(errs) > 0 {
		page.Errors = map[string]string{}
		for _, fe := range errs {
			if page.Errors[fe.Field] == "" {
				page.Errors[fe.Field] = fe.Message
			}
		}
		return h.renderSettings(c, page, status)
	}
	if days := next.Retention.ObservationDays; days > 0 && days != cur.Retention.ObservationDays && c.FormValue("retention.confirm") != strconv.Itoa(days) {
		n, err := retention.CountOlder(c.UserContext(), h.Store, days, time.Now())
		if err != nil {
			return err
		}
		if n > 0 {
			page.Warning = fmt.Sprintf("Not saved yet: keeping %d days deletes %d observation(s) now. Save again to confirm.", days, n)
			page.RetentionConfirm = strconv.Itoa(days)
			return h.renderSettings(c, page, fiber.StatusOK)
		}
	}
	if err := h.Settings.Save(c.UserContext(), cur, next); err != nil {
		return err
	}
	back := url.Values{"saved": {"1"}}
	if keyDropped {
		back.Set("keydropped", "1")
	}
	if page.BuiltinOpen {
		back.Set("open", "builtin")
	}
	return c.Redirect(settingsBack(back, page.At), fiber.StatusSeeOther)
}

// settingsBack is the settings page with query q, back at place at (see
// views.SettingsPlace; "" the top): its notice shows there, and the
// browser scrolls to it.
func settingsBack(q url.Values, at string) string {
	if at == "" {
		return "/settings?" + q.Encode()
	}
	q.Set("at", at)
	return "/settings?" + q.Encode() + "#settings-notice"
}

// ReapplyRedactionForm serves POST /settings/redact: with the confirmation
// box ticked, the current rules rewrite everything stored.
func (h *Handler) ReapplyRedactionForm(c *fiber.Ctx) error {
	if c.FormValue("confirm") != "yes" {
		st := h.Settings.Policy().Settings
		page := views.SettingsPage{S: st, APIKeySet: st.Summarizer.APIKey != "", EmbeddingsKeySet: st.Embeddings.APIKey != "",
			Errors: map[string]string{"confirm": "tick the box to confirm: this rewrites stored data"}}
		page.S.Summarizer.APIKey, page.S.Embeddings.APIKey = "", ""
		return h.renderSettings(c, page, fiber.StatusUnprocessableEntity)
	}
	res, err := retention.Reapply(c.UserContext(), h.Store, h.Settings.Policy().Redactor)
	if err != nil {
		return err
	}
	return c.Redirect(settingsBack(url.Values{"redacted": {strconv.FormatInt(res.Total(), 10)}}, "maintenance"), fiber.StatusSeeOther)
}

// settingsFromForm reads the page's form over the settings in force. It
// returns the field errors of values that are not even numbers; Validate
// judges the rest.
func settingsFromForm(c *fiber.Ctx, cur models.Settings) (st models.Settings, clearKey bool, errs []models.FieldError) {
	st = cur
	f := func(name string) string { return c.FormValue(name) }
	num := func(name string, dst *int) {
		v := strings.TrimSpace(f(name))
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, models.FieldError{Field: name, Message: fmt.Sprintf("%q is not a whole number", v)})
			return
		}
		*dst = n
	}
	on := func(name string) bool { return f(name) == "on" }

	st.Privacy.ExcludeGlobs = formLines(f("privacy.excludeGlobs"))
	st.Privacy.ExcludedProjects = formLines(f("privacy.excludedProjects"))
	st.Privacy.RedactionRules = formRules(c)

	st.Capture.SkipTools = formLines(f("capture.skipTools"))
	if aliases, bad := formAliases(f("capture.projectAliases")); bad != "" {
		errs = append(errs, models.FieldError{Field: "capture.projectAliases", Message: fmt.Sprintf("%q: write one \"path = project name\" per line", bad)})
	} else {
		st.Capture.ProjectAliases = aliases
	}
	st.Capture.ReadTools = f("capture.readTools")
	num("capture.outputCapBytes", &st.Capture.OutputCapBytes)

	num("injection.maxInjectTokens", &st.Injection.MaxInjectTokens)
	num("injection.sessions", &st.Injection.Sessions)
	num("injection.observations", &st.Injection.Observations)
	st.Injection.IncludeSummaries = on("injection.includeSummaries")
	st.Injection.DisabledProjects = formLines(f("injection.disabledProjects"))
	st.Injection.RelatedEnabled = on("injection.relatedEnabled")
	if v := strings.TrimSpace(f("injection.relatedThreshold")); v != "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			errs = append(errs, models.FieldError{Field: "injection.relatedThreshold", Message: fmt.Sprintf("%q is not a number", v)})
		} else {
			st.Injection.RelatedThreshold = x
		}
	}
	num("injection.relatedCount", &st.Injection.RelatedCount)
	st.Injection.FileRecallEnabled = on("injection.fileRecallEnabled")
	num("injection.fileRecallCount", &st.Injection.FileRecallCount)
	num("injection.fileRecallTokens", &st.Injection.FileRecallTokens)
	num("injection.failureHintTokens", &st.Injection.FailureHintTokens)

	num("retention.observationDays", &st.Retention.ObservationDays)

	st.Memory.Constraints = on("memory.constraints")
	st.Memory.Decisions = on("memory.decisions")
	st.Memory.Causes = on("memory.causes")
	st.Memory.Todos = on("memory.todos")
	num("memory.budgetShare", &st.Memory.BudgetShare)

	st.Summarizer.Kind = f("summarizer.kind")
	st.Summarizer.ClaudePath = strings.TrimSpace(f("summarizer.claudePath"))
	st.Summarizer.Model = strings.TrimSpace(f("summarizer.model"))
	st.Summarizer.BaseURL = strings.TrimSpace(f("summarizer.baseUrl"))
	st.Summarizer.APIKey = strings.TrimSpace(f("summarizer.apiKey"))
	if v := strings.TrimSpace(f("summarizer.dailyTokenBudget")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, models.FieldError{Field: "summarizer.dailyTokenBudget", Message: fmt.Sprintf("%q is not a whole number", v)})
		} else {
			st.Summarizer.DailyTokenBudget = n
		}
	}

	st.Embeddings.URL = strings.TrimSpace(f("embeddings.url"))
	st.Embeddings.Model = strings.TrimSpace(f("embeddings.model"))
	st.Embeddings.APIKey = strings.TrimSpace(f("embeddings.apiKey"))
	if v := strings.TrimSpace(f("embeddings.dimensions")); v == "" {
		st.Embeddings.Dimensions = 0
	} else {
		num("embeddings.dimensions", &st.Embeddings.Dimensions)
	}
	return st, on("summarizer.clearApiKey"), errs
}

// formLines splits a textarea into its non-empty, trimmed lines.
func formLines(s string) []string {
	out := []string{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// formAliases reads "path = project name" lines; bad is the first line
// without an "=".
func formAliases(s string) (aliases map[string]string, bad string) {
	aliases = map[string]string{}
	for _, l := range formLines(s) {
		path, name, ok := strings.Cut(l, "=")
		if !ok {
			return nil, l
		}
		aliases[strings.TrimSpace(path)] = strings.TrimSpace(name)
	}
	return aliases, ""
}

// formRules reads the redaction rule rows: a built-in's switch (its
// pattern and presence are models.UpdateSettings' to keep), a user rule
// edited or removed, and the "new rule" row when it is filled in.
func formRules(c *fiber.Ctx) []privacy.Rule {
	count, _ := strconv.Atoi(c.FormValue("privacy.redactionRules.count"))
	count = min(max(count, 0), 1000)
	out := []privacy.Rule{}
	for i := 0; i < count; i++ {
		field := func(name string) string { return c.FormValue("privacy.redactionRules." + strconv.Itoa(i) + "." + name) }
		name := strings.TrimSpace(field("name"))
		enabled := field("enabled") == "on"
		if field("builtin") == "1" {
			out = append(out, privacy.Rule{Name: name, Enabled: enabled, Builtin: true})
			continue
		}
		if field("remove") == "on" {
			continue
		}
		out = append(out, privacy.Rule{Name: name, Pattern: field("pattern"), Enabled: enabled})
	}
	if name, pattern := strings.TrimSpace(c.FormValue("newRule.name")), c.FormValue("newRule.pattern"); name != "" || pattern != "" {
		out = append(out, privacy.Rule{Name: name, Pattern: pattern, Enabled: true})
	}
	return out
}
