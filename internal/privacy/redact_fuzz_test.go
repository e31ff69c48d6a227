package privacy

import (
	"encoding/json"
	"fmt"
	"github.com/mneme-dev/mneme/internal/testutil/fixtures"
	"strings"
	"testing"
)

// fuzzSecrets are one sample of each built-in rule's kind of secret.
var fuzzSecrets = []string{
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
	"AKIAIOSFODNN7EXAMPLE",
	"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
	"sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
	"sk-proj-abcdefghijklmnopqrstuvwxyz0123",
	"xoxb-1234567890-abcdefghij",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"Authorization: Bearer abcdef0123456789abcdef",
	"https://alice:s3cr3tpassw0rd@example.com/repo.git",
	"password=correcthorsebattery",
	"sk_live_4eC39HqLyjWDarjtT1zdp7dc",
	"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
	"https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/x9FkQdZ2LmP0aBcDeFgHiJkL",
	"npm_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g",
	"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",
	"https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4504",
	"DB_PASS=Zq8xv2Lm9qq",
}

// fuzzSecretCore is the part of each sample that must never survive.
var fuzzSecretCore = []string{
	"MIIEowIBAAKCAQEA7", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
	"sk-proj-abcdefghijklmnopqrstuvwxyz0123", "xoxb-1234567890-abcdefghij",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", "abcdef0123456789abcdef",
	"s3cr3tpassw0rd", "correcthorsebattery",
	"4eC39HqLyjWDarjtT1zdp7dc", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "x9FkQdZ2LmP0aBcDeFgHiJkL",
	"iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g", "ubbbPIayRnBUbHoWCFJowoRoWDsbAJPglO", "0123456789abcdef0123456789abcdef",
	"Zq8xv2Lm9qq",
}

// FuzzRedactor plants each kind of built-in secret between arbitrary text
// (separated by a space, as secrets are in practice) and checks it is gone.
func FuzzRedactor(f *testing.F) {
	f.Add("export ", " && echo ok", uint8(0))
	f.Add("", "", uint8(3))
	f.Add("curl -H '", "' https://api", uint8(8))
	for i := range fuzzSecrets {
		f.Add("x=", "\n", uint8(i))
		f.Add("\"", "\",", uint8(i))
	}
	for _, line := range fixtures.Lines(f) {
		f.Add(string(line), "", uint8(1))
	}
	r := New(BuiltinRules())
	f.Fuzz(func(t *testing.T, before, after string, which uint8) {
		i := int(which) % len(fuzzSecrets)
		in := before + " " + fuzzSecrets[i] + " " + after
		out := r.Redact(in)
		core := fuzzSecretCore[i]
		if strings.Contains(before, core) || strings.Contains(after, core) {
			return
		}
		if strings.Contains(out, core) {
			t.Fatalf("secret %q survived redaction:\n in: %q\nout: %q", core, in, out)
		}
	})
}

// FuzzCleanJSON plants each kind of secret in a JSON string value, written
// with arbitrary escapes (\uXXXX for some of its characters, \/ for '/'),
// beside arbitrary text, or as the value of a member named like a secret:
// the cleaned document is valid JSON and holds no trace of the secret,
// escaped or not.
func FuzzCleanJSON(f *testing.F) {
	f.Add("prompt", "use ", " now", uint8(0), uint8(0))
	f.Add("command", "echo '", "'", uint8(1), uint8(3))
	f.Add("url", "", "", uint8(9), uint8(255))
	f.Add("password", "", "", uint8(10), uint8(7))
	f.Add("api_key", "a b", "", uint8(12), uint8(1))
	r := New(BuiltinRules())
	f.Fuzz(func(t *testing.T, key, before, after string, which, escape uint8) {
		i := int(which) % len(fuzzSecrets)
		core := fuzzSecretCore[i]
		if strings.Contains(before, core) || strings.Contains(after, core) || strings.Contains(key, core) {
			return
		}
		value := before + " " + fuzzSecrets[i] + " " + after
		k, _ := json.Marshal(key)
		v, _ := json.Marshal(value)
		raw := append(append(append([]byte("{"), k...), ':'), escapeSome(v, escape)...)
		raw = append(raw, '}')
		if !json.Valid(raw) {
			return
		}
		out := r.CleanJSON(raw)
		if !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out:\n in: %s\nout: %s", raw, out)
		}
		var m map[string]string
		json.Unmarshal(out, &m)
		for mk, mv := range m {
			if strings.Contains(mv, core) || strings.Contains(mk, core) {
				t.Fatalf("secret %q survived:\n in: %s\nout: %s", core, raw, out)
			}
		}
	})
}

// escapeSome rewrites the letters of a JSON string literal whose index
// has the bit (index mod 8) set in mask as \u00XX, and every '/' as \/.
func escapeSome(lit []byte, mask uint8) []byte {
	var b strings.Builder
	escaped := false
	for i, c := range lit {
		switch {
		case escaped:
			b.WriteByte(c)
			escaped = false
		case c == '\\':
			b.WriteByte(c)
			escaped = true
		case c == '/':
			b.WriteString(`\/`)
		case i > 0 && i < len(lit)-1 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && mask&(1<<(i%8)) != 0:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return []byte(b.String())
}
