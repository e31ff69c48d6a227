package settingsrules

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
)

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

// Bounds of the file gate's settings: a few lines, a small budget (it
// comes before a tool call, not once per session).
const (
	maxFileRecallCount  = 10
	maxFileRecallTokens = 1000
	// maxFailureHintTokens bounds the failure hint's budget.
	maxFailureHintTokens = 1000
)

// maxEmbeddingDims bounds the dimensions setting.
const maxEmbeddingDims = 8192

// maxPersonLen is the longest person's name, as models.CleanPerson has it.
const maxPersonLen = 64

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
		} else if !validGlob(g) {
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
		if !validPerson(p) {
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

// validPerson reports whether p names a person as a token does
// (models.CleanPerson: 1 to 64 characters, no control characters) with
// nothing to trim, or is TrustAll.
func validPerson(p string) bool {
	return p != "" && p == strings.TrimSpace(p) && len([]rune(p)) <= maxPersonLen &&
		strings.IndexFunc(p, unicode.IsControl) < 0
}

// validGlob reports whether g is a pattern doublestar (which matches the
// exclude globs, in internal/shape) accepts, with '/' as the separator:
// every escape has its byte, every class is closed and not empty, and
// every brace is balanced. It is doublestar.ValidatePattern's rule,
// written again to keep this package on the standard library; the tests
// hold the two equal.
func validGlob(g string) bool {
	depth := 0
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			if i++; i >= len(g) {
				return false
			}
		case '[':
			if i++; i < len(g) && (g[i] == '^' || g[i] == '!') {
				i++
			}
			if i >= len(g) || g[i] == ']' {
				return false
			}
			for ; i < len(g) && g[i] != ']'; i++ {
				if g[i] == '\\' {
					i++
				}
			}
			if i >= len(g) {
				return false
			}
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return false
			}
			depth--
		}
	}
	return depth == 0
}
