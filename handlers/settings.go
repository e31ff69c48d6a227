package handlers

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/internal/retention"
	"github.com/mneme-dev/mneme/internal/settings"
	"github.com/mneme-dev/mneme/models"
)

// settingsJSON is GET /api/settings: the settings with the API key replaced
// by its status.
type settingsJSON struct {
	models.Settings
	Summarizer summarizerJSON `json:"summarizer"`
	Embeddings embeddingsJSON `json:"embeddings"`
}

type embeddingsJSON struct {
	models.EmbeddingsSettings
	// APIKey shadows the key: "set" or "not set".
	APIKey string `json:"apiKey"`
}

type summarizerJSON struct {
	models.SummarizerSettings
	// APIKey shadows the key: "set" or "not set".
	APIKey string `json:"apiKey"`
}

func publicSettings(st models.Settings) settingsJSON {
	out := settingsJSON{Settings: st, Summarizer: summarizerJSON{SummarizerSettings: st.Summarizer, APIKey: models.APIKeyNotSet}}
	if st.Summarizer.APIKey != "" {
		out.Summarizer.APIKey = models.APIKeySet
	}
	out.Settings.Summarizer.APIKey = ""
	out.Summarizer.SummarizerSettings.APIKey = ""
	out.Embeddings = embeddingsJSON{EmbeddingsSettings: st.Embeddings, APIKey: models.APIKeyNotSet}
	if st.Embeddings.APIKey != "" {
		out.Embeddings.APIKey = models.APIKeySet
	}
	out.Settings.Embeddings.APIKey = ""
	out.Embeddings.EmbeddingsSettings.APIKey = ""
	return out
}

// ShowSettingsJSON serves GET /api/settings. Secrets are never returned.
func (h *Handler) ShowSettingsJSON(c *fiber.Ctx) error {
	return c.JSON(publicSettings(h.Settings.Current()))
}

// UpdateSettingsJSON serves PUT /api/settings. The body is decoded over the
// settings in force (fields left out keep their value), validated as a
// whole (422 with per-field errors), stored, applied and announced.
func (h *Handler) UpdateSettingsJSON(c *fiber.Ctx) error {
	cur := h.Settings.Current()
	proposed, clearKey, err := models.PatchSettings(cur, c.Body())
	if err != nil {
		return badRequest(err.Error())
	}
	next, _ := h.Settings.Prepare(cur, settings.Edit{Proposed: proposed, ClearSummarizerKey: clearKey,
		ClearEmbeddingsKey: models.PatchEmbeddingsClear(c.Body())})
	if d := dangerousChanges(cur, next); len(d) > 0 && !h.mayChangeDangerous(c, "") {
		return fiber.NewError(fiber.StatusForbidden, dangerousRefusal(d))
	}
	if err := h.Settings.Save(c.UserContext(), cur, next); err != nil {
		return err
	}
	return c.JSON(publicSettings(next))
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
	st.Privacy.RedactionRules = []privacy.Rule{{Name: in.Name, Pattern: in.Pattern, Enabled: true}}
	var ve *models.ValidationError
	if err := st.Validate(); errors.As(err, &ve) {
		for i := range ve.Fields {
			ve.Fields[i].Field = "rule." + lastSegment(ve.Fields[i].Field)
		}
		return ve
	}
	out, n, err := privacy.TestRule(privacy.Rule{Name: in.Name, Pattern: in.Pattern, Enabled: true}, in.Sample)
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
	res, err := retention.Reapply(c.UserContext(), h.Store, h.Settings.Policy().Redactor)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"scanned": res.Scanned, "changed": res.Changed, "total": res.Total()})
}
