// Package privacy is mneme's privacy pipeline for text: it strips private
// blocks (<private>, mneme's own injected context, system reminders) and
// redacts secrets by named rules, in plain text, in identifiers and inside
// JSON documents (by decoded value, and by member name).
//
// It imports only the standard library, so that the hook process
// (mneme-hook, package hooks) runs the same pipeline before anything
// is sent to the worker or written to the spool; the worker runs it again
// on every stored string, with the user's rules from the settings. The
// worker hands its rules to the hook in <data>/redaction.json (WriteRules,
// LoadRules).
package privacy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Clean strips tags and redacts secrets: the treatment of every stored
// string. NUL bytes are dropped and invalid UTF-8 replaced, so what is
// stored is always clean text. It reads the whole of s: cut a text only
// after cleaning it, or a secret across the cut survives in part. A text
// that is itself a JSON document (an MCP tool's text content) is cleaned
// as CleanJSON cleans one, by member name and decoded value, down to
// maxNestedDepth documents in each other.
func (r *Redactor) Clean(s string) string { return r.clean(s, 0) }

// Documents written inside strings are decoded down to maxNestedDepth
// levels, and only up to maxNestedBytes long: deeper or longer ones are
// cleaned as text.
const (
	maxNestedDepth = 4
	maxNestedBytes = 1 << 20
)

func (r *Redactor) clean(s string, depth int) string {
	s = StripTags(Sanitize(s))
	if r != nil && depth < maxNestedDepth && looksLikeJSON(s) {
		if c, ok := r.cleanNested(s, depth+1); ok {
			return c
		}
	}
	return r.Redact(s)
}

// Sanitize drops NUL bytes and replaces invalid UTF-8.
func Sanitize(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// idHashLen is how many hex digits of the hash CleanID appends.
const idHashLen = 16

// CleanID cleans an identifier (a session, tool use or prompt id). One
// that cleaning leaves as it is is returned unchanged. One it changes gets
// "~" and a hash of the raw identifier appended to its cleaned form: the
// same raw identifier always gives the same stored one, so the events of
// one session stay together, and two identifiers that differ only in
// their secret do not merge. The hash is an HMAC with the install's key
// (WithIDKey, LoadIDKey), so a short secret cannot be found by hashing
// guesses; without a key it is a plain SHA-256.
func (r *Redactor) CleanID(s string) string {
	c := r.Clean(s)
	if c == s {
		return s
	}
	var key []byte
	if r != nil && r.idKey != nil {
		key = r.idKey()
	}
	var sum []byte
	if len(key) > 0 {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(s))
		sum = m.Sum(nil)
	} else {
		h := sha256.Sum256([]byte("mneme-id\x00" + s))
		sum = h[:]
	}
	return c + "~" + hex.EncodeToString(sum)[:idHashLen]
}

// idKeys are the JSON members that hold identifiers, cleaned by CleanID
// wherever they appear: Claude Code's payload fields and the names the
// compatible routes and mneme's own events give them.
var idKeys = map[string]bool{
	"session_id": true, "tool_use_id": true, "prompt_id": true,
	"claudeSessionId": true, "contentSessionId": true, "sessionId": true, "toolUseId": true,
}

// IsIDKey reports whether a JSON member of that name holds an identifier.
func IsIDKey(name string) bool { return idKeys[name] }

// secretNameSuffixes end the (lower-cased, separator-free) names of JSON
// members whose string value is a secret as a whole.
var secretNameSuffixes = []string{
	"password", "passwd", "passphrase", "secret", "token", "apikey", "privatekey",
	"accesskey", "secretkey", "authorization", "credential", "credentials", "cookie",
}

// secretNameExact are such names that only count as a whole word (a
// "bypass" or "compass" is no password). "pwd" is not one: it is as
// often the working directory.
var secretNameExact = []string{"pass", "auth"}

// SecretName reports whether a JSON member named name holds a secret as a
// whole: password, db_password, apiKey, X-Api-Key, Authorization,
// client_secret, access_token, credentials, cookie, pass… Names only
// starting with such a word (token_type, secretName, passwordless) do not.
func SecretName(name string) bool {
	if len(name) < 3 || len(name) > 64 {
		return false
	}
	var b strings.Builder
	lastWord := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'A' <= c && c <= 'Z':
			if i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z' {
				lastWord = b.Len() // camelCase starts a word
			}
			b.WriteByte(c + 'a' - 'A')
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b.WriteByte(c)
		default:
			lastWord = b.Len()
		}
	}
	n := b.String()
	for _, suf := range secretNameSuffixes {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	last := n[lastWord:]
	for _, w := range secretNameExact {
		if last == w {
			return true
		}
	}
	return false
}
