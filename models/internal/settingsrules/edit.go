package settingsrules

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/mneme-dev/mneme/internal/privacy"
)

// Status words of the write-only API key: the key is shown as one of
// these, never as its value, and sending one back keeps the stored key.
const (
	APIKeySet    = "set"
	APIKeyNotSet = "not set"
)

// ErrMalformed is the error of a settings document that is not JSON of
// the settings' shape.
var ErrMalformed = errors.New("malformed JSON")

// Decode reads a stored settings document over the defaults: fields
// missing from it keep their defaults, and settings stored by an older
// mneme get the built-in redaction rules added since, and the built-ins'
// current patterns. An unreadable document gives the defaults and the
// error.
func Decode(doc []byte) (Settings, error) {
	out := Defaults()
	if err := json.Unmarshal(doc, &out); err != nil {
		return Defaults(), err
	}
	out.Privacy.RedactionRules = privacy.MergeBuiltins(out.Privacy.RedactionRules)
	return out, nil
}

// Encode validates st and returns the document to store: all of it but
// the API keys, which live in files of their own.
func Encode(st Settings) ([]byte, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	st.Summarizer.APIKey = ""
	st.Embeddings.APIKey = ""
	return json.Marshal(st)
}

// Update applies the rules every edit of the settings obeys, from the API
// or from the page, to proposed (the settings in force with the edit
// applied) and returns the settings to store:
//
//   - Built-in redaction rules survive any edit: they can be switched off,
//     not removed or rewritten. One sent with another pattern gets its own
//     back; one left out is kept as it was.
//   - The API key is write-only. An empty key, or a status word sent back
//     as it was read, keeps the stored one; clearKey removes it.
//   - A key belongs to the endpoint it was entered for: when baseUrl
//     changes and the key is not entered again, the stored key is dropped
//     rather than sent to the new address (keyDropped). The embeddings
//     endpoint's key follows the same rules; clearing it is the caller's,
//     after this.
func Update(cur, proposed Settings, clearKey bool) (next Settings, keyDropped bool) {
	next = proposed
	keyDropped = updateKey(&next.Summarizer.APIKey, cur.Summarizer.APIKey, next.Summarizer.BaseURL, cur.Summarizer.BaseURL, clearKey)
	if updateKey(&next.Embeddings.APIKey, cur.Embeddings.APIKey, next.Embeddings.URL, cur.Embeddings.URL, false) {
		keyDropped = true
	}
	next.Privacy.RedactionRules = keepBuiltins(next.Privacy.RedactionRules, cur.Privacy.RedactionRules)
	return next, keyDropped
}

// updateKey applies the write-only key rules to one endpoint's key: key
// is the one proposed, curKey the one stored for curURL, and nextURL the
// endpoint the key will be sent to.
func updateKey(key *string, curKey, nextURL, curURL string, clearKey bool) (keyDropped bool) {
	switch k := *key; {
	case clearKey:
		*key = ""
	case k == "" || k == APIKeySet || k == APIKeyNotSet:
		*key = curKey
		if curKey != "" && !sameEndpoint(nextURL, curURL) {
			*key = ""
			keyDropped = true
		}
	}
	return keyDropped
}

// sameEndpoint compares two base URLs as the client would use them.
func sameEndpoint(a, b string) bool {
	norm := func(u string) string { return strings.TrimRight(strings.TrimSpace(u), "/") }
	return norm(a) == norm(b)
}

// keepBuiltins restores the built-in rules in rules: a built-in sent gets
// its own pattern back, and one left out of rules is kept as it is in cur.
func keepBuiltins(rules, cur []privacy.Rule) []privacy.Rule {
	builtin := map[string]privacy.Rule{}
	for _, r := range privacy.BuiltinRules() {
		builtin[r.Name] = r
	}
	out := make([]privacy.Rule, 0, len(rules)+len(builtin))
	seen := map[string]bool{}
	for _, r := range rules {
		if r.Builtin {
			b, ok := builtin[r.Name]
			switch {
			case seen[r.Name]:
				continue
			case ok:
				r.Pattern = b.Pattern
				seen[r.Name] = true
			case r.Pattern == "":
				continue // a built-in this mneme does not have, and nothing to keep
			default:
				r.Builtin = false // not a built-in: the user's rule
			}
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

// patch is a settings document as PUT /api/settings takes it: the
// settings, with a write-only key and the request to clear it.
type patch struct {
	Settings
	Summarizer struct {
		SummarizerSettings
		ClearAPIKey bool `json:"clearApiKey"`
	} `json:"summarizer"`
	Embeddings struct {
		EmbeddingsSettings
		ClearAPIKey bool `json:"clearApiKey"`
	} `json:"embeddings"`
}

// Patch decodes a JSON settings document over cur: fields left out keep
// their value, and a list or map that is sent replaces the stored one (it
// is not merged element by element). It returns the proposed settings for
// Update and whether the key is to be cleared. Decoding never writes into
// cur's lists and maps.
func Patch(cur Settings, body []byte) (proposed Settings, clearKey bool, err error) {
	var base Settings
	b, err := json.Marshal(cur)
	if err != nil {
		return base, false, err
	}
	if err := json.Unmarshal(b, &base); err != nil {
		return base, false, err
	}
	var probe map[string]map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return base, false, errors.Join(ErrMalformed, errors.New("settings are an object of sections (privacy, capture, injection, retention, summarizer, memory, embeddings): "+err.Error()))
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
	in := patch{Settings: base}
	in.Summarizer.SummarizerSettings = base.Summarizer
	in.Summarizer.APIKey = ""
	in.Embeddings.EmbeddingsSettings = base.Embeddings
	in.Embeddings.APIKey = ""
	if err := json.Unmarshal(body, &in); err != nil {
		return base, false, errors.Join(ErrMalformed, err)
	}
	proposed = in.Settings
	proposed.Summarizer = in.Summarizer.SummarizerSettings
	proposed.Embeddings = in.Embeddings.EmbeddingsSettings
	return proposed, in.Summarizer.ClearAPIKey, nil
}

// ClearsEmbeddingsKey reports whether a settings document asks to clear
// the embeddings endpoint's key ({"embeddings": {"clearApiKey": true}}).
func ClearsEmbeddingsKey(body []byte) bool {
	var in struct {
		Embeddings struct {
			ClearAPIKey bool `json:"clearApiKey"`
		} `json:"embeddings"`
	}
	_ = json.Unmarshal(body, &in)
	return in.Embeddings.ClearAPIKey
}

// Changed names the top-level sections that differ between a and b, for
// the settings_changed event (which never carries their values).
func Changed(a, b Settings) []string {
	out := []string{}
	pairs := []struct {
		name string
		x, y any
	}{
		{"privacy", a.Privacy, b.Privacy}, {"capture", a.Capture, b.Capture}, {"injection", a.Injection, b.Injection},
		{"retention", a.Retention, b.Retention}, {"summarizer", a.Summarizer, b.Summarizer}, {"memory", a.Memory, b.Memory},
		{"embeddings", a.Embeddings, b.Embeddings},
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
