package web

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/handlers"
	"github.com/mneme-dev/mneme/models"
)

// routes registers every route of the worker: the whole URL space in one
// place, in groups. A group's middleware runs before each of its own
// handlers, and only theirs (see group), so what protects a route is what
// its group says, whatever the order of registration:
//
//   - public: what a request without credentials may reach;
//   - api: JSON, credentials required, CSRF checked on a browser's writes;
//   - compat: claude-mem and jikime-mem routes, like api;
//   - pages: HTML, credentials required (a stranger gets the login page),
//     CSRF token issued on views and required on every write;
//   - live: the stream and the HTML fragments app.js fetches.
//
// A person's API token (team mode) is refused (403) everywhere but in the
// groups made with open: teamAPI, teamCompat and teamLive, which are
// api, compat and live opened to persons for hook events and reads.
func routes(app *fiber.App, opts Options, h *handlers.Handler) {
	csrf := csrfProtection()
	need := requireCredentials(h)
	public := group{r: app, before: []fiber.Handler{kind(routePublic)}}
	api := group{r: app.Group("/api"), before: []fiber.Handler{kind(routeAPI), need, csrf}}
	compat := group{r: app, before: []fiber.Handler{kind(routeCompat), need, csrf}}
	pages := group{r: app, before: []fiber.Handler{kind(routePage), need, csrf}}
	live := group{r: app, before: []fiber.Handler{kind(routeLive), need}}
	teamAPI, teamCompat, teamLive := api.open(), compat.open(), live.open()

	// Logging in: the login page (with its own double-submit token, see
	// handlers.Login), the pasted secret, static assets and a minimal
	// health answer. One-time links (`mneme open`) need the socket or the
	// secret.
	public.get("/login", h.ShowLogin)
	public.post("/login", h.Login)
	public.get("/api/health", h.ShowHealth) // says more with credentials
	app.Use("/static", kind(routePublic), staticHandler(opts.Dev))
	api.post("/login-links", h.CreateLoginLink)

	// Native ingest: Claude Code's hook JSON in, the hook's answer out.
	teamAPI.post("/hooks/:event", h.IngestHook)

	// claude-mem compatibility. POST /sessions/:id/init is theirs too,
	// outside /api.
	teamCompat.get("/api/context/inject", h.InjectContext)
	teamCompat.post("/api/sessions/init", h.CompatSessionInit())
	teamCompat.post("/sessions/:id/init", h.CompatSessionInit())
	teamCompat.post("/api/sessions/observations", h.CompatObservation())
	teamCompat.post("/api/sessions/summarize", h.CompatSummarize())
	teamCompat.post("/api/sessions/complete", h.CompatSessionComplete())
	teamCompat.post("/api/processing", h.CompatProcessing)

	// jikime-mem compatibility.
	teamCompat.post("/api/sessions/start", h.CompatSessionStart())
	teamCompat.get("/api/context", h.CompatContext)
	teamCompat.post("/api/prompts", h.CompatPrompt())
	teamCompat.post("/api/observations", h.CompatObservation())
	teamCompat.post("/api/responses", h.CompatSummarize())
	teamCompat.post("/api/sessions/stop", h.CompatSessionComplete())

	// Read API (persons too).
	teamAPI.get("/sessions", h.ListSessions)
	teamAPI.get("/sessions/:id", h.ShowSessionJSON)
	teamAPI.get("/observations", h.ListObservations)
	teamAPI.post("/observations/batch", h.ObservationsBatch)
	teamAPI.get("/prompts", h.ListPrompts)
	teamAPI.get("/summaries", h.ListSummaries)
	teamAPI.get("/search", h.SearchJSON)
	teamAPI.get("/timeline", h.TimelineJSON)
	teamAPI.get("/projects", h.ListProjects)
	teamAPI.get("/stats", h.StatsJSON)
	teamAPI.get("/memories", h.ListMemories)
	// MCP's remember, the owner's own, and a person's (a teammate's
	// memory, proposed unless trusted); the changes, accept and reject
	// included, are the owner's.
	teamAPI.post("/memories", h.Remember)
	api.post("/memories/:id", h.ChangeMemory)
	api.get("/import", h.ShowImportJSON)
	api.post("/import/events", h.ImportEvents)                  // `mneme import`: hook events from transcripts
	api.post("/import/export-rows", h.ImportExportRows)         // `mneme import FILE.json`: sessions of the full export
	api.post("/import/export-memories", h.ImportExportMemories) // and its memories outside any session
	api.post("/import/known", h.KnownSessions)                  // `mneme import --dry-run`: which sessions are in memory

	// Export: session reports as downloads (md, json, html), one session
	// or a project's sessions since a date (persons too). `mneme export`
	// uses these too. The full export and backups are the owner's.
	teamAPI.get("/sessions/:id/export", h.ExportSession)
	teamAPI.get("/export", h.ExportProject)
	api.get("/export/all", h.ExportAll)
	// Backup: a consistent snapshot of the database (`mneme backup`).
	api.get("/backup", h.Backup)

	// Team mode's API tokens: the owner's only (socket, secret or the
	// viewer's login), never a person's.
	api.get("/tokens", h.ListTokens)
	api.post("/tokens", h.CreateToken)
	api.delete("/tokens/:id", h.RevokeToken)

	// Settings as JSON (secrets are write-only).
	api.get("/settings", h.ShowSettingsJSON)
	api.put("/settings", h.UpdateSettingsJSON)
	api.post("/settings/test-rule", h.TestRedactionRule)
	api.get("/settings/retention", h.RetentionPreview)
	api.get("/settings/preview", h.PreviewContextJSON)
	api.post("/settings/reapply-redaction", h.ReapplyRedactionJSON)

	// Forgetting: rows deleted for good, with their events, index entries
	// and freed bytes (forget.Do); the answer counts them.
	api.delete("/observations/:id", h.ForgetJSON(models.ForgetObservation))
	api.delete("/prompts/:id", h.ForgetJSON(models.ForgetPrompt))
	api.delete("/sessions/:id", h.ForgetJSON(models.ForgetSession))
	api.delete("/projects/:id", h.ForgetJSON(models.ForgetProject))
	api.delete("/memories/:id", h.ForgetJSON(models.ForgetMemory))
	api.get("/forget/:target/:id", h.PreviewForgetJSON)

	// Live: the stream, and the HTML fragments app.js fetches for live
	// rows and "load more" (rendered by the same components as the pages).
	teamLive.get("/stream", h.Stream)
	live.get("/fragments/feed", h.ShowFeedFragment)
	live.get("/fragments/event/:id", h.ShowEventFragment)
	live.get("/fragments/memory/:id", h.ShowMemoryFragment)
	live.get("/fragments/sessions/:id", h.ShowSessionRowFragment)
	live.get("/fragments/sessions/:id/head", h.ShowSessionHeadFragment)

	// Pages: the viewer (templ, rendered on the server). Settings is a
	// plain form (works without JavaScript); every save is validated as a
	// whole, applied at once and announced on /stream as settings_changed.
	pages.get("/", h.ShowFeed)
	pages.get("/sessions", h.ShowSessions)
	pages.get("/sessions/:id", h.ShowSession)
	pages.post("/sessions/:id/title", h.RenameSession) // the rename form (CSRF token required)
	pages.get("/search", h.ShowSearch)
	pages.get("/stats", h.ShowStats)
	pages.get("/settings", h.ShowSettings)
	pages.post("/settings", h.SaveSettingsForm)
	pages.post("/settings/redact", h.ReapplyRedactionForm)
	// Forget: a confirmation page, then its form (CSRF token required).
	pages.get("/forget/:target/:id", h.ShowForget)
	pages.post("/forget/:target/:id", h.ForgetForm)
	// Memory: a project's decisions, constraints, causes and todos, and
	// their row actions (pin, edit, retire, reinstate) as forms.
	pages.get("/memory", h.ShowMemory)
	pages.post("/memory/:id", h.MemoryForm)
	pages.get("/import", h.ShowImport)
	pages.post("/import", h.StartImport)

	// Anything else: a stranger learns nothing, not even which paths or
	// methods exist (401); others get the 404 or 405.
	app.Use(need)
}

// group is a set of routes under one router (the app, or a fiber.Group for
// a prefix) whose middleware runs before each of their handlers. Unlike
// middleware given to fiber.Group, which runs for every path under the
// prefix whichever group registered it, it applies to these routes only.
type group struct {
	r      fiber.Router
	before []fiber.Handler
}

// open is the same group opened to persons' API tokens (see persons).
func (g group) open() group {
	return group{r: g.r, before: append([]fiber.Handler{persons}, g.before...)}
}

func (g group) chain(h fiber.Handler) []fiber.Handler {
	return append(append(make([]fiber.Handler, 0, len(g.before)+1), g.before...), h)
}

func (g group) get(path string, h fiber.Handler)  { g.r.Get(path, g.chain(h)...) }
func (g group) post(path string, h fiber.Handler) { g.r.Post(path, g.chain(h)...) }
func (g group) put(path string, h fiber.Handler)  { g.r.Put(path, g.chain(h)...) }
func (g group) delete(path string, h fiber.Handler) {
	g.r.Delete(path, g.chain(h)...)
}

// routeKind is which group a request's route belongs to: it decides how
// errors are answered (an HTML page or JSON) and what the CSRF check asks.
type routeKind int

const (
	routeUnknown routeKind = iota // no route matched (404), or refused before routing
	routePublic
	routeAPI
	routeCompat
	routePage
	routeLive
)

const routeKindKey = "mneme.routeKind"

// kind marks the request's route kind.
func kind(k routeKind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(routeKindKey, k)
		return c.Next()
	}
}

func kindOf(c *fiber.Ctx) routeKind {
	k, _ := c.Locals(routeKindKey).(routeKind)
	return k
}
