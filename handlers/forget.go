package handlers

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/forget"
	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/views"
)

// The right to forget: DELETE on the API, and a confirmation page with a
// CSRF-protected form in the viewer. Both end in forget.Do, which
// deletes the rows, announces a forgotten event on /stream and scrubs
// the files.

// forgetTarget reads what a request names: the target (from the route,
// or :target on the pages), and the id (observations, prompts, sessions:
// a positive number; a session may also be named by Claude Code's
// session id) or project name. A malformed id is a 400.
func (h *Handler) forgetTarget(c *fiber.Ctx, target string) (id int64, project string, err error) {
	raw := strings.Clone(c.Params("id")) // Fiber reuses the buffer
	if u, err := url.PathUnescape(raw); err == nil {
		raw = u
	}
	switch target {
	case models.ForgetProject:
		if raw == "" {
			return 0, "", badRequest("give the project's name")
		}
		return 0, raw, nil
	case models.ForgetSession:
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil && n > 0 {
			return n, "", nil
		}
		s, err := h.Store.SessionByClaudeID(c.UserContext(), raw)
		if err != nil {
			return 0, "", notFoundMsg(target, raw, err)
		}
		return s.ID, "", nil
	case models.ForgetObservation, models.ForgetPrompt, models.ForgetMemory:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			return 0, "", badRequest(target + " id must be a positive whole number")
		}
		return n, "", nil
	}
	return 0, "", fiber.NewError(fiber.StatusNotFound, "nothing to forget of kind "+strconv.Quote(target)+": observation, prompt, session or project")
}

// notFoundMsg turns models.ErrNotFound into a 404 that names what was
// looked for.
func notFoundMsg(target, key string, err error) error {
	if u, uerr := url.PathUnescape(key); uerr == nil {
		key = u
	}
	if errors.Is(err, models.ErrNotFound) {
		return fiber.NewError(fiber.StatusNotFound, fmt.Sprintf("no %s %s", target, key))
	}
	return err
}

// ForgetJSON serves DELETE /api/observations/:id, /api/prompts/:id,
// /api/sessions/:id and /api/projects/:id: the rows are deleted for good
// (forget.Do) and the answer counts them, per table.
func (h *Handler) ForgetJSON(target string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, project, err := h.forgetTarget(c, target)
		if err != nil {
			return err
		}
		out, err := forget.Do(c.UserContext(), h.Store, target, id, project)
		if err != nil {
			return notFoundMsg(target, c.Params("id"), err)
		}
		return c.JSON(out)
	}
}

// PreviewForgetJSON serves GET /api/forget/:target/:id: what forgetting
// it would delete (`mneme forget` asks before it deletes).
func (h *Handler) PreviewForgetJSON(c *fiber.Ctx) error {
	p, err := h.preview(c)
	if err != nil {
		return err
	}
	return c.JSON(p)
}

// preview reads :target and :id and counts what forgetting them deletes.
func (h *Handler) preview(c *fiber.Ctx) (*models.ForgetPreview, error) {
	target := c.Params("target")
	id, project, err := h.forgetTarget(c, target)
	if err != nil {
		return nil, err
	}
	p, err := h.Store.PreviewForget(c.UserContext(), target, id, project)
	return p, notFoundMsg(target, c.Params("id"), err)
}

// ShowForget serves GET /forget/:target/:id: what forgetting it deletes,
// and a form to confirm.
func (h *Handler) ShowForget(c *fiber.Ctx) error {
	p, err := h.preview(c)
	if err != nil {
		return err
	}
	page := views.ForgetPage{Meta: h.PageMeta(c, "Forget "+p.Target, ""), Preview: *p, Action: c.OriginalURL()}
	return render(c, views.Forget(page))
}

// ForgetForm serves POST /forget/:target/:id, the confirmation page's
// form: it forgets, then goes back to the session (for an observation or
// a prompt) or the session list, saying what was deleted.
func (h *Handler) ForgetForm(c *fiber.Ctx) error {
	target := c.Params("target")
	id, project, err := h.forgetTarget(c, target)
	if err != nil {
		return err
	}
	var back string
	if target == models.ForgetObservation || target == models.ForgetPrompt {
		if p, err := h.Store.PreviewForget(c.UserContext(), target, id, project); err == nil {
			back = "/sessions/" + strconv.FormatInt(p.SessionID, 10)
		}
	}
	if target == models.ForgetMemory {
		back = memoryNext(c.Query("next")) // the Memory page the link was on
		if p, err := h.Store.PreviewForget(c.UserContext(), target, id, project); err == nil && back == "" {
			back = "/memory?project=" + url.QueryEscape(p.Project)
		}
	}
	out, err := forget.Do(c.UserContext(), h.Store, target, id, project)
	if err != nil {
		return notFoundMsg(target, c.Params("id"), err)
	}
	if back == "" {
		back = "/sessions"
	}
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	d := out.Deleted
	counts := fmt.Sprintf("%d.%d.%d.%d.%d", d.Sessions, d.Prompts, d.Observations, d.Summaries, d.Memories)
	return c.Redirect(back+sep+"forgotten="+counts, fiber.StatusSeeOther)
}

// forgottenNotice is the notice a page shows after a forget: the counts
// the redirect carries
// (?forgotten=sessions.prompts.observations.summaries.memories; a link
// from before memories has no fifth number), read as numbers, so no text
// of the URL reaches the page.
func forgottenNotice(q string) string {
	var n [5]int64
	parts := strings.Split(q, ".")
	if len(parts) != 4 && len(parts) != 5 {
		return ""
	}
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 {
			return ""
		}
		n[i] = v
	}
	// The counts that are not zero, in words.
	var said []string
	for i, w := range [5][2]string{{"session", "sessions"}, {"prompt", "prompts"}, {"tool call", "tool calls"}, {"summary", "summaries"}, {"memory", "memories"}} {
		if n[i] > 0 {
			said = append(said, count(n[i], w[0], w[1]))
		}
	}
	if len(said) == 0 {
		return "Forgotten."
	}
	return "Forgotten: " + strings.Join(said, ", ") + "."
}

// count is "1 prompt", "2 prompts".
func count(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}
