package privacy

// Rule is a named regular expression whose matches are replaced by
// [REDACTED:<name>] in every stored field. A (?P<secret>…) group, when
// the pattern has one (or several alternatives each with one), limits the
// replacement to that part of the match.
type Rule struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
	Enabled bool   `json:"enabled"`
	Builtin bool   `json:"builtin,omitempty"`
}

// KeyRule is the built-in rule that also redacts, in JSON, the whole string
// value of a member named like a secret ({"password": "…"}, {"api_key":
// "…"}, {"Authorization": "…"}): it applies while that rule is enabled.
const KeyRule = "secret_assignment"

// BuiltinRules are the redaction rules every install starts with. Each can
// be switched off individually but not deleted or rewritten. Specific kinds
// come before the generic assignments, so the marker names the kind.
func BuiltinRules() []Rule { return append([]Rule(nil), builtins...) }

// builtins are made once per process: the hook needs them for every event.
var builtins = makeBuiltins()

func makeBuiltins() []Rule {
	rules := []Rule{
		{Name: "pem_private_key", Pattern: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*)`},
		{Name: "aws_access_key", Pattern: `\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b`},
		{Name: "aws_secret_key", Pattern: `(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})`},
		{Name: "github_token", Pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`},
		{Name: "anthropic_key", Pattern: `\bsk-ant-[A-Za-z0-9_\-]{20,}`},
		{Name: "openai_key", Pattern: `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`},
		// Stripe secret and restricted keys, live and test: a test key
		// still reads and writes the account's test data. Publishable
		// keys (pk_) are public by design.
		{Name: "stripe_key", Pattern: `\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}`},
		{Name: "google_api_key", Pattern: `\bAIza[0-9A-Za-z_\-]{35}`},
		{Name: "slack_token", Pattern: `\bxox[abposr]-[A-Za-z0-9\-]{10,}`},
		{Name: "slack_webhook", Pattern: `\bhooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_\-]+/[A-Za-z0-9_\-]+/[A-Za-z0-9_\-/]{8,})`},
		{Name: "npm_token", Pattern: `\bnpm_[A-Za-z0-9]{36}\b`},
		{Name: "huggingface_token", Pattern: `\bhf_[A-Za-z]{34,}\b`},
		// mneme's own person tokens (team mode, `mneme token create`).
		{Name: "mneme_token", Pattern: `\bmneme_pt_[0-9a-f]{64}\b`},
		// A Sentry DSN: https://<32 hex key>[:<secret>]@<host>/<project id>.
		{Name: "sentry_dsn", Pattern: `://(?P<secret>[0-9a-f]{32}(?::[^\s@/'"]*)?)@[A-Za-z0-9.\-]+(?::\d+)?/\d+\b`},
		{Name: "jwt", Pattern: `\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`},
		{Name: "bearer_token", Pattern: `(?i)\bbearer\s+(?P<secret>[A-Za-z0-9_\-\.=:/+~]{8,})`},
		// scheme://[user]:password@host; the password may hold '@' (the
		// last one before the host is the separator). A user name holds
		// no brackets, so an earlier rule's marker is not taken for one.
		// The patterns start at their literal ("://", "password"…) rather
		// than at the scheme or the start of the name, which are kept
		// anyway: a leading \b[…]* makes Go's matcher try every position
		// (secret_assignment ran at 2 MB/s on text full of candidates).
		{Name: "url_credentials", Pattern: `://[^\s:/@'"\[\]]*:(?P<secret>[^\s/'"]+)@`},
		// Environment-style assignments (upper case, no space around '='):
		// DB_PASS=…, GH_TOKEN="…", SIGNING_KEY='…'. The name is kept. A
		// name that only starts with such a word (TOKEN_LIMIT=5) is not a
		// secret's, and a value needs 4 characters or more.
		{Name: "env_secret", Pattern: `[A-Z0-9]_(?:PASS|PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY)=(?:"(?P<secret>[^"\n]{4,})"|'(?P<secret>[^'\n]{4,})'|(?P<secret>[^\s"'` + "`" + `;&|<>]{4,}))`},
		// A value in quotes is redacted whole, spaces and all.
		{Name: "secret_assignment", Pattern: `(?i)(?:password|passwd|secret|api[_\-]?key|private[_\-]?key|access[_\-]?key|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|api[_\-]?token|client[_\-]?secret)["']?\s*[:=]\s*(?:"(?P<secret>[^"\n]{4,})"|'(?P<secret>[^'\n]{4,})'|["']?(?P<secret>[^\s"',;]{4,}))`},
	}
	for i := range rules {
		rules[i].Enabled = true
		rules[i].Builtin = true
	}
	return rules
}

// MergeBuiltins returns rules with every built-in rule present: a built-in
// missing from rules (stored by an older mneme, or left out) is added,
// switched on, where it stands among the built-ins (before the first one
// present that comes after it, else after the last built-in present); one
// present keeps its switch and place but gets the current pattern back.
// The order matters: a specific rule must see a secret before a generic
// one cuts its context. A user's own rule that happens to carry a
// built-in's name is kept as it is, instead of that built-in (two rules
// cannot share a name).
func MergeBuiltins(rules []Rule) []Rule {
	index := map[string]int{}
	for i, b := range builtins {
		index[b.Name] = i
	}
	present := map[string]bool{}
	lastBuiltin := -1
	for i, r := range rules {
		if _, ok := index[r.Name]; ok {
			present[r.Name] = true
			if r.Builtin {
				lastBuiltin = i
			}
		}
	}
	out := make([]Rule, 0, len(rules)+len(builtins))
	// addMissing adds the missing built-ins that come before position
	// upTo of the built-in list.
	addMissing := func(upTo int) {
		for _, b := range builtins[:upTo] {
			if !present[b.Name] {
				out = append(out, b)
				present[b.Name] = true
			}
		}
	}
	if lastBuiltin < 0 {
		addMissing(len(builtins))
	}
	for i, r := range rules {
		j, known := index[r.Name]
		if known && r.Builtin {
			addMissing(j)
			r.Pattern = builtins[j].Pattern
		}
		out = append(out, r)
		if i == lastBuiltin {
			addMissing(len(builtins))
		}
	}
	return out
}
