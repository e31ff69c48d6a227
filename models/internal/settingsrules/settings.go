// Package settingsrules holds the rules of mneme's runtime settings, apart
// from the row that stores them: their shape and JSON format, the
// defaults of a new install, the validation of each field, an edit's
// decoding and merge into the settings in force, and which sections a
// change touches. It imports only the standard library and
// internal/privacy, so the rules are tested without a database; models
// reads and writes the row (Decode, Encode) and names the types.
package settingsrules

import (
	"errors"
	"strings"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// ErrInvalid is the error every invalid input matches, a *ValidationError
// among them; models.ErrInvalid is this value.
var ErrInvalid = errors.New("invalid")

// Read-tool capture modes (Read, Grep, Glob, LS, NotebookRead).
const (
	ReadsOff      = "off"      // not recorded at all
	ReadsMetadata = "metadata" // title, path and counts only: no file content
	ReadsFull     = "full"     // like any other tool, content included
)

// PrivacySettings control what never reaches the database.
type PrivacySettings struct {
	ExcludeGlobs     []string       `json:"excludeGlobs"`
	RedactionRules   []privacy.Rule `json:"redactionRules"`
	ExcludedProjects []string       `json:"excludedProjects"`
}

// CaptureSettings control which tool calls are recorded and how much of them.
type CaptureSettings struct {
	SkipTools      []string          `json:"skipTools"`
	ReadTools      string            `json:"readTools"`
	OutputCapBytes int               `json:"outputCapBytes"`
	ProjectAliases map[string]string `json:"projectAliases,omitempty"` // path prefix → project name
}

// InjectionSettings control the context given to new sessions.
type InjectionSettings struct {
	MaxInjectTokens  int      `json:"maxInjectTokens"`
	Sessions         int      `json:"sessions"`
	Observations     int      `json:"observations"`
	IncludeSummaries bool     `json:"includeSummaries"`
	DisabledProjects []string `json:"disabledProjects"`
	RelatedEnabled   bool     `json:"relatedEnabled"`
	RelatedThreshold float64  `json:"relatedThreshold"`
	RelatedCount     int      `json:"relatedCount"`
	// The file gate (PreToolUse): before Claude reads or edits a file, at
	// most FileRecallCount one-line memories of it, within
	// FileRecallTokens, once per file and session.
	FileRecallEnabled bool `json:"fileRecallEnabled"`
	FileRecallCount   int  `json:"fileRecallCount"`
	FileRecallTokens  int  `json:"fileRecallTokens"`
	// FailureHintTokens bounds the hint a failure seen before gets
	// (when, how it was fixed, its root cause), once per signature and
	// session; 0 turns it off.
	FailureHintTokens int `json:"failureHintTokens"`
}

// RetentionSettings control how long observations are kept.
type RetentionSettings struct {
	ObservationDays int `json:"observationDays"` // 0 keeps forever
}

// SummarizerSettings choose and configure the summarizer.
type SummarizerSettings struct {
	Kind             string `json:"kind"` // heuristic, claude-cli, anthropic-api
	ClaudePath       string `json:"claudePath"`
	Model            string `json:"model"`
	BaseURL          string `json:"baseUrl"`
	APIKey           string `json:"apiKey,omitempty"` // write-only: never returned
	DailyTokenBudget int64  `json:"dailyTokenBudget"`
}

// EmbeddingsSettings point the embeddings at an OpenAI-compatible
// embeddings endpoint (POST {url}/v1/embeddings). An empty URL or model
// leaves the embeddings off: search is full-text only.
type EmbeddingsSettings struct {
	// URL is the endpoint's root, e.g. http://localhost:11434 (Ollama).
	URL   string `json:"url"`
	Model string `json:"model"`
	// Dimensions is the vectors' length (0: whatever the model answers).
	Dimensions int    `json:"dimensions"`
	APIKey     string `json:"apiKey,omitempty"` // write-only: never returned
}

// Enabled reports whether embeddings are on.
func (e EmbeddingsSettings) Enabled() bool {
	return strings.TrimSpace(e.URL) != "" && strings.TrimSpace(e.Model) != ""
}

// MemorySettings control memories (see models.Memory): which kinds are
// extracted from turns, and the share of the SessionStart budget they may
// take before the other sections.
type MemorySettings struct {
	Decisions   bool `json:"decisions"`
	Constraints bool `json:"constraints"`
	Causes      bool `json:"causes"`
	Todos       bool `json:"todos"`
	// BudgetShare is the percentage of maxInjectTokens the memories in
	// force may fill (0 injects none).
	BudgetShare int `json:"budgetShare"`
	// Trust names the teammates whose memories are in force without the
	// owner's review (team mode); "*" trusts everyone. Others' memories
	// are proposed until accepted.
	Trust []string `json:"trust"`
}

// TrustAll in MemorySettings.Trust trusts every teammate.
const TrustAll = "*"

// Trusts reports whether the owner trusts person's memories.
func (m MemorySettings) Trusts(person string) bool {
	for _, p := range m.Trust {
		if p == TrustAll || p == person {
			return true
		}
	}
	return false
}

// KindEnabled reports whether memories of kind are extracted. The kinds
// are models.Memory's (MemoryDecision and the others); models' tests
// check that each of them has its switch here.
func (m MemorySettings) KindEnabled(kind string) bool {
	switch kind {
	case "decision":
		return m.Decisions
	case "constraint":
		return m.Constraints
	case "cause":
		return m.Causes
	case "todo":
		return m.Todos
	}
	return false
}

// Settings are mneme's runtime settings, edited on the settings page.
type Settings struct {
	Privacy    PrivacySettings    `json:"privacy"`
	Capture    CaptureSettings    `json:"capture"`
	Injection  InjectionSettings  `json:"injection"`
	Retention  RetentionSettings  `json:"retention"`
	Summarizer SummarizerSettings `json:"summarizer"`
	Memory     MemorySettings     `json:"memory"`
	Embeddings EmbeddingsSettings `json:"embeddings"`
}

// Defaults are the settings of a new install.
func Defaults() Settings {
	return Settings{
		Privacy: PrivacySettings{
			ExcludeGlobs:     []string{"**/.env", "**/.env.*", "**/*.pem", "**/*id_rsa*", "**/secrets/**"},
			RedactionRules:   privacy.BuiltinRules(),
			ExcludedProjects: []string{},
		},
		Capture: CaptureSettings{
			SkipTools:      []string{"ListMcpResourcesTool", "SlashCommand", "Skill", "TodoWrite", "AskUserQuestion"},
			ReadTools:      ReadsMetadata,
			OutputCapBytes: 10 * 1024,
		},
		Injection: InjectionSettings{
			MaxInjectTokens:  2000,
			Sessions:         5,
			Observations:     50,
			IncludeSummaries: true,
			DisabledProjects: []string{},
			RelatedEnabled:   true,
			RelatedThreshold: 0.5,
			RelatedCount:     3,

			FileRecallEnabled: true,
			FileRecallCount:   3,
			FileRecallTokens:  200,
			FailureHintTokens: 200,
		},
		Summarizer: SummarizerSettings{Kind: "heuristic", ClaudePath: "claude", Model: "claude-haiku-4-5"},
		Memory:     MemorySettings{Decisions: true, Constraints: true, Causes: true, Todos: true, BudgetShare: 40, Trust: []string{}},
	}
}
