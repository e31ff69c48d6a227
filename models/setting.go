package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"gorm.io/gorm"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// Setting is one row of the settings table. mneme keeps its runtime settings
// as one JSON document under the key "runtime", validated as a whole.
type Setting struct {
	Key       string `gorm:"primaryKey"`
	Value     string
	UpdatedAt time.Time
}

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

// maxEmbeddingDims bounds the dimensions setting.
const maxEmbeddingDims = 8192

// MemorySettings control memories (see Memory): which kinds are
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

// KindEnabled reports whether memories of kind are extracted.
func (m MemorySettings) KindEnabled(kind string) bool {
	switch kind {
	case MemoryDecision:
		return m.Decisions
	case MemoryConstraint:
		return m.Constraints
	case MemoryCause:
		return m.Causes
	case MemoryTodo:
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

// BuiltinRedactionRules are the redaction rules every install starts with.
// Each can be switched off individually but not deleted.
func BuiltinRedactionRules() []privacy.Rule { return privacy.BuiltinRules() }

// DefaultSettings are the settings of a new install.
func DefaultSettings() Settings {
	return Settings{
		Privacy: PrivacySettings{
			ExcludeGlobs:     []string{"**/.env", "**/.env.*", "**/*.pem", "**/*id_rsa*", "**/secrets/**"},
			RedactionRules:   BuiltinRedactionRules(),
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

// FieldError is a validation problem with one setting. Field is a dotted
// path such as "privacy.redactionRules.2.pattern", so the page can show the
// message next to the field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError lists every problem found by Validate.
type ValidationError struct {
	Fields []FieldError `json:"fields"`
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + ": " + f.Message
	}
	return "invalid settings: " + strings.Join(parts, "; ")
}

// Is makes a ValidationError match ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Bounds of the file gate's settings: a few lines, a small budget (it
// comes before a tool call, not once per session).
const (
	maxFileRecallCount  = 10
	maxFileRecallTokens = 1000
	// maxFailureHintTokens bounds the failure hint's budget.
	maxFailureHintTokens = 1000
)

// MaxInjectBytes is Claude Code's limit on additionalContext; beyond it the
// text is silently truncated.
const MaxInjectBytes = 10 * 1024

// Validate checks the settings as a whole and returns a *ValidationError
// listing every problem, or nil.
func (s *Settings) Validate() error {
	var errs []FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	for i, g := range s.Privacy.ExcludeGlobs {
		if strings.TrimSpace(g) == "" {
			add(fmt.Sprintf("privacy.excludeGlobs.%d", i), "empty pattern")
		} else if !doublestar.ValidatePattern(g) {
			add(fmt.Sprintf("privacy.excludeGlobs.%d", i), "invalid glob %q", g)
		}
	}
	names := map[string]bool{}
	for i, r := range s.Privacy.RedactionRules {
		field := fmt.Sprintf("privacy.redactionRules.%d", i)
		if !validRuleName(r.Name) {
			add(field+".name", "name must be 1-40 letters, digits, '_' or '-'")
		} else if names[r.Name] {
			add(field+".name", "duplicate rule name %q", r.Name)
		}
		names[r.Name] = true
		if r.Pattern == "" {
			add(field+".pattern", "empty pattern")
		} else if re, err := regexp.Compile(r.Pattern); err != nil {
			add(field+".pattern", "%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		} else if re.MatchString("") {
			add(field+".pattern", "pattern matches the empty string")
		}
	}
	if s.Capture.OutputCapBytes < 512 || s.Capture.OutputCapBytes > 1<<20 {
		add("capture.outputCapBytes", "must be between 512 and 1048576")
	}
	for prefix, name := range s.Capture.ProjectAliases {
		if !strings.HasPrefix(prefix, "/") {
			add("capture.projectAliases", "path %q must be absolute", prefix)
		}
		if strings.TrimSpace(name) == "" {
			add("capture.projectAliases", "path %q needs a project name", prefix)
		}
	}
	switch s.Capture.ReadTools {
	case ReadsOff, ReadsMetadata, ReadsFull:
	default:
		add("capture.readTools", "must be off, metadata or full")
	}
	if s.Injection.MaxInjectTokens < 0 || s.Injection.MaxInjectTokens > MaxInjectBytes/4 {
		add("injection.maxInjectTokens", "must be between 0 and %d (Claude Code truncates context beyond 10 KB)", MaxInjectBytes/4)
	}
	if s.Injection.Sessions < 0 || s.Injection.Sessions > 50 {
		add("injection.sessions", "must be between 0 and 50")
	}
	if s.Injection.Observations < 0 || s.Injection.Observations > 500 {
		add("injection.observations", "must be between 0 and 500")
	}
	if s.Injection.RelatedThreshold < 0 || s.Injection.RelatedThreshold > 1 {
		add("injection.relatedThreshold", "must be between 0 and 1")
	}
	if s.Injection.RelatedCount < 0 || s.Injection.RelatedCount > 5 {
		add("injection.relatedCount", "must be between 0 and 5")
	}
	if s.Injection.FileRecallCount < 0 || s.Injection.FileRecallCount > maxFileRecallCount {
		add("injection.fileRecallCount", "must be between 0 and %d", maxFileRecallCount)
	}
	if s.Injection.FileRecallTokens < 0 || s.Injection.FileRecallTokens > maxFileRecallTokens {
		add("injection.fileRecallTokens", "must be between 0 and %d", maxFileRecallTokens)
	}
	if s.Injection.FailureHintTokens < 0 || s.Injection.FailureHintTokens > maxFailureHintTokens {
		add("injection.failureHintTokens", "must be between 0 and %d", maxFailureHintTokens)
	}
	if s.Retention.ObservationDays < 0 || s.Retention.ObservationDays > 36500 {
		add("retention.observationDays", "must be between 0 (keep forever) and 36500")
	}
	switch s.Summarizer.Kind {
	case "heuristic", "claude-cli", "anthropic-api":
	default:
		add("summarizer.kind", "must be heuristic, claude-cli or anthropic-api")
	}
	if s.Memory.BudgetShare < 0 || s.Memory.BudgetShare > 100 {
		add("memory.budgetShare", "must be between 0 and 100 (percent of maxInjectTokens)")
	}
	for _, p := range s.Memory.Trust {
		if _, err := CleanPerson(p); err != nil || p != strings.TrimSpace(p) {
			add("memory.trust", "each entry is a person's name (as their token names them) or * for everyone")
			break
		}
	}
	if s.Summarizer.DailyTokenBudget < 0 {
		add("summarizer.dailyTokenBudget", "must not be negative")
	}
	if u := strings.TrimSpace(s.Embeddings.URL); u != "" {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			add("embeddings.url", "must be an http:// or https:// URL, e.g. http://localhost:11434")
		}
		if strings.TrimSpace(s.Embeddings.Model) == "" {
			add("embeddings.model", "needs a model name when the URL is set, e.g. nomic-embed-text")
		}
	}
	if s.Embeddings.Dimensions < 0 || s.Embeddings.Dimensions > maxEmbeddingDims {
		add("embeddings.dimensions", "must be between 0 (whatever the model answers) and %d", maxEmbeddingDims)
	}
	if len(errs) > 0 {
		return &ValidationError{Fields: errs}
	}
	return nil
}

func validRuleName(n string) bool {
	if n == "" || len(n) > 40 {
		return false
	}
	for _, r := range n {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

const runtimeKey = "runtime"

// LoadSettings reads the runtime settings, falling back to the defaults for
// a new install. Fields missing from a stored document keep their defaults.
func (s *Store) LoadSettings(ctx context.Context) (Settings, error) {
	out := DefaultSettings()
	var row Setting
	err := s.db.WithContext(ctx).Where("key = ?", runtimeKey).First(&row).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
	case err != nil:
		return out, err
	default:
		if err := json.Unmarshal([]byte(row.Value), &out); err != nil {
			return DefaultSettings(), fmt.Errorf("stored settings are unreadable: %w", err)
		}
		// Settings stored by an older mneme get the built-in rules added
		// since, and the built-ins' current patterns.
		out.Privacy.RedactionRules = privacy.MergeBuiltins(out.Privacy.RedactionRules)
	}
	if out.Summarizer.APIKey != "" {
		// An older mneme kept the key in the row. A read-only store uses
		// it as it is; the next writable open moves it out.
		if s.readOnly {
			return out, nil
		}
		if err := s.moveAPIKeyOut(ctx, out); err != nil {
			return out, fmt.Errorf("move the API key out of the database: %w", err)
		}
	}
	key, err := s.loadAPIKey()
	if err != nil {
		return out, err
	}
	out.Summarizer.APIKey = key
	if out.Embeddings.APIKey, err = s.loadEmbeddingsKey(); err != nil {
		return out, err
	}
	return out, nil
}

// WriteSettings validates and stores the runtime settings inside tx, all
// but the API key, which lives in its own file (Store.SaveAPIKey).
func (tx *Tx) WriteSettings(st Settings) error {
	if err := st.Validate(); err != nil {
		return err
	}
	st.Summarizer.APIKey = ""
	st.Embeddings.APIKey = ""
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return tx.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		runtimeKey, string(b), time.Now().UTC()).Error
}
