package views

import (
	"sort"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/models"
)

// SettingsPage is the view model of /settings.
type SettingsPage struct {
	Meta PageMeta
	// S is the settings shown: those in force, or the ones just submitted
	// when they failed validation (so the user sees what they typed).
	S models.Settings
	// APIKeySet tells whether a summarizer API key is stored; the key itself
	// never reaches the page.
	APIKeySet bool
	// EmbeddingsKeySet tells the same of the embeddings endpoint's key.
	EmbeddingsKeySet bool
	// Embeddings is the embeddings' state (nil: not known here).
	Embeddings *EmbeddingsState
	// Errors maps a field path (as models.FieldError.Field) to its message.
	Errors map[string]string
	// Notice is a success message; Warning asks for a confirmation.
	Notice, Warning string
	// At is the place a save was made from (SettingsPlace: a section's
	// id, or builtin-rules): the notice shows there, and the page comes
	// back to it. "" for the top of the page.
	At string
	// BuiltinOpen keeps the built-in redaction rules unfolded, as they
	// were when the form was saved.
	BuiltinOpen bool
	// RetentionConfirm, when not empty, is the retention (in days) whose
	// deletions the user is asked to confirm by saving again.
	RetentionConfirm string
	// RetentionCount is how many observations the shown retention would
	// delete now.
	RetentionCount int64
	// Projects are the known projects (for the preview and hints).
	Projects []string
	Preview  ContextPreview
}

// EmbeddingsState is the embeddings' state as health reports it.
type EmbeddingsState struct {
	// State is "off", "ok", "pending" (nothing tried yet) or "error".
	State       string
	Model       string
	Done, Total int64
	// Error is the endpoint's last failure, "" when it answers.
	Error string
}

// ContextPreview is what a new session of Project would be given now.
type ContextPreview struct {
	Project   string
	Text      string
	Tokens    int
	Bytes     int
	MaxTokens int
}

// settingsSections are the settings page's sections, in page order, for
// its index: the ids of their fieldsets and sections.
var settingsSections = []struct{ ID, Label string }{
	{"privacy", "Privacy"}, {"capture", "Capture"}, {"injection", "Context injection"}, {"memory", "Memory"},
	{"retention", "Retention"}, {"summarizer", "Summarizer"}, {"embeddings", "Semantic search"}, {"preview", "Preview"}, {"maintenance", "Re-apply redaction"},
}

// SettingsPlace is at when it names a place on the settings page a save
// can come back to (a section's id, or builtin-rules), else "".
func SettingsPlace(at string) string {
	if at == "builtin-rules" {
		return at
	}
	for _, s := range settingsSections {
		if s.ID == at {
			return at
		}
	}
	return ""
}

// boolValue is a hidden field's value for b: "1" or "".
func boolValue(b bool) string {
	if b {
		return "1"
	}
	return ""
}

func (p SettingsPage) fieldErr(field string) string { return p.Errors[field] }

func settingsLines(ss []string) string { return strings.Join(ss, "\n") }

func settingsFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func ruleField(i int, name string) string {
	return "privacy.redactionRules." + strconv.Itoa(i) + "." + name
}

// settingsFieldID turns a field path into an element id.
func settingsFieldID(field string) string { return "f-" + strings.ReplaceAll(field, ".", "-") }

// settingsErrID is the id of a field's error message (aria-describedby).
func settingsErrID(field string) string { return settingsFieldID(field) + "-err" }

// aliasLines renders project aliases as sorted "path = name" lines.
func aliasLines(aliases map[string]string) []string {
	out := make([]string, 0, len(aliases))
	for path, name := range aliases {
		out = append(out, path+" = "+name)
	}
	sort.Strings(out)
	return out
}
