package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"gorm.io/gorm"
)

// Setting is one row of the settings table. mneme keeps its runtime settings
// as one JSON document under the key "runtime", validated as a whole.
type Setting struct {
	Key       string `gorm:"primaryKey"`
	Value     string
	UpdatedAt time.Time
}

// RedactionRule is a named regular expression whose matches are replaced by
// [REDACTED:<name>] in every stored field.
type RedactionRule struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
	Enabled bool   `json:"enabled"`
	Builtin bool   `json:"builtin,omitempty"`
}

// Read-tool capture modes (Read, Grep, Glob, LS, NotebookRead).
const (
	ReadsOff      = "off"      // not recorded at all
	ReadsMetadata = "metadata" // title, path and counts only: no file content
	ReadsFull     = "full"     // like any other tool, content included
)

// PrivacySettings control what never reaches the database.
type PrivacySettings struct {
	ExcludeGlobs     []string        `json:"excludeGlobs"`
	RedactionRules   []RedactionRule `json:"redactionRules"`
	ExcludedProjects []string        `json:"excludedProjects"`
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

// Settings are mneme's runtime settings, edited on the settings page.
type Settings struct {
	Privacy    PrivacySettings    `json:"privacy"`
	Capture    CaptureSettings    `json:"capture"`
	Injection  InjectionSettings  `json:"injection"`
	Retention  RetentionSettings  `json:"retention"`
	Summarizer SummarizerSettings `json:"summarizer"`
}

// BuiltinRedactionRules are the redaction rules every install starts with.
// Each can be switched off individually but not deleted.
func BuiltinRedactionRules() []RedactionRule {
	rules := []RedactionRule{
		{Name: "pem_private_key", Pattern: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`},
		{Name: "aws_access_key", Pattern: `\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b`},
		{Name: "aws_secret_key", Pattern: `(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})`},
		{Name: "github_token", Pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`},
		{Name: "anthropic_key", Pattern: `\bsk-ant-[A-Za-z0-9_\-]{20,}`},
		{Name: "openai_key", Pattern: `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`},
		{Name: "slack_token", Pattern: `\bxox[abposr]-[A-Za-z0-9\-]{10,}`},
		{Name: "jwt", Pattern: `\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`},
		{Name: "bearer_token", Pattern: `(?i)\bbearer\s+(?P<secret>[A-Za-z0-9_\-\.=:/+~]{8,})`},
		{Name: "stripe_key", Pattern: `\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`},
		{Name: "google_api_key", Pattern: `\bAIza[0-9A-Za-z_\-]{35}`},
		{Name: "slack_webhook", Pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/\-]{8,})`},
		{Name: "npm_token", Pattern: `\bnpm_[A-Za-z0-9]{36}\b`},
		{Name: "huggingface_token", Pattern: `\bhf_[A-Za-z0-9]{30,}\b`},
		{Name: "sentry_dsn", Pattern: `(?i)\bhttps?://(?P<secret>[0-9a-f]{32}(?::[0-9a-f]{32})?)@`},
		{Name: "url_credentials", Pattern: `\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@'"\[\]]+:(?P<secret>[^\s@/'"]+)@`},
		{Name: "secret_assignment", Pattern: `(?i)\b[A-Za-z0-9_\-]*(?:password|passwd|secret|api[_\-]?key|private[_\-]?key|access[_\-]?key|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|api[_\-]?token|client[_\-]?secret)["']?\s*[:=]\s*["']?(?P<secret>[^\s"',;]{4,})`},
		// Environment-style assignments: an upper-case name ending in
		// _PASS, _TOKEN, _SECRET, _KEY… (DB_PASS=, CI_JOB_TOKEN=,
		// SIGNING_KEY=). The name stays; MAX_TOKENS= and TOKEN_LIMIT= do not
		// match.
		{Name: "env_secret", Pattern: `\b[A-Z][A-Z0-9_]*_(?:PASS|PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY|APIKEY|CREDENTIALS?)\s*=\s*["']?(?P<secret>[^\s"';&|]{4,})`},
	}
	for i := range rules {
		rules[i].Enabled = true
		rules[i].Builtin = true
	}
	return rules
}

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
		},
		Summarizer: SummarizerSettings{Kind: "heuristic", ClaudePath: "claude", Model: "claude-haiku-4-5"},
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
	if s.Retention.ObservationDays < 0 || s.Retention.ObservationDays > 36500 {
		add("retention.observationDays", "must be between 0 (keep forever) and 36500")
	}
	switch s.Summarizer.Kind {
	case "heuristic", "claude-cli", "anthropic-api":
	default:
		add("summarizer.kind", "must be heuristic, claude-cli or anthropic-api")
	}
	if s.Summarizer.DailyTokenBudget < 0 {
		add("summarizer.dailyTokenBudget", "must not be negative")
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
	err := s.DB.WithContext(ctx).Where("key = ?", runtimeKey).First(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(row.Value), &out); err != nil {
		return DefaultSettings(), fmt.Errorf("stored settings are unreadable: %w", err)
	}
	out.Privacy.RedactionRules = WithBuiltins(out.Privacy.RedactionRules)
	return out, nil
}

// WithBuiltins brings stored rules up to this version's built-ins: a
// built-in the stored set lacks (added since it was saved) is appended,
// enabled, and every built-in gets this version's pattern. Whether a
// built-in is switched on stays the user's choice.
func WithBuiltins(rules []RedactionRule) []RedactionRule {
	have := make(map[string]int, len(rules))
	for i, r := range rules {
		if r.Builtin {
			have[r.Name] = i
		}
	}
	out := append([]RedactionRule(nil), rules...)
	for _, b := range BuiltinRedactionRules() {
		if i, ok := have[b.Name]; ok {
			out[i].Pattern = b.Pattern
			continue
		}
		out = append(out, b)
	}
	return out
}

// SaveSettings validates and stores the runtime settings inside tx.
func SaveSettings(tx *gorm.DB, st Settings) error {
	if err := st.Validate(); err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return tx.Exec(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		runtimeKey, string(b), time.Now().UTC()).Error
}
