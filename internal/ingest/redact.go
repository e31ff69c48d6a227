package ingest

import (
	"github.com/mneme-dev/mneme/internal/privacy"
	"github.com/mneme-dev/mneme/models"
)

// Redactor replaces secrets with [REDACTED:<rule>] (see privacy.Redactor:
// the hook runs the same code before it sends or spools an event).
type Redactor = privacy.Redactor

// NewRedactor compiles the enabled rules. Invalid rules are skipped (settings
// validation rejects them before they are saved).
func NewRedactor(rules []models.RedactionRule) *Redactor { return privacy.New(rules) }

// TestRule applies one rule to sample and counts its matches, for the
// settings page's "test this rule" box.
func TestRule(rule models.RedactionRule, sample string) (result string, matches int, err error) {
	return privacy.TestRule(rule, sample)
}
