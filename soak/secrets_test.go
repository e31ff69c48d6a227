//go:build unix

package soak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/privacy"
)

// secretKind is one kind of secret: text is what is planted, core the part
// of it that must appear nowhere (nor any 12 characters of it, in any
// letter case), rule the marker expected in its place.
type secretKind struct{ rule, text, core string }

// secretKinds holds every built-in rule's kind of secret, some in more
// than one form, the user's own rule (corp_ticket, set through the
// settings before the run), and private blocks nested in each other.
var secretKinds = []secretKind{
	{"pem_private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsoakPEMcoreZZ9x8w7v6u5t4s3r2q1\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAsoakPEMcoreZZ9x8w7v6u5t4s3r2q1"},
	{"aws_access_key", "AKIASOAKTESTKEY12345", "AKIASOAKTESTKEY12345"},
	{"aws_secret_key", "aws_secret_access_key=SoakAwsSecretKey0123456789abcdefghijklmn", "SoakAwsSecretKey0123456789abcdefghijklmn"},
	{"github_token", "ghp_SoakGithubToken0123456789abcdefghijkl", "ghp_SoakGithubToken0123456789abcdefghijkl"},
	{"anthropic_key", "sk-ant-api03-SoakAnthropicKey0123456789", "sk-ant-api03-SoakAnthropicKey0123456789"},
	{"openai_key", "sk-proj-SoakOpenAIKey0123456789abcdef", "sk-proj-SoakOpenAIKey0123456789abcdef"},
	{"stripe_key", "sk_live_SoakStripeLive0123456789ab", "SoakStripeLive0123456789ab"},
	{"stripe_key", "rk_test_SoakStripeRestricted01234", "SoakStripeRestricted01234"},
	{"google_api_key", "AIzaSoakGoogleKey0123456789abcdefghijklm", "SoakGoogleKey0123456789abcdefghijklm"},
	{"slack_token", "xoxb-123456789-SoakSlackToken", "123456789-SoakSlackToken"},
	{"slack_webhook", "https://hooks.slack.com/services/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", "T0SOAK123/B0SOAK456/SoakSlackWebhookSecret99"},
	{"npm_token", "npm_SoakNpmToken0123456789abcdefghijklmn", "SoakNpmToken0123456789abcdefghijklmn"},
	{"huggingface_token", "hf_SoakHuggingFaceTokenAbcdefghijklmno", "SoakHuggingFaceTokenAbcdefghijklmno"},
	{"mneme_token", "MNEME_TOKEN=mneme_pt_50a450a450a450a450a450a450a450a450a450a450a450a450a450a450a450a4", "50a450a450a450a450a450a450a450a450a450a450a450a450a450a450a450a4"},
	{"sentry_dsn", "https://5fa4c0de5fa4c0de5fa4c0de5fa4c0de@o4242.ingest.sentry.io/4242", "5fa4c0de5fa4c0de5fa4c0de5fa4c0de"},
	{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzb2FrIjoiand0In0.SoakJwtSignature0123", "eyJzb2FrIjoiand0In0.SoakJwtSignature0123"},
	{"bearer_token", "Authorization: Bearer SoakBearerToken0123456789", "SoakBearerToken0123456789"},
	{"url_credentials", "https://soakuser:SoakUrlPassw0rd@git.example.com/r.git", "SoakUrlPassw0rd"},
	{"url_credentials", "redis://:SoakRedisPassw0rd@cache:6379/0", "SoakRedisPassw0rd"},
	{"secret_assignment", "DB_PASSWORD=SoakAssignedSecret42", "SoakAssignedSecret42"},
	{"secret_assignment", `password: "Soak Quoted Secret 42"`, "Soak Quoted Secret 42"},
	{"env_secret", "DEPLOY_TOKEN='SoakEnvStyleToken77'", "SoakEnvStyleToken77"},
	// Issue 21: real shell traffic. Escaped quotes (curl -d, docker -e,
	// httpie), tokens beside '_' (a file name, an MCP tool's name), the
	// kinds added then, and JSON written in text.
	{"secret_assignment", `curl -d "{\"username\":\"admin\",\"password\":\"SoakCurlEscPw0006\"}" https://api.example.com/login`, "SoakCurlEscPw0006"},
	{"env_secret", `docker run -e DB_PASSWORD=\"SoakDockerEscPw07\" postgres`, "SoakDockerEscPw07"},
	{"secret_assignment", `http POST api/x "{\"api_key\": \"SoakHttpieApiKey08\", \"client_secret\":\"SoakClientSecEsc09\"}"`, "SoakHttpieApiKey08"},
	{"aws_access_key", "cat creds_AKIASOAKUNDERSC0RE12.csv mcp__srv-AKIASOAKUNDERSC0RE12__x", "AKIASOAKUNDERSC0RE12"},
	{"slack_token", "mcp__x__xoxb-987654321-SoakSlackUnderscore", "987654321-SoakSlackUnderscore"},
	{"pem_private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGVsoakPGPcoreZZ9x8w7v6u5t4s3r2q1\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGVsoakPGPcoreZZ9x8w7v6u5t4s3r2q1"},
	{"slack_token", "xapp-1-A0SOAK12345-1234567890123-soakappsecret0123", "A0SOAK12345-1234567890123-soakappsecret0123"},
	{"basic_auth", "Authorization: Basic U29ha0Jhc2ljQXV0aDAwMjU=", "U29ha0Jhc2ljQXV0aDAwMjU"},
	{"env_secret", "SECRET_KEY_BASE=SoakKeyBase0123456789abcdef", "SoakKeyBase0123456789abcdef"},
	{"yaml_secret", "auth:\n  session_token: SoakYamlToken0123456\n", "SoakYamlToken0123456"},
	{"azure_key", "DefaultEndpointsProtocol=https;AccountName=soak;AccountKey=U29ha0F6dXJlS2V5MDEyMzQ1Njc4OWFiY2RlZg==;EndpointSuffix=core.windows.net", "U29ha0F6dXJlS2V5MDEyMzQ1Njc4OWFiY2RlZg"},
	{"url_credentials", "psql postgres://u:SoakPgPw0027@db.internal:5432/app", "SoakPgPw0027"},
	{"conn_string_password", "Server=db;Database=app;User Id=sa;Password=Soak Ado Pw 0028;", "Soak Ado Pw 0028"},
	{"json_secret_member", `{"user":"a","session_token":"SoakJsonInText0029","cookie":"sid=SoakJsonCookie0030"}`, "SoakJsonInText0029"},
	// Issue 36: the shapes developers type and paste (commands, config
	// files), and the kinds added for them.
	{"mysql_password", "mysql -h db -uroot -pSoakMysqlPw0040 app", "SoakMysqlPw0040"},
	{"curl_user_password", "curl -u admin:SoakCurlUserPw41 https://ci.example.com/api", "SoakCurlUserPw41"},
	{"netrc_password", "machine api.example.com\n  login soak\n  password SoakNetrcPw0042\n", "SoakNetrcPw0042"},
	{"cli_secret_flag", "vercel deploy --prod --token SoakTokenFlag0043", "SoakTokenFlag0043"},
	{"xml_secret", "<server><id>nexus</id><password>SoakXmlPassw0044</password></server>", "SoakXmlPassw0044"},
	{"docker_auth", `config: {"auths":{"r.example.com":{"auth":"U29ha0RvY2tlckF1dGgwMDQ1"}}}`, "U29ha0RvY2tlckF1dGgwMDQ1"},
	{"secret_assignment", "gpg-wrapper passphrase=SoakPassphrase46", "SoakPassphrase46"},
	{"secret_assignment", "PGPASSWORD=SoakPgPassword47 psql -h db", "SoakPgPassword47"},
	{"sshpass_password", "sshpass -p 'Soak Sshpass 0048' ssh deploy@host", "Soak Sshpass 0048"},
	{"password_hash", "admin:$apr1$SoakSalt$SoakHtpasswdHash0049", "SoakHtpasswdHash0049"},
	{"url_credentials", "git clone https://oauth2:SoakGitCloneTok50@gitlab.example.com/g/r.git", "SoakGitCloneTok50"},
	{"secret_assignment", "//npm.example.com/:_authToken=SoakNpmrcToken0051", "SoakNpmrcToken0051"},
	{"npmrc_auth", "_auth=U29ha05wbXJjQXV0aDAwNTI=", "U29ha05wbXJjQXV0aDAwNTI"},
	{"secret_assignment", "[pypi]\nusername = __token__\npassword = SoakPypircPassw53\n", "SoakPypircPassw53"},
	{"kube_client_key", "    client-key-data: U29ha0t1YmVDbGllbnRLZXkwMDU0\n", "U29ha0t1YmVDbGllbnRLZXkwMDU0"},
	{"login_password", "docker login -u ci -p SoakDockerLogin55 registry.example.com", "SoakDockerLogin55"},
	{"gitlab_token", "glpat-SoakGitlabToken0056abcd", "SoakGitlabToken0056abcd"},
	{"cookie_header", "curl -H 'Cookie: sid=SoakCookieHdr0057' https://app.example.com", "SoakCookieHdr0057"},
	// A JSON member whose name is written with escapes, in text.
	{"json_secret_member", `resp {"pass\u0077ord":"SoakEscapedName58"}`, "SoakEscapedName58"},
	{"corp_ticket", "CORP-SECRET-8472910365", "SECRET-8472910365"}, // "CORP-SECRET-" is in the rule's pattern
	{"nested_private", "<private>outer <private>SoakInnerPrivate1</private> SoakNestedTail0123</private>", "SoakNestedTail0123"},
}

// corpRule is the user's own rule, set on the settings before any event.
const corpRule = `{"privacy":{"redactionRules":[{"name":"corp_ticket","pattern":"CORP-SECRET-\\d{10}","enabled":true}]}}`

// jsonNamedSecrets are secrets that only their JSON member's name makes
// secrets (secret_assignment redacts the whole value by name).
var jsonNamedSecrets = map[string]string{
	"password":      "Soak Member Password 1",
	"api_key":       "soak-member-apikey-2",
	"Authorization": "Basic U29ha01lbWJlckF1dGgz",
	"client_secret": "soak.member.secret.4",
}

// nestedDoc is an MCP tool's text content that is itself a JSON document:
// members named like secrets, and a key written with a JSON escape.
const nestedDoc = `{"token":"SoakNestedTok0031","session_token":"SoakNestedSess0032","cookie":"SoakNestedCookie33","k":"\u0041KIASOAKNESTED000034"}`

// nestedDocSecrets are nestedDoc's secrets.
var nestedDocSecrets = []string{"SoakNestedTok0031", "SoakNestedSess0032", "SoakNestedCookie33", "AKIASOAKNESTED000034"}

// soakEvent is one event: through the hook (Slug) or the HTTP ingest or a
// compatible route (Path).
type soakEvent struct {
	Slug, Path string
	Body       []byte
}

// corpusEvents is a whole session per kind of secret, the secret in every
// field Claude Code sends and every tool shape: Bash, Task, MCP, WebFetch,
// WebSearch, Edit, Write, Read, a failure, a tool whose name holds it.
func corpusEvents(k secretKind, sid string) []soakEvent {
	s := k.text
	var out []soakEvent
	add := func(slug string, m map[string]any) {
		b, _ := json.Marshal(m)
		out = append(out, soakEvent{Slug: slug, Body: b})
	}
	base := func(event string) map[string]any {
		return map[string]any{"session_id": sid + "-" + s, "hook_event_name": event, "prompt_id": "prompt-" + s,
			"cwd": "/home/dev/proj-" + s + "/app", "transcript_path": "/home/dev/.claude/projects/" + s + "/t.jsonl", "permission_mode": "default"}
	}
	m := base("SessionStart")
	m["source"] = "startup"
	add("session-start", m)
	m = base("SessionStart")
	m["source"] = "resume " + s
	add("session-start", m)
	m = base("UserPromptSubmit")
	m["prompt"] = "deploy with these credentials: " + s + " and <private>never " + s + "</private>"
	add("user-prompt-submit", m)
	tool := func(name, id string, in, resp any) {
		m := base("PostToolUse")
		m["tool_name"], m["tool_use_id"], m["tool_input"], m["tool_response"], m["duration_ms"] = name, "toolu-"+id+"-"+s, in, resp, 12
		add("post-tool-use", m)
	}
	named := map[string]any{"path": "secret/db"}
	for name, v := range jsonNamedSecrets {
		named[name] = v
	}
	tool("Bash", "bash", map[string]any{"command": "echo '" + s + "'", "description": "print " + k.rule},
		map[string]any{"stdout": s + "\n", "stderr": "warning: " + s, "interrupted": false})
	tool("Task", "task", map[string]any{"subagent_type": "general-purpose", "description": "use " + s, "prompt": "connect with \"" + s + "\" then run"},
		[]any{map[string]any{"type": "text", "text": "the agent saw " + s}})
	tool("mcp__vault__read", "mcp", named, map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "token": s})
	tool("mcp__api__get", "mcpjson", map[string]any{"q": "me"}, map[string]any{"content": []any{map[string]any{"type": "text", "text": nestedDoc}}})
	tool("WebFetch", "fetch", map[string]any{"url": "https://example.com/?q=" + url.QueryEscape(s), "prompt": "find " + s},
		map[string]any{"result": "page says " + s, "code": 200, "url": "https://example.com/"})
	tool("WebSearch", "search", map[string]any{"query": s}, map[string]any{"query": s, "results": []any{map[string]any{"title": s, "url": "https://example.com/" + s}}})
	tool("Edit", "edit", map[string]any{"file_path": "/home/dev/app/config.go", "old_string": "x", "new_string": s},
		map[string]any{"filePath": "/home/dev/app/config.go", "structuredPatch": []any{map[string]any{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": []any{"-x", "+" + s}}}})
	tool("Write", "write", map[string]any{"file_path": "/home/dev/app/.secrets.yaml", "content": s}, map[string]any{"type": "create", "filePath": "/home/dev/app/.secrets.yaml"})
	tool("Read", "read", map[string]any{"file_path": "/home/dev/app/notes.txt"}, map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/app/notes.txt", "content": s, "numLines": 1}})
	// A secret in a touched file's path: stored as a file state too, and
	// looked up by the PreToolUse file gate (which stores nothing).
	secretPath := "/home/dev/app/" + s + "/config.go"
	tool("Edit", "editpath", map[string]any{"file_path": secretPath, "old_string": "x", "new_string": "y"}, map[string]any{"filePath": secretPath})
	m = base("PreToolUse")
	m["tool_name"], m["tool_input"] = "Read", map[string]any{"file_path": secretPath}
	add("pre-tool-use", m)
	tool("mcp__tools__get-"+s, "named", map[string]any{"q": "x"}, map[string]any{"ok": true})
	m = base("PostToolUseFailure")
	m["tool_name"], m["tool_use_id"] = "Bash", "toolu-fail-"+s
	m["tool_input"] = map[string]any{"command": "psql " + s}
	m["error"] = "Exit code 1\nauthentication failed for " + s
	add("post-tool-use-failure", m)
	m = base("Stop")
	// An answer whose statements become memories with their provenance:
	// a decision (its evidence and subject), a quote (a note naming its
	// source) and a two-option question a later prompt could answer.
	m["last_assistant_message"] = "Done. I used " + s + "\n\nKey decisions:\n- Went with the key " + s + " for the client instead of the old one, because it rotates.\n\n" +
		"The README at docs/" + s + ".md says:\n\n> Decision: from now on always export " + s + " before the tests."
	add("stop", m)
	m = base("SessionEnd")
	m["reason"] = "other " + s
	add("session-end", m)
	return out
}

// cutEvents plant the secret across every place where text is cut: the
// title (a command's first 100 characters), a prompt's stream event (2,000),
// the stored output (10 KB, half from each end), the worker's window
// (256 KB from each end), and, through the hook, the edge's Shrink of a
// payload over its limit (64 KB of each end of a string). The secret's
// first 12 characters of its core are before the cut, so any part of it
// left behind would be found.
func cutEvents(k secretKind, sid string, viaHook bool) []soakEvent {
	at := func(cut int) string {
		i := strings.Index(k.text, k.core)
		return strings.Repeat("a", max(0, cut-i-12)) + " " + k.text + " "
	}
	tail := func(cut int) string { // the core's last 12 characters after a cut from the end
		end := strings.Index(k.text, k.core) + len(k.core)
		return " " + k.text + " " + strings.Repeat("z", max(0, cut-(len(k.text)-end)-13))
	}
	var out []soakEvent
	add := func(slug string, m map[string]any) {
		m["session_id"], m["cwd"], m["prompt_id"] = sid, "/home/dev/cut", "cut"
		if id, ok := m["tool_use_id"].(string); ok {
			m["tool_use_id"] = sid + "-" + id
		}
		b, _ := json.Marshal(m)
		out = append(out, soakEvent{Slug: slug, Body: b})
	}
	add("user-prompt-submit", map[string]any{"prompt": at(2000) + strings.Repeat("p", 3000)})
	bash := func(id, cmd, stdout string) {
		add("post-tool-use", map[string]any{"tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": cmd}, "tool_response": map[string]any{"stdout": stdout}})
	}
	title := strings.Repeat("t", 100-len(k.text)/2) + " " + k.text
	bash("cut-title", title, "ok")
	compress := at(5100) + strings.Repeat("c", 20<<10)
	bash("cut-compress", "echo c", compress+tail(5100))
	window := at(256<<10) + strings.Repeat("w", 300<<10)
	bash("cut-window", "echo w", window+tail(256<<10))
	if viaHook {
		shrink := at(64<<10) + strings.Repeat("s", 1900<<10)
		bash("cut-shrink", "echo s", shrink+tail(64<<10))
	}
	return out
}

// compatEvents are the same secrets through claude-mem's and jikime-mem's
// routes, in every field they have.
func compatEvents(k secretKind, sid string) []soakEvent {
	s := k.text
	id := sid + "-" + s
	var out []soakEvent
	add := func(path string, m map[string]any) {
		b, _ := json.Marshal(m)
		out = append(out, soakEvent{Path: path, Body: b})
	}
	add("/api/sessions/init", map[string]any{"claudeSessionId": id, "project": "proj-" + s, "prompt": "compat prompt " + s})
	add("/sessions/"+url.PathEscape(id+"-path")+"/init", map[string]any{"project": "proj-" + s, "prompt": "path prompt " + s})
	add("/api/sessions/observations", map[string]any{"claudeSessionId": id, "tool_name": "Bash", "cwd": "/srv/" + s, "tool_use_id": "cm-" + s,
		"tool_input": map[string]any{"command": "echo " + s}, "tool_response": map[string]any{"stdout": s}})
	add("/api/sessions/summarize", map[string]any{"claudeSessionId": id, "last_user_message": "u " + s, "last_assistant_message": "a " + s})
	add("/api/sessions/complete", map[string]any{"claudeSessionId": id, "reason": "done " + s})
	jid := "jk-" + id
	in, _ := json.Marshal(map[string]any{"command": "cat " + s})
	add("/api/sessions/start", map[string]any{"sessionId": jid, "projectPath": "/srv/jk-" + s, "source": "startup"})
	add("/api/prompts", map[string]any{"sessionId": jid, "content": "jikime " + s})
	add("/api/observations", map[string]any{"sessionId": jid, "toolName": "Bash", "toolInput": string(in), "toolResponse": "out " + s})
	add("/api/responses", map[string]any{"sessionId": jid, "content": "answer " + s})
	add("/api/sessions/stop", map[string]any{"sessionId": jid})
	return out
}

// escapeSecret rewrites each JSON-encoded occurrence of secret in body the
// way other JSON encoders may write it: every third letter as \u00XX, '/'
// as \/ and '<' as \u003c.
func escapeSecret(body []byte, secret string) []byte {
	enc, _ := json.Marshal(secret)
	enc = enc[1 : len(enc)-1]
	var esc bytes.Buffer
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		switch {
		case c == '\\' && i+5 < len(enc) && enc[i+1] == 'u':
			esc.Write(enc[i : i+6]) // an escape already: \u003c
			i += 5
		case c == '\\' && i+1 < len(enc):
			esc.Write(enc[i : i+2])
			i++
		case c == '/':
			esc.WriteString(`\/`)
		case c == '<':
			esc.WriteString(`\u003c`)
		case c < unicode.MaxASCII && unicode.IsLetter(rune(c)) && i%3 == 0:
			fmt.Fprintf(&esc, `\u%04x`, c)
		default:
			esc.WriteByte(c)
		}
	}
	return bytes.ReplaceAll(body, enc, esc.Bytes())
}

// leakFinder finds, in any text, a secret's core or any 12 characters of
// it, ignoring letter case (the search index lowers what it stores).
type leakFinder struct {
	grams map[string]int // 12-character window of a core → its kind
	short map[string]int // cores shorter than 12
	// lead is the set of the grams' first three bytes, one bit each: a
	// position whose three bytes are not in it starts no gram, and is
	// passed over without a map lookup (the places are 50 MB, read
	// twice, by a test binary built with the race detector).
	lead []uint64
}

// lead3 is the index in leakFinder.lead of the three bytes at b's start.
func lead3(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func newLeakFinder() *leakFinder {
	f := &leakFinder{grams: map[string]int{}, short: map[string]int{}, lead: make([]uint64, 1<<24/64)}
	add := func(i int, core string) {
		core = strings.ToLower(core)
		if len(core) < 12 {
			f.short[core] = i
			return
		}
		for j := 0; j+12 <= len(core); j++ {
			f.grams[core[j:j+12]] = i
			h := lead3([]byte(core[j : j+3]))
			f.lead[h/64] |= 1 << (h % 64)
		}
	}
	for i, k := range secretKinds {
		add(i, k.core)
	}
	for _, v := range jsonNamedSecrets {
		add(-1, v)
	}
	for _, v := range nestedDocSecrets {
		add(-1, v)
	}
	return f
}

// find returns the first leak in b, as it is or as a reader would see it
// (see unescaped): where it is and the kind, or -1.
func (f *leakFinder) find(b []byte) (at int, kind int, gram string) {
	if at, kind, gram = f.findRaw(b); at >= 0 {
		return at, kind, gram
	}
	if bytes.IndexByte(b, '&') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return -1, 0, "" // nothing to unescape: unescaped(b) is b
	}
	return f.findRaw(unescaped(b))
}

// unescaped is b as a reader sees it: HTML entities decoded (pages, the
// HTML export) and Markdown's backslash escapes removed (the Markdown
// export escapes "_", "@", "://" and more, so an escaped secret would not
// match its core byte for byte).
func unescaped(b []byte) []byte {
	s := html.UnescapeString(string(b))
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!|~@:<>&'\"", s[i+1]) >= 0 {
			i++
		}
		out.WriteByte(s[i])
	}
	return []byte(out.String())
}

func (f *leakFinder) findRaw(b []byte) (at int, kind int, gram string) {
	lower := bytes.ToLower(b)
	for i := 0; i+12 <= len(lower); i++ {
		if h := lead3(lower[i:]); f.lead[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		if k, ok := f.grams[string(lower[i:i+12])]; ok {
			return i, k, string(lower[i : i+12])
		}
	}
	for s, k := range f.short {
		if i := bytes.Index(lower, []byte(s)); i >= 0 {
			return i, k, s
		}
	}
	return -1, 0, ""
}

// eachKind runs f for every kind of secret, a few kinds at a time, and
// stops the test after them if any failed. A kind's events stay in order
// (each kind has sessions of its own), as Claude Code's sessions run
// their hooks side by side; each hook run is a process, and one run at a
// time the hook phases took four minutes of make test's race leg.
// f must not call t.Fatal (t.Error is safe from its goroutine).
func eachKind(t *testing.T, f func(i int, k secretKind)) {
	t.Helper()
	var wg sync.WaitGroup
	slots := make(chan struct{}, 4)
	for i, k := range secretKinds {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			f(i, k)
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// TestSecretsNeverStored plants every kind of secret (each built-in rule's,
// the user's own rule's, members named like secrets, nested private
// blocks) in every field of every event and tool shape, as plain JSON and
// JSON-escaped, across every place where text is cut, through the built
// `mneme-hook` with the worker down (the spool's bytes are read before the
// worker replays it) and up, straight to the HTTP ingest route (Claude
// Code's http hooks), and through the compatible routes. Then every byte
// of the data directory (database, -wal, spool, logs), the live stream
// read raw, the pages, the read API and the exports, the worker's output
// and the hooks' stdout and stderr are searched for each secret and any
// 12 characters of it: zero leaks. And the events are all there, redacted:
// every rule's marker is stored.
//
// Each hook run is a process (two for a teammate's), so make test sends
// every kind's session through the four hook paths (worker down, up, a
// teammate's worker down, up) in rotation: each kind goes through all four,
// and each field and tool shape through all four across the kinds. The
// cuts go to the HTTP route for every kind; through the hook (payloads of
// up to 2 MB, a fifth of a second of the hook's CPU each) every other kind
// takes every other cut, so each cut meets half the kinds' rules. make
// soak (MNEME_SOAK=1) sends every event through every path, every cut
// through the hook for every kind; the direct HTTP routes get every event
// in both.
func TestSecretsNeverStored(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	p := startWorker(t, dir)
	put := func(path, body string) {
		req, _ := http.NewRequest(http.MethodPut, p.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		p.Authorize(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("PUT %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	put("/api/settings", corpRule) // written to redaction.json for the hook
	// Embeddings on: every stored row is sent to the embeddings
	// endpoint, which must see no secret either.
	embeddings := semanticOn(t, p)
	p.Stop()

	// The kinds' sessions run side by side (eachKind): what they write
	// here is under outMu.
	var (
		outMu            sync.Mutex
		hookOut, hookErr bytes.Buffer
		events           atomic.Int64
	)
	runHookIn := func(dataDir string, port int, ev soakEvent, env ...string) {
		r, err := tryHook(port, dataDir, ev.Slug, ev.Body, append([]string{"MNEME_DEBUG=1"}, env...)...)
		outMu.Lock()
		hookOut.Write(r.Stdout)
		hookErr.Write(r.Stderr)
		outMu.Unlock()
		if err != nil {
			t.Error(err)
		}
	}
	runHook := func(port int, ev soakEvent, env ...string) { runHookIn(dir, port, ev, env...) }
	escaped := func(k secretKind, evs []soakEvent) []soakEvent {
		for i := range evs {
			evs[i].Body = escapeSecret(evs[i].Body, k.text)
		}
		return evs
	}

	// The four hook paths a corpus event may take; through picks whether
	// kind i's event j takes path.
	const (
		pathDown = iota
		pathUp
		pathMateDown
		pathMateUp
	)
	through := func(i, j, path int) bool { return Long() || (i+j)%4 == path }

	// The worker is down: the hook spools, already redacted.
	eachKind(t, func(i int, k secretKind) {
		for j, ev := range escaped(k, corpusEvents(k, fmt.Sprintf("down%d", i))) {
			if !through(i, j, pathDown) {
				continue
			}
			runHook(p.Port, ev, "MNEME_NO_AUTOSTART=1")
			events.Add(1)
		}
	})
	spool, _ := filepath.Glob(filepath.Join(dir, "spool", "*.jsonl"))
	if len(spool) == 0 {
		t.Fatal("the hook spooled nothing with the worker down")
	}
	places := map[string][]byte{}
	for _, f := range spool {
		b, _ := os.ReadFile(f)
		places["spool before replay: "+filepath.Base(f)] = b
	}

	// The worker comes back and replays the spool; a raw reader follows
	// the stream from its first event.
	p = restart(t, p)
	c := p.NewClient(30 * time.Second)
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/stream", nil)
	req.Header.Set("Last-Event-ID", "1")
	p.Authorize(req)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var sse lockedBuffer
	streamDone := make(chan struct{})
	go func() {
		defer close(streamDone)
		io.Copy(&sse, stream.Body)
	}()
	waitFor(t, 60*time.Second, "the spool to be replayed", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "spool", "pending*.jsonl"))
		return len(m) == 0
	})

	// The worker is up: through the hook, plain JSON, and the cuts.
	eachKind(t, func(i int, k secretKind) {
		for j, ev := range corpusEvents(k, fmt.Sprintf("hook%d", i)) {
			if !through(i, j, pathUp) {
				continue
			}
			runHook(p.Port, ev)
			events.Add(1)
		}
		for j, ev := range cutEvents(k, fmt.Sprintf("hookcut%d", i), true) {
			if !Long() && (i+j)%2 != 0 {
				continue
			}
			runHook(p.Port, ev)
			events.Add(1)
		}
	})
	// A teammate's machine (team mode): the hook posts to this worker
	// (MNEME_URL) with the person's token, redacted first with the
	// teammate's own rules (the same user rule, in their redaction.json);
	// while the worker cannot be reached it spools to spool-remote, and
	// the next hook that reaches it replays that spool.
	mate := t.TempDir()
	rules, err := os.ReadFile(filepath.Join(dir, privacy.RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mate, privacy.RulesFile), rules, 0o600)
	var created api.CreatedToken
	{
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/api/tokens", strings.NewReader(`{"person":"teammate"}`))
		req.Header.Set("Content-Type", "application/json")
		p.Authorize(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("POST /api/tokens: %v %v", resp, err)
		}
		json.NewDecoder(resp.Body).Decode(&created)
		resp.Body.Close()
	}
	eachKind(t, func(i int, k secretKind) {
		for j, ev := range escaped(k, corpusEvents(k, fmt.Sprintf("matedown%d", i))) {
			if !through(i, j, pathMateDown) {
				continue
			}
			runHookIn(mate, p.Port, ev, "MNEME_URL=http://127.0.0.1:1", "MNEME_TOKEN="+created.Token)
			events.Add(1)
		}
	})
	remote, _ := filepath.Glob(filepath.Join(mate, hookwire.RemoteSpoolDir, "*.jsonl"))
	if len(remote) == 0 {
		t.Fatal("the teammate's hook spooled nothing with the team worker unreachable")
	}
	for _, f := range remote {
		b, _ := os.ReadFile(f)
		places["teammate's spool before replay: "+filepath.Base(f)] = b
	}
	eachKind(t, func(i int, k secretKind) {
		for j, ev := range corpusEvents(k, fmt.Sprintf("mate%d", i)) {
			if !through(i, j, pathMateUp) {
				continue
			}
			runHookIn(mate, p.Port, ev, "MNEME_URL="+p.URL, "MNEME_TOKEN="+created.Token)
			events.Add(1)
		}
	})
	// What the teammate's hook reads on its own machine for a team worker
	// (hooks.AddRemoteFacts) is redacted like the rest: a repository whose
	// branch name and remote URL hold secrets (mneme_branch,
	// mneme_project), and a Stop's last assistant message read from the
	// teammate's transcript.
	repo := filepath.Join(t.TempDir(), "mate-repo")
	for _, args := range [][]string{
		{"init", "-q", "-b", "feat/ghp_SoakGithubToken0123456789abcdefghijkl-AKIASOAKTESTKEY12345", repo},
		{"-C", repo, "remote", "add", "origin", "https://soakuser:SoakUrlPassw0rd@git.example.com/r.git"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mateTranscript := filepath.Join(t.TempDir(), "transcript.jsonl") // the teammate's own file, not mneme's: outside the walk below
	{
		var all strings.Builder
		for _, k := range secretKinds {
			all.WriteString(k.text + "\n")
		}
		line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Done, with:\n" + all.String()}}}})
		os.WriteFile(mateTranscript, append(line, '\n'), 0o600)
	}
	for _, slug := range []string{"session-start", "user-prompt-submit", "stop"} {
		b, _ := json.Marshal(map[string]any{"session_id": "mate-facts", "cwd": repo, "transcript_path": mateTranscript, "prompt": "go", "prompt_id": "m1", "source": "startup"})
		runHookIn(mate, p.Port, soakEvent{Slug: slug, Body: b}, "MNEME_URL="+p.URL, "MNEME_TOKEN="+created.Token)
		events.Add(1)
	}
	if t.Failed() {
		t.FailNow()
	}
	waitFor(t, 60*time.Second, "the teammate's spool to be replayed", func() bool {
		m, _ := filepath.Glob(filepath.Join(mate, hookwire.RemoteSpoolDir, "pending*.jsonl"))
		return len(m) == 0
	})
	if left, _ := filepath.Glob(filepath.Join(mate, hookwire.RemoteSpoolDir, "*.jsonl")); len(left) > 0 {
		t.Errorf("the teammate's spool still holds %v after the replay", left)
	}
	// The facts arrived (else the check below would prove nothing): a
	// branch and a last message stored for the session, with the secrets
	// gone from both.
	var branch, lastMsg string
	if err := openDB(t, dir).QueryRow(`SELECT git_branch, COALESCE(last_assistant_message, '') FROM sessions WHERE claude_session_id = 'mate-facts'`).Scan(&branch, &lastMsg); err != nil {
		t.Errorf("the teammate's session with remote facts: %v", err)
	} else if !strings.HasPrefix(branch, "feat/") || !strings.Contains(lastMsg, "Done, with") {
		t.Errorf("remote facts not stored: branch %q, last message %.80q", branch, lastMsg)
	}
	var mateObs int
	if err := openDB(t, dir).QueryRow(`SELECT COUNT(*) FROM observations o JOIN sessions s ON s.id = o.session_id WHERE s.captured_by = 'teammate'`).Scan(&mateObs); err != nil || mateObs == 0 {
		t.Errorf("no observation stored as the teammate's (%d, %v): the team path proves nothing", mateObs, err)
	}
	filepath.Walk(mate, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(mate, path)
			places["teammate's file "+rel] = b
		}
		return nil
	})

	// The last assistant message read from a transcript.
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	var all strings.Builder
	for _, k := range secretKinds {
		all.WriteString(k.text + "\n")
	}
	line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "I used these:\n" + all.String()}}}})
	os.WriteFile(transcript, append(line, '\n'), 0o600)
	for _, slug := range []string{"user-prompt-submit", "stop"} {
		b, _ := json.Marshal(map[string]any{"session_id": "transcript", "cwd": "/home/dev/t", "transcript_path": transcript, "prompt": "go", "prompt_id": "t1"})
		runHook(p.Port, soakEvent{Slug: slug, Body: b})
	}
	if t.Failed() {
		t.FailNow()
	}

	// Straight to the HTTP ingest route, plain and escaped, with the cuts;
	// and the compatible routes.
	// A compat route goes as its path in Slug.
	c.Path = func(ev Event) string {
		if strings.HasPrefix(ev.Slug, "/") {
			return ev.Slug
		}
		return "/api/hooks/" + ev.Slug
	}
	post := func(ev soakEvent) {
		slug := ev.Slug
		if ev.Path != "" {
			slug = ev.Path
		}
		st, _, err := c.Post(t.Context(), Event{Slug: slug, Body: ev.Body})
		if err != nil || st != 200 {
			req, _ := http.NewRequest(http.MethodPost, p.URL+c.Path(Event{Slug: slug}), bytes.NewReader(ev.Body))
			req.Header.Set("Content-Type", "application/json")
			p.Authorize(req)
			resp, _ := http.DefaultClient.Do(req)
			var msg []byte
			if resp != nil {
				msg, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			t.Errorf("POST %s: %d %v: %s\n%.300s", slug, st, err, msg, ev.Body)
			return
		}
		events.Add(1)
	}
	eachKind(t, func(i int, k secretKind) {
		for _, ev := range corpusEvents(k, fmt.Sprintf("http%d", i)) {
			post(ev)
		}
		for _, ev := range escaped(k, corpusEvents(k, fmt.Sprintf("httpesc%d", i))) {
			post(ev)
		}
		for _, ev := range cutEvents(k, fmt.Sprintf("httpcut%d", i), false) {
			post(ev)
		}
		for _, ev := range compatEvents(k, fmt.Sprintf("compat%d", i)) {
			post(ev)
		}
	})
	// Backfill: `mneme import` of a Claude Code transcript holding every
	// secret (prompt, tool call, its result, the answer), then of a full
	// export (`mneme export --all`) read back into the same worker.
	importDir := t.TempDir()
	var tr strings.Builder
	for i, k := range secretKinds {
		sid, at := fmt.Sprintf("import-%d", i), "2026-11-20T10:00:00.000Z"
		for _, line := range []map[string]any{
			{"type": "user", "sessionId": sid, "cwd": "/home/dev/imp", "timestamp": at, "uuid": sid + "-u", "promptId": sid + "-p",
				"message": map[string]any{"role": "user", "content": "use " + k.text}},
			{"type": "assistant", "sessionId": sid, "cwd": "/home/dev/imp", "timestamp": at, "uuid": sid + "-a", "promptId": sid + "-p",
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu-imp-" + sid, "name": "Bash",
					"input": map[string]any{"command": "echo " + k.text}}}}},
			{"type": "user", "sessionId": sid, "cwd": "/home/dev/imp", "timestamp": at, "uuid": sid + "-r", "promptId": sid + "-p",
				"message":       map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu-imp-" + sid, "content": k.text}}},
				"toolUseResult": map[string]any{"stdout": k.text, "stderr": ""}},
			{"type": "assistant", "sessionId": sid, "cwd": "/home/dev/imp", "timestamp": at, "uuid": sid + "-b", "promptId": sid + "-p",
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done with " + k.text}}}},
		} {
			b, _ := json.Marshal(line)
			tr.Write(append(b, '\n'))
		}
	}
	transcriptFile := filepath.Join(importDir, "imported.jsonl")
	os.WriteFile(transcriptFile, []byte(tr.String()), 0o600)
	exportFile := filepath.Join(importDir, "export.json")
	for _, args := range [][]string{{"import", transcriptFile}, {"export", "--all", "--out", exportFile}, {"import", exportFile}} {
		cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(p.Port), "--data-dir", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mneme %v: %v\n%s", args, err, out)
		}
		places[fmt.Sprintf("mneme %v output", args)] = out
	}
	exported, _ := os.ReadFile(exportFile)
	places["the full export"] = exported
	if !bytes.Contains(exported, []byte("import-0")) {
		t.Errorf("the imported transcript is not in the full export")
	}

	db := openDB(t, dir)
	waitFor(t, 120*time.Second, "the summaries", func() bool {
		var n int
		db.QueryRow(`SELECT COUNT(*) FROM summary_jobs WHERE status IN ('pending', 'running')`).Scan(&n)
		return n == 0
	})

	// What the embeddings endpoint was sent, once the indexer drained.
	drain := time.Now()
	waitEmbedded(t, p)
	inputs := embeddings.Inputs()
	t.Logf("the embeddings endpoint was sent %d texts; the indexer drained %s after the last write", len(inputs), time.Since(drain).Round(time.Millisecond))
	places["embeddings endpoint inputs"] = []byte(strings.Join(inputs, "\n"))
	if redacted := bytes.Count(places["embeddings endpoint inputs"], []byte("[REDACTED:")); len(inputs) == 0 || redacted == 0 {
		t.Errorf("the embeddings endpoint was sent %d texts, %d redaction markers: the check proves nothing", len(inputs), redacted)
	}

	// Every read surface: pages, the read API, the exports.
	get := func(path string) []byte {
		resp, err := p.Get(path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d %.200s", path, resp.StatusCode, b)
		}
		return b
	}
	var sessions []int64
	rows, err := db.Query(`SELECT id FROM sessions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		sessions = append(sessions, id)
	}
	rows.Close()
	paths := []string{"/", "/sessions", "/search?q=deploy", "/search?q=Bash", "/stats", "/api/sessions?limit=500", "/api/observations?limit=500",
		"/api/prompts?limit=500", "/api/summaries?limit=500", "/api/search?q=deploy", "/api/search?q=REDACTED", "/api/projects", "/api/context/inject?project=app",
		"/api/search?q=Soak*", "/search?q=Soak*", "/api/search?q=deploy+secret+token&mode=semantic", "/api/search?q=Soak&mode=hybrid",
		"/api/memories?q=deploy+secret+token&mode=semantic", "/search?q=deploy+secret+token&mode=semantic"}
	for _, id := range sessions {
		paths = append(paths, fmt.Sprintf("/sessions/%d", id), fmt.Sprintf("/api/sessions/%d", id))
		for _, f := range []string{"md", "json", "html"} {
			paths = append(paths, fmt.Sprintf("/api/sessions/%d/export?format=%s", id, f))
		}
	}
	for _, path := range paths {
		places["GET "+path] = get(path)
	}

	p.Stop() // a clean stop checkpoints the -wal into the database file
	stream.Body.Close()
	<-streamDone
	places["SSE stream"] = []byte(sse.String())
	places["worker output"] = []byte(p.Log())
	places["hooks' stdout"] = hookOut.Bytes()
	places["hooks' stderr"] = hookErr.Bytes()
	var dataBytes []byte
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			places["file "+rel] = b
			dataBytes = append(dataBytes, b...)
		}
		return nil
	})

	finder := newLeakFinder()
	names := make([]string, 0, len(places))
	total := 0
	for name, b := range places {
		names = append(names, name)
		total += len(b)
	}
	sort.Strings(names)
	leaks := 0
	for _, name := range names {
		b := places[name]
		if at, kind, gram := finder.find(b); at >= 0 {
			leaks++
			what := "a JSON member named like a secret"
			if kind >= 0 {
				what = secretKinds[kind].rule + " " + secretKinds[kind].core
			}
			t.Errorf("%s: %q of %s at %d: …%q…", name, gram, what, at, b[max(0, at-100):min(len(b), at+60)])
			if strings.HasPrefix(name, "file mneme.db") {
				for _, tbl := range []string{"prompts", "observations", "summaries"} {
					var ids []int64
					rows, err := openDB(t, dir).Query(`SELECT rowid FROM `+tbl+`_fts WHERE `+tbl+`_fts MATCH ?`, `"`+gram+`"*`)
					if err == nil {
						for rows.Next() {
							var id int64
							rows.Scan(&id)
							ids = append(ids, id)
						}
						rows.Close()
					}
					t.Logf("%s_fts rows matching %q: %v %v", tbl, gram, ids, err)
				}
			}
		}
	}
	// Not a vacuous pass: the events are stored, and redacted.
	var obs, prompts, sums int
	dbStats := openDB(t, dir)
	dbStats.QueryRow(`SELECT (SELECT COUNT(*) FROM observations), (SELECT COUNT(*) FROM prompts), (SELECT COUNT(*) FROM summaries)`).Scan(&obs, &prompts, &sums)
	if want := len(secretKinds) * 3 * 10; obs < want {
		t.Errorf("%d observations stored, want at least %d", obs, want)
	}
	for _, k := range secretKinds {
		if k.rule == "nested_private" {
			continue
		}
		if !bytes.Contains(dataBytes, []byte("[REDACTED:"+k.rule+"]")) {
			t.Errorf("no [REDACTED:%s] marker stored", k.rule)
		}
	}
	var redactedPaths, imported int
	dbStats.QueryRow(`SELECT COUNT(*) FROM file_states WHERE path LIKE '%[REDACTED:%'`).Scan(&redactedPaths)
	dbStats.QueryRow(`SELECT COUNT(*) FROM sessions WHERE claude_session_id LIKE 'import-%'`).Scan(&imported)
	if redactedPaths == 0 || imported != len(secretKinds) {
		t.Errorf("%d file states with a redacted path, %d imported sessions (want %d): the new write paths were not reached", redactedPaths, imported, len(secretKinds))
	}
	if !strings.Contains(sse.String(), "event: observation") || !strings.Contains(sse.String(), "[REDACTED:") {
		t.Errorf("the stream reader saw no redacted observation: %.300s", sse.String())
	}
	t.Logf("%d events (%d kinds of secret), %d observations, %d prompts, %d summaries; searched %d places, %d MB: %d leaks",
		events.Load(), len(secretKinds), obs, prompts, sums, len(places), total>>20, leaks)
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The leak finder sees a secret however a surface escaped it: Markdown's
// backslashes, HTML entities; and it finds none in clean text.
func TestLeakFinderSeesEscapedSecrets(t *testing.T) {
	f := newLeakFinder()
	for _, text := range []string{
		`token ghp\_SoakGithubToken0123456789abcdefghijkl in the report`,
		`https\://soakuser:SoakUrlPassw0rd\@git.example.com`,
		`&lt;b&gt;Soak Quoted Secret 42&lt;/b&gt;`,
		`password: &#34;Soak Member Password 1&#34;`,
		strings.Repeat("soak ", 1000) + "DB_PASSWORD=SOAKASSIGNEDSECRET42", // plain, in another case, after many near misses
	} {
		if at, _, _ := f.find([]byte(text)); at < 0 {
			t.Errorf("no leak found in %q", text)
		}
	}
	if at, _, gram := f.find([]byte(`ghp\_[REDACTED:github_token] and https\://[REDACTED]\@git.example.com`)); at >= 0 {
		t.Errorf("a leak %q found in redacted text", gram)
	}
}
