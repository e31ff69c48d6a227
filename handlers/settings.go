package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/ingest"
	"github.com/mneme-dev/mneme/internal/retention"
	"github.com/mneme-dev/mneme/models"
)

// Secret status words: write-only settings are shown as one of these, never
// as their value.
const (
	SecretSet    = "set"
	SecretNotSet = "not set"
)

// settingsJSON is GET /api/settings: the settings with the API key replaced
// by its status.
type settingsJSON struct {
	models.Settings
	Summarizer summarizerJSON `json:"summarizer"`
}

type summarizerJSON struct {
	models.SummarizerSettings
	// APIKey shadows the key: "set" or "not set".
	APIKey string `json:"apiKey"`
}

// settingsInput is PUT /api/settings: settings, with a write-only key that
// is kept when empty (or one of the status words) and cleared on request.
type settingsInput struct {
	models.Settings
	Summarizer struct {
		models.SummarizerSettings
		ClearAPIKey bool `json:"clearApiKey"`
	} `json:"summarizer"`
}

func publicSettings(st models.Settings) settingsJSON {
	out := settingsJSON{Settings: st, Summarizer: summarizerJSON{SummarizerSettings: st.Summarizer, APIKey: SecretNotSet}}
	if st.Summarizer.APIKey != "" {
		out.Summarizer.APIKey = SecretSet
	}
	out.Settings.Summarizer.APIKey = ""
	out.Summarizer.SummarizerSettings.APIKey = ""
	return out
}

// mergeSecret applies the write-only rule: an empty key (or a status word
// sent back as it was read) keeps the stored one; clear removes it. A key
// belongs to the endpoint it was entered for: when baseUrl changes and the
// key is not entered again, the stored key is dropped, not sent to the new
// address. It reports whether that happened.
func mergeSecret(next *models.Settings, cur models.Settings, clear bool) (droppedForBaseURL bool) {
	switch k := next.Summarizer.APIKey; {
	case clear:
		next.Summarizer.APIKey = ""
	case k == "" || k == SecretSet || k == SecretNotSet:
		next.Summarizer.APIKey = cur.Summarizer.APIKey
		if cur.Summarizer.APIKey != "" && !sameEndpoint(next.Summarizer.BaseURL, cur.Summarizer.BaseURL) {
			next.Summarizer.APIKey = ""
			return true
		}
	}
	return false
}

// sameEndpoint compares two base URLs as the client would use them.
func sameEndpoint(a, b string) bool {
	norm := func(u string) string { return strings.TrimRight(strings.TrimSpace(u), "/") }
	return norm(a) == norm(b)
}

// overlayBase is a deep copy of the settings in force to decode a PUT body
// over, with every list or map the body sends emptied first: decoding must
// never write into the live settings' arrays, and a list sent replaces the
// stored one rather than merging element by element.
func overlayBase(cur models.Settings, body []byte) (models.Settings, error) {
	var base models.Settings
	b, err := json.Marshal(cur)
	if err != nil {
		return base, err
	}
	if err := json.Unmarshal(b, &base); err != nil {
		return base, err
	}
	var probe map[string]map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return base, badRequest("malformed JSON: settings are an object of sections (privacy, capture, injection, retention, summarizer): " + err.Error())
	}
	sent := func(section, field string) bool { _, ok := probe[section][field]; return ok }
	if sent("privacy", "excludeGlobs") {
		base.Privacy.ExcludeGlobs = nil
	}
	if sent("privacy", "redactionRules") {
		base.Privacy.RedactionRules = nil
	}
	if sent("privacy", "excludedProjects") {
		base.Privacy.ExcludedProjects = nil
	}
	if sent("capture", "skipTools") {
		base.Capture.SkipTools = nil
	}
	if sent("capture", "projectAliases") {
		base.Capture.ProjectAliases = nil
	}
	if sent("injection", "disabledProjects") {
		base.Injection.DisabledProjects = nil
	}
	return base, nil
}

// keepBuiltins makes sure the built-in redaction rules survive any edit:
// they can be switched off, not removed or rewritten. A built-in left out
// is kept as it was; one sent with another pattern gets its own back.
func keepBuiltins(rules, cur []models.RedactionRule) []models.RedactionRule {
	builtin := map[string]models.RedactionRule{}
	for _, r := range models.BuiltinRedactionRules() {
		builtin[r.Name] = r
	}
	out := make([]models.RedactionRule, 0, len(rules)+len(builtin))
	seen := map[string]bool{}
	for _, r := range rules {
		if b, ok := builtin[r.Name]; ok && r.Builtin {
			r.Pattern = b.Pattern
			seen[r.Name] = true
		}
		out = append(out, r)
	}
	for _, r := range cur {
		if _, ok := builtin[r.Name]; ok && r.Builtin && !seen[r.Name] {
			out = append(out, r)
			seen[r.Name] = true
		}
	}
	return out
}

// ShowSettingsJSON serves GET /api/settings. Secrets are never returned.
func (h *Handler) ShowSettingsJSON(c *fiber.Ctx) error {
	return c.JSON(publicSettings(h.Capture.Policy().Settings))
}

// UpdateSettingsJSON serves PUT /api/settings. The body is decoded over the
// settings in force (fields left out keep their value), validated as a
// whole (422 with per-field errors), stored, applied and announced.
func (h *Handler) UpdateSettingsJSON(c *fiber.Ctx) error {
	cur := h.Capture.Policy().Settings
	base, err := overlayBase(cur, c.Body())
	if err != nil {
		return err
	}
	in := settingsInput{Settings: base}
	in.Summarizer.SummarizerSettings = base.Summarizer
	in.Summarizer.APIKey = ""
	if err := json.Unmarshal(c.Body(), &in); err != nil {
		return badRequest("malformed JSON: " + err.Error())
	}
	next := in.Settings
	next.Summarizer = in.Summarizer.SummarizerSettings
	mergeSecret(&next, cur, in.Summarizer.ClearAPIKey)
	next.Privacy.RedactionRules = keepBuiltins(next.Privacy.RedactionRules, cur.Privacy.RedactionRules)
	if d := dangerousChanges(cur, next); len(d) > 0 && !h.mayChangeDangerous(c, "") {
		return fiber.NewError(fiber.StatusForbidden, dangerousRefusal(d))
	}
	if err := h.saveSettings(c.UserContext(), cur, next); err != nil {
		return err
	}
	return c.JSON(publicSettings(next))
}

// saveSettings validates, stores and applies settings, and announces them
// on the live stream: the event is written in the same transaction as the
// settings and published only after the commit.
func (h *Handler) saveSettings(ctx context.Context, cur, next models.Settings) error {
	if err := next.Validate(); err != nil {
		return err
	}
	// The key has its own file (never the database). It is replaced
	// first, and put back if the settings cannot be stored.
	keyChanged := next.Summarizer.APIKey != cur.Summarizer.APIKey
	if keyChanged {
		if err := h.Store.SaveAPIKey(next.Summarizer.APIKey); err != nil {
			return err
		}
	}
	err := h.Store.Writer.Do(ctx, func(tx *models.Tx) error {
		if err := tx.SaveSettings(next); err != nil {
			return err
		}
		_, err := tx.AppendEvent(models.EventSettingsChanged, "", 0, 0, map[string]any{
			"sections": changedSections(cur, next), "updatedAt": time.Now().UTC(),
		})
		return err
	})
	if err != nil {
		if keyChanged {
			_ = h.Store.SaveAPIKey(cur.Summarizer.APIKey)
		}
		return err
	}
	h.Capture.SetSettings(next)
	if h.AfterSettings != nil {
		h.AfterSettings(next)
	}
	return nil
}

// changedSections names the top-level sections that differ (never their
// values: the event must not carry secrets).
func changedSections(a, b models.Settings) []string {
	out := []string{}
	pairs := []struct {
		name string
		x, y any
	}{
		{"privacy", a.Privacy, b.Privacy}, {"capture", a.Capture, b.Capture}, {"injection", a.Injection, b.Injection},
		{"retention", a.Retention, b.Retention}, {"summarizer", a.Summarizer, b.Summarizer},
	}
	for _, p := range pairs {
		x, _ := json.Marshal(p.x)
		y, _ := json.Marshal(p.y)
		if string(x) != string(y) {
			out = append(out, p.name)
		}
	}
	return out
}

// testRuleInput is POST /api/settings/test-rule.
type testRuleInput struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
	Sample  string `json:"sample"`
}

// TestRedactionRule serves POST /api/settings/test-rule: it applies one
// rule to a sample and answers the redacted text and the match count, or
// 422 with the regex error for the pattern field.
func (h *Handler) TestRedactionRule(c *fiber.Ctx) error {
	var in testRuleInput
	if err := json.Unmarshal(c.Body(), &in); err != nil {
		return badRequest("malformed JSON: " + err.Error())
	}
	if in.Name == "" {
		in.Name = "rule"
	}
	if len(in.Sample) > 64<<10 {
		return badRequest("sample too long (at most 64 KiB)")
	}
	// Validate the rule the way a save would, so the box and the form agree.
	st := models.DefaultSettings()
	st.Privacy.RedactionRules = []models.RedactionRule{{Name: in.Name, Pattern: in.Pattern, Enabled: true}}
	var ve *models.ValidationError
	if err := st.Validate(); errors.As(err, &ve) {
		for i := range ve.Fields {
			ve.Fields[i].Field = "rule." + lastSegment(ve.Fields[i].Field)
		}
		return ve
	}
	out, n, err := ingest.TestRule(models.RedactionRule{Name: in.Name, Pattern: in.Pattern, Enabled: true}, in.Sample)
	if err != nil {
		return &models.ValidationError{Fields: []models.FieldError{{Field: "rule.pattern", Message: err.Error()}}}
	}
	return c.JSON(fiber.Map{"result": out, "matches": n})
}

func lastSegment(field string) string {
	for i := len(field) - 1; i >= 0; i-- {
		if field[i] == '.' {
			return field[i+1:]
		}
	}
	return field
}

// RetentionPreview serves GET /api/settings/retention?days=: how many
// observations a retention of days would delete now.
func (h *Handler) RetentionPreview(c *fiber.Ctx) error {
	days := c.QueryInt("days", -1)
	if days < 0 || days > 36500 {
		return badRequest("days must be between 0 (keep forever) and 36500")
	}
	n, err := retention.CountOlder(c.UserContext(), h.Store, days, time.Now())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"days": days, "count": n})
}

// ReapplyRedactionJSON serves POST /api/settings/reapply-redaction: the
// current redaction rules rewrite everything already stored. The body must
// be {"confirm": true}.
func (h *Handler) ReapplyRedactionJSON(c *fiber.Ctx) error {
	var in struct {
		Confirm bool `json:"confirm"`
	}
	if err := json.Unmarshal(c.Body(), &in); err != nil || !in.Confirm {
		return badRequest(`re-applying redaction rewrites stored data: send {"confirm": true}`)
	}
	res, err := retention.Reapply(c.UserContext(), h.Store, h.Capture.Policy().Redactor)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"scanned": res.Scanned, "changed": res.Changed, "total": res.Total()})
}
