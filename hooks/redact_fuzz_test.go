package hooks

import (
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/models"
)

func defaultSettings() models.Settings { return models.DefaultSettings() }

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
}

// fuzzSecretCore is the part of each sample that must never survive.
var fuzzSecretCore = []string{
	"MIIEowIBAAKCAQEA7", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
	"sk-proj-abcdefghijklmnopqrstuvwxyz0123", "xoxb-1234567890-abcdefghij",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", "abcdef0123456789abcdef",
	"s3cr3tpassw0rd", "correcthorsebattery",
}

// FuzzRedactor plants each kind of built-in secret between arbitrary text
// (separated by a space, as secrets are in practice) and checks it is gone.
func FuzzRedactor(f *testing.F) {
	f.Add("export ", " && echo ok", uint8(0))
	f.Add("", "", uint8(3))
	f.Add("curl -H '", "' https://api", uint8(8))
	for _, line := range fixtureLines(f) {
		f.Add(string(line), "", uint8(1))
	}
	r := NewRedactor(models.BuiltinRedactionRules())
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
