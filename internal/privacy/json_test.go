package privacy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
)

// CleanJSON reads secrets in the decoded strings, not in the escaped
// text: in compact JSON a quote is \" and the value after password: "…"
// used to be stored in clear; escapes (\u0041KIA…, https:\/\/…, <\u0070rivate>)
// hid secrets and tags from the plain-text rules.
func TestCleanJSONDecodedValues(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct {
		name, in string
		secrets  []string
	}{
		{"quoted value in a Task prompt", `{"subagent_type":"general","prompt":"log in with password: \"hunter2hunter\" and go"}`, []string{"hunter2hunter"}},
		{"single-quoted in MCP args", `{"query":"SELECT 1","dsn":"postgres://app:Sup3rS3cretPw@db:5432/app"}`, []string{"Sup3rS3cretPw"}},
		{"unicode-escaped AWS key", `{"command":"echo \u0041KIAIOSFODNN7EXAMPLE"}`, []string{"AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"}},
		{"escaped slashes in a URL", `{"url":"https:\/\/deploy:Tr1ckyPassw0rd@git.example.com\/r.git"}`, []string{"Tr1ckyPassw0rd"}},
		{"escaped private tag", `{"text":"a <\u0070rivate>my hidden note</\u0070rivate> b"}`, []string{"my hidden note"}},
		{"escaped quote before a bearer token", `{"cmd":"curl -H \"Authorization: Bearer Zm9vYmFyYmF6cXV4cXV1eA\" x"}`, []string{"Zm9vYmFyYmF6cXV4cXV1eA"}},
		{"secret in a key", `{"AKIAIOSFODNN7EXAMPLE":1}`, []string{"AKIAIOSFODNN7EXAMPLE"}},
		{"nested arrays", `{"a":[{"b":["x","ghp_16C7e42F292c6912E7710c838347Ae178B4a"]}]}`, []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}},
		{"a JSON string document", `"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"`, []string{"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"}},
		{"trailing text after the document", `{"a":1} AKIAIOSFODNN7EXAMPLE`, []string{"AKIAIOSFODNN7EXAMPLE"}},
		{"not JSON at all", `password=hunter2hunter2 {`, []string{"hunter2hunter2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := r.CleanJSON([]byte(tt.in))
			if !json.Valid(out) {
				t.Fatalf("not valid JSON: %s", out)
			}
			var decoded any
			json.Unmarshal(out, &decoded)
			flat, _ := json.Marshal(decoded) // escapes undone and redone the plain way
			for _, sec := range tt.secrets {
				if strings.Contains(string(out), sec) || strings.Contains(string(flat), sec) {
					t.Errorf("%q survived: %s", sec, out)
				}
			}
			if !strings.Contains(string(out), "[REDACTED:") && !strings.Contains(tt.name, "private") {
				t.Errorf("no marker in %s", out)
			}
		})
	}
}

// A member named like a secret has its whole string value redacted, by
// the secret_assignment rule, whatever the value looks like.
func TestCleanJSONSecretNames(t *testing.T) {
	r := New(BuiltinRules())
	in := `{"password":"correct horse battery staple","api_key":"abc","headers":{"Authorization":"Basic dXNlcjpwYXNz","X-Api-Key":"k1"},` +
		`"db":{"DB_PASSWORD":"p w"},"clientSecret":"s","tokens":["t1","t2"],"refresh_token":"r",` +
		`"token_type":"bearer","max_tokens":1024,"passwordless":"true","secretName":"prod-db","pwd":"/home/dev","bypass":"cache","description":"reset the password"}`
	out := string(r.CleanJSON([]byte(in)))
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	red := Marker(KeyRule)
	for _, gone := range []string{"correct horse", `"abc"`, "dXNlcjpwYXNz", `"k1"`, `"p w"`, `"s"`, `"r"`} {
		if strings.Contains(out, gone) {
			t.Errorf("%s survived: %s", gone, out)
		}
	}
	if m["password"] != red || m["api_key"] != red || m["refresh_token"] != red || m["clientSecret"] != red {
		t.Errorf("values not redacted by name: %s", out)
	}
	for k, want := range map[string]any{"token_type": "bearer", "passwordless": "true", "secretName": "prod-db", "pwd": "/home/dev", "bypass": "cache", "description": "reset the password"} {
		if m[k] != want {
			t.Errorf("%s: got %v, want %v (not a secret's name)", k, m[k], want)
		}
	}
	if !strings.Contains(out, `"max_tokens":1024`) {
		t.Errorf("numbers stay: %s", out)
	}

	// Switched off with its rule.
	rules := BuiltinRules()
	for i := range rules {
		if rules[i].Name == KeyRule {
			rules[i].Enabled = false
		}
	}
	if out := string(New(rules).CleanJSON([]byte(`{"password":"a b c"}`))); out != `{"password":"a b c"}` {
		t.Errorf("with %s off: %s", KeyRule, out)
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "PASSWORD": true, "db_password": true, "dbPassword": true, "passwd": true, "passphrase": true,
		"secret": true, "client_secret": true, "token": true, "access_token": true, "csrfToken": true, "api_key": true,
		"apiKey": true, "X-Api-Key": true, "private_key": true, "Authorization": true, "credentials": true, "cookie": true,
		"Set-Cookie": true, "pass": true, "db_pass": true, "smtpPass": true, "auth": true, "x-auth": true,
		"token_type": false, "tokens": false, "max_tokens": false, "passwordless": false, "secretName": false,
		"bypass": false, "compass": false, "pwd": false, "oauth": false, "author": false, "keyword": false, "key": false,
		"description": false, "": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// Identifiers: the same raw identifier always gives the same cleaned one,
// two that differ in their secret stay apart, and one with nothing to
// clean is kept.
func TestCleanID(t *testing.T) {
	r := New(BuiltinRules())
	a, b := "sess-AKIAIOSFODNN7EXAMPLE", "sess-AKIAIOSFODNN7EXAMPLF"
	ca, ca2, cb := r.CleanID(a), r.CleanID(a), r.CleanID(b)
	if ca != ca2 {
		t.Errorf("not stable: %q %q", ca, ca2)
	}
	if ca == cb {
		t.Errorf("two secrets merged into %q", ca)
	}
	if strings.Contains(ca, "IOSFODNN7") || !strings.HasPrefix(ca, "sess-[REDACTED:aws_access_key]~") {
		t.Errorf("CleanID(%q) = %q", a, ca)
	}
	if r.CleanID(ca) != ca {
		t.Errorf("a cleaned identifier must be kept as it is: %q -> %q", ca, r.CleanID(ca))
	}
	if id := "0f3c7a2e-5b1d-4c8e-9a6f-2d4b8e1c3a5f"; r.CleanID(id) != id {
		t.Errorf("a clean identifier changed: %q", r.CleanID(id))
	}
	keyed := r.WithIDKey(func() []byte { return []byte("0123456789abcdef") })
	if k := keyed.CleanID(a); k == ca || !strings.HasPrefix(k, "sess-[REDACTED:aws_access_key]~") {
		t.Errorf("keyed: %q (unkeyed %q)", k, ca)
	}
	if p := r.CleanID("s-<private>x</private>"); !strings.HasPrefix(p, "s-~") {
		t.Errorf("private part of an id: %q", p)
	}

	in := `{"session_id":"` + a + `","tool_use_id":"toolu_01","prompt_id":"p-ghp_16C7e42F292c6912E7710c838347Ae178B4a","nested":{"claudeSessionId":"` + a + `"}}`
	var m struct {
		SessionID string `json:"session_id"`
		ToolUseID string `json:"tool_use_id"`
		PromptID  string `json:"prompt_id"`
		Nested    struct {
			ClaudeSessionID string `json:"claudeSessionId"`
		} `json:"nested"`
	}
	json.Unmarshal(r.CleanJSON([]byte(in)), &m)
	if m.SessionID != ca || m.Nested.ClaudeSessionID != ca || m.ToolUseID != "toolu_01" || !strings.HasPrefix(m.PromptID, "p-[REDACTED:github_token]~") {
		t.Errorf("ids in JSON: %+v", m)
	}
}

// Nothing to clean: the very bytes come back (no re-encoding, no key
// reordering, numbers as written).
func TestCleanJSONUnchanged(t *testing.T) {
	r := New(BuiltinRules())
	for _, in := range []string{
		`{"z":1,"a":"plain text","n":12345678901234567890}`,
		`{"command":"go test ./...","description":"Run the tests"}`,
		`{"url":"https://example.com/a\"b","text":"line\nbreak"}`,
		`{"command":"go build \u0026\u0026 echo \u003e","emoji":"\ud83d\ude00"}`,
		`[]`, `null`, `"x"`,
	} {
		if out := r.CleanJSON([]byte(in)); string(out) != in {
			t.Errorf("CleanJSON(%s) = %s, want it unchanged", in, out)
		}
	}
}

// A secret across the place where a long string is cut, at the head or
// at the tail, is redacted whole before the cut: no part of it survives.
func TestCleanPayloadCutsAfterRedaction(t *testing.T) {
	if racebuild.Enabled {
		t.Skip("one goroutine, nothing for the race detector to watch: make test runs it without it (test-norace)")
	}
	r := New(BuiltinRules())
	key := "AKIAIOSFODNN7EXAMPLE"
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAstraddle0123456789abcdefghij\n", 40) + "-----END RSA PRIVATE KEY-----"
	for _, size := range []int{300 << 10, 3 << 20} {
		for _, at := range []int{ShrinkKeep - 10, ShrinkKeep - len(pem)/2} {
			secret := key
			if at != ShrinkKeep-10 {
				secret = pem
			}
			// The same secret across the head's cut and the tail's.
			s := strings.Repeat("a", at) + " " + secret + " " + strings.Repeat("b", size)
			s += " " + secret + " " + strings.Repeat("c", at)
			raw, _ := json.Marshal(map[string]string{"out": s})
			out := r.CleanPayload(raw, 256<<10)
			if !json.Valid(out) {
				t.Fatalf("invalid JSON")
			}
			if len(out) > 2*ShrinkKeep+200 {
				t.Errorf("size %d: not cut, %d bytes", size, len(out))
			}
			for _, part := range []string{"IOSFODNN7", "AKIAIOSF", "straddle", "MIIEowIBAAKC"} {
				if strings.Contains(string(out), part) {
					t.Errorf("size %d, secret at %d: %q survived the cut", size, at, part)
				}
			}
		}
	}
	// Under the limit nothing is cut.
	small, _ := json.Marshal(map[string]string{"out": strings.Repeat("x", 200<<10)})
	if out := r.CleanPayload(small, 1<<20); len(out) != len(small) {
		t.Errorf("a payload under the limit was cut: %d -> %d", len(small), len(out))
	}
}

// The hook sends a string that was private as a whole as an empty private
// block, so the worker knows it was not empty; the worker's own cleaning
// of that block leaves nothing.
func TestCleanPayloadMarksWhollyPrivate(t *testing.T) {
	r := New(BuiltinRules())
	out := r.CleanPayload([]byte(`{"prompt":"<private>all of it</private>","x":"a <private>b</private>","e":""}`), 1<<20)
	var m map[string]string
	json.Unmarshal(out, &m)
	if m["prompt"] != PrivateMark || m["x"] != "a" || m["e"] != "" {
		t.Errorf("got %s", out)
	}
	if r.Clean(PrivateMark) != "" || string(r.CleanJSON(out)) != `{"e":"","prompt":"","x":"a"}` {
		t.Errorf("the worker's cleaning of the mark: %q, %s", r.Clean(PrivateMark), r.CleanJSON(out))
	}
}

// A string that is itself a JSON document (an MCP tool's text content) is
// decoded and cleaned by member name and decoded value, documents inside
// documents too, down to a bound.
func TestCleanJSONNestedDocuments(t *testing.T) {
	r := New(BuiltinRules())
	inner := func(doc string) string {
		b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": doc}}})
		return string(b)
	}
	tests := []struct{ name, in, secret string }{
		{"token", inner(`{"token":"NestTok0017abcdef"}`), "NestTok0017abcdef"},
		{"session_token", inner(`{"user":"a","session_token":"NestSess0018abcd"}`), "NestSess0018abcd"},
		{"cookie", inner(`{"cookie":"sid=NestCookie0019"}`), "NestCookie0019"},
		{"escaped AWS key", inner(`{"k":"\u0041KIAIOSFODNN7EXAMPLE"}`), "IOSFODNN7EXAMPLE"},
		{"array of documents", inner(`[{"password":"NestPw0020 x"}]`), "NestPw0020"},
		{"a document in a document", inner(`{"body":"{\"refresh_token\":\"NestDeep0021\"}"}`), "NestDeep0021"},
		{"double-encoded", inner(`"{\"token\":\"NestDbl0022abcd\"}"`), "NestDbl0022abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := r.CleanJSON([]byte(tt.in))
			var decoded any
			if err := json.Unmarshal(out, &decoded); err != nil {
				t.Fatalf("not valid JSON: %s", out)
			}
			if strings.Contains(string(out), tt.secret) || strings.Contains(strings.ReplaceAll(string(out), `\`, ""), tt.secret) {
				t.Errorf("%q survived: %s", tt.secret, out)
			}
			if c := r.Clean(decoded.(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)); c == "" {
				t.Errorf("the cleaned text is empty")
			}
		})
	}
	// The worker's Clean of a plain field reads a document there too.
	if got := r.Clean(`{"token":"NestTok0023abcdef"}`); strings.Contains(got, "NestTok0023abcdef") {
		t.Errorf("Clean of a document: %s", got)
	}
	// A document with nothing to clean stays as written.
	for _, doc := range []string{`{"b": 1,  "a":"x"}`, `[1, 2]`, `{"token_type":"bearer"}`} {
		if got := r.Clean(doc); got != doc {
			t.Errorf("Clean(%q) = %q", doc, got)
		}
	}
	// Past the depth bound a document is text: still cleaned by the rules.
	doc := `{"password":"DeepPw0024abc"}`
	for i := 0; i < maxNestedDepth+2; i++ {
		b, _ := json.Marshal(doc)
		doc = string(b)
	}
	if got := r.Clean(doc); strings.Contains(got, "DeepPw0024abc") {
		t.Errorf("deep document: %s", got)
	}
}
