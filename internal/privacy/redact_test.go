package privacy

import (
	"encoding/json"
	"strings"
	"testing"
)

// redactionCases hold, for every built-in rule, a realistic sample that must
// be redacted (and what must remain of it) and a near miss that must not be.
var redactionCases = map[string]struct {
	sample     string
	want       string // the sample after redaction
	secret     string // the part that must be gone
	nearMisses []string
}{
	"pem_private_key": {
		sample: "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\ndone",
		want:   "key:\n[REDACTED:pem_private_key]\ndone",
		secret: "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
		nearMisses: []string{
			"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
			"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
		},
	},
	"aws_access_key": {
		sample:     "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
		want:       "export AWS_ACCESS_KEY_ID=[REDACTED:aws_access_key]",
		secret:     "AKIAIOSFODNN7EXAMPLE",
		nearMisses: []string{"AKIA1234", "the word AKIAIOSFODNN7EXAMPLEXYZ is too long", "akiaiosfodnn7example"},
	},
	"aws_secret_key": {
		sample:     `aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`,
		want:       `aws_secret_access_key = "[REDACTED:aws_secret_key]"`,
		secret:     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		nearMisses: []string{"the aws secret access key rotates monthly", "aws_region = eu-west-1"},
	},
	"github_token": {
		sample:     "git push https://x@github.com using ghp_16C7e42F292c6912E7710c838347Ae178B4a now",
		want:       "git push https://x@github.com using [REDACTED:github_token] now",
		secret:     "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		nearMisses: []string{"ghp_short", "branch gh-pages_deploy", "ghx_16C7e42F292c6912E7710c838347Ae178B4a"},
	},
	"anthropic_key": {
		sample:     "ANTHROPIC=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
		want:       "ANTHROPIC=[REDACTED:anthropic_key]",
		secret:     "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
		nearMisses: []string{"sk-ant-short", "task-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
	},
	"openai_key": {
		sample:     "client = OpenAI(key=\"sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34\")",
		want:       "client = OpenAI(key=\"[REDACTED:openai_key]\")",
		secret:     "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34",
		nearMisses: []string{"sk-12345", "risk-assessment-document-for-2024-q3"},
	},
	"slack_token": {
		sample:     "SLACK_TOKEN xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
		want:       "SLACK_TOKEN [REDACTED:slack_token]",
		secret:     "xoxb-123456789012",
		nearMisses: []string{"xoxb-123", "xoxz-123456789012-1234567890123"},
	},
	"stripe_key": {
		sample:     "charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc now",
		want:       "charge with [REDACTED:stripe_key] now",
		secret:     "4eC39HqLyjWDarjtT1zdp7dc",
		nearMisses: []string{"use your sk_live key, not sk_test", "sk_live_short", "pk_live_4eC39HqLyjWDarjtT1zdp7dc is publishable", "ask_live_4eC39HqLyjWDarjtT1zdp7dc"},
	},
	"google_api_key": {
		sample:     "key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&q=x",
		want:       "key=[REDACTED:google_api_key]&q=x",
		secret:     "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
		nearMisses: []string{"AIzaSyD-9tSrke72PouQMnMX too short", "the AIza prefix", "xAIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"},
	},
	"slack_webhook": {
		sample:     "curl -X POST https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/x9FkQdZ2LmP0aBcDeFgHiJkL -d @msg.json",
		want:       "curl -X POST https://hooks.slack.com/services/[REDACTED:slack_webhook] -d @msg.json",
		secret:     "x9FkQdZ2LmP0aBcDeFgHiJkL",
		nearMisses: []string{"post to https://hooks.slack.com/services/ with your webhook", "https://api.slack.com/messaging/webhooks"},
	},
	"npm_token": {
		sample:     "//registry.npmjs.org/:_authToken=npm_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g",
		want:       "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]",
		secret:     "iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g",
		nearMisses: []string{"npm_config_cache=/home/dev/.npm", "npm_package_version=1.2.3", "npm_lifecycle_event"},
	},
	"huggingface_token": {
		sample:     "login with 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 today",
		want:       "login with [REDACTED:huggingface_token] today",
		secret:     "ubbbPIayRnBUbHoWCFJowoRoWDsbAJPglO",
		nearMisses: []string{"from huggingface_hub import hf_hub_download", "hf_transfer enabled", "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123"},
	},
	"mneme_token": {
		sample:     "export MNEME_URL=https://mneme.team MNEME_TOKEN=mneme_pt_3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e",
		want:       "export MNEME_URL=https://mneme.team MNEME_TOKEN=[REDACTED:mneme_token]",
		secret:     "3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e",
		nearMisses: []string{"mneme_pt_3f9a0c is a prefix shown by mneme token list", "the mneme_pt_ prefix", "mneme_pt_3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2e3f9a0c2eff"},
	},
	"sentry_dsn": {
		sample:     "SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4504",
		want:       "SENTRY_DSN=https://[REDACTED:sentry_dsn]@o123456.ingest.sentry.io/4504",
		secret:     "0123456789abcdef0123456789abcdef",
		nearMisses: []string{"https://sentry.io/organizations/acme/issues/4504/", "https://o123456.ingest.sentry.io/api/4504/envelope/", "https://0123456789abcdef@example.com/1"},
	},
	"env_secret": {
		sample:     "export DB_PASS=Zq8xv2Lm9 && SIGNING_KEY='abc def ghi' ./run",
		want:       "export DB_PASS=[REDACTED:env_secret] && SIGNING_KEY='[REDACTED:env_secret]' ./run",
		secret:     "Zq8xv2Lm9",
		nearMisses: []string{"TOKEN_LIMIT=5", "ONE_PASS=", "ONE_PASS= is followed by nothing", "MAX_TOKEN=512", "export PATH=/usr/bin", "db_pass=lowercase_is_code"},
	},
	"env_bare_secret": {
		sample:     "export TOKEN=Bar3T0kenValue && SECRET='two words' ./run",
		want:       "export TOKEN=[REDACTED:env_bare_secret] && SECRET='[REDACTED:env_bare_secret]' ./run",
		secret:     "Bar3T0kenValue",
		nearMisses: []string{"TOKEN_LIMIT=4096", "MAX_TOKEN=512", "PWD=/home/dev", "token=x", "SECRET=", "MYTOKEN=abcd"},
	},
	"jwt": {
		sample:     "token: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		want:       "token: [REDACTED:jwt]",
		secret:     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		nearMisses: []string{"eyJhbGciOiJIUzI1NiJ9 alone is just base64", "eyJa.eyJb.c"},
	},
	"bearer_token": {
		sample:     "curl -H 'Authorization: Bearer abcDEF123456._-~+/=' https://api.example.com",
		want:       "curl -H 'Authorization: Bearer [REDACTED:bearer_token]' https://api.example.com",
		secret:     "abcDEF123456",
		nearMisses: []string{"the bearer of bad news", "Bearer short"},
	},
	"basic_auth": {
		sample:     "curl -H 'Authorization: Basic dXNlcjpodW50ZXIyaHVudGVy' https://api.example.com",
		want:       "curl -H 'Authorization: Basic [REDACTED:basic_auth]' https://api.example.com",
		secret:     "dXNlcjpodW50ZXIyaHVudGVy",
		nearMisses: []string{"the Authorization: Basic scheme", "use Basic authentication for the Authorization header", "WWW-Authenticate: Basic realm=\"api\""},
	},
	"azure_key": {
		sample:     "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
		want:       "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED:azure_key];EndpointSuffix=core.windows.net",
		secret:     "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq",
		nearMisses: []string{"set AccountKey= in the connection string", "AccountKey=<your-key>", "MyAccountKey=Eby8vdM02xNOcqFlqUwJPLlm"},
	},
	"conn_string_password": {
		sample:     "Server=db.internal;Database=app;User Id=sa;Password=Adm1n Pa55 w0rd;Encrypt=true",
		want:       "Server=db.internal;Database=app;User Id=sa;Password=[REDACTED:conn_string_password];Encrypt=true",
		secret:     "Pa55 w0rd",
		nearMisses: []string{"export PWD=/home/dev/app", "PWD=/home/dev", "Server=db;Password=;Database=app"},
	},
	"yaml_secret": {
		sample:     "db:\n  host: db.internal\n  session_token: 9f8e7d6c5b4a # rotated\n",
		want:       "db:\n  host: db.internal\n  session_token: [REDACTED:yaml_secret] # rotated\n",
		secret:     "9f8e7d6c5b4a",
		nearMisses: []string{"max_tokens: 1024", "token_type: bearer", "tokenizer: bert-base-uncased", "password:", "  secretName: prod-db", "token: abc"},
	},
	"json_secret_member": {
		sample:     `MCP answered: {"user":"a","session_token":"c2Vzc2lvbjAwMzM","cookie":"sid=abc123def"} in 20 ms`,
		want:       `MCP answered: {"user":"a","session_token":"[REDACTED:json_secret_member]","cookie":"[REDACTED:json_secret_member]"} in 20 ms`,
		secret:     "c2Vzc2lvbjAwMzM",
		nearMisses: []string{`{"token_type":"bearer","max_tokens":"1024","tokens":"many"}`, `{"token":""}`, `the "token": field`},
	},
	"url_credentials": {
		sample:     "DATABASE_URL=postgres://app:s3cr3tP4ss@db.internal:5432/app",
		want:       "DATABASE_URL=postgres://app:[REDACTED:url_credentials]@db.internal:5432/app",
		secret:     "s3cr3tP4ss",
		nearMisses: []string{"https://example.com:8443/path", "mailto:someone@example.com", "https://user@example.com/"},
	},
	"gitlab_token": {
		sample:     "git remote set-url origin https://gitlab.example.com/g/r.git && export GL_TOKEN glpat-xR4nd0mT0kenV4lue12345",
		want:       "git remote set-url origin https://gitlab.example.com/g/r.git && export GL_TOKEN [REDACTED:gitlab_token]",
		secret:     "xR4nd0mT0kenV4lue12345",
		nearMisses: []string{"the glpat- prefix marks a GitLab token", "glpat-short"},
	},
	"pypi_token": {
		sample:     "twine upload -u __token__ dist/* with pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
		want:       "twine upload -u __token__ dist/* with [REDACTED:pypi_token]",
		secret:     "AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
		nearMisses: []string{"pypi-AgE is how a token starts", "pip install pypi-simple"},
	},
	"vault_token": {
		sample:     "VAULT login hvs.CAESIJ4nd0mV4ultT0kenV4lue0123456789",
		want:       "VAULT login [REDACTED:vault_token]",
		secret:     "CAESIJ4nd0mV4ultT0kenV4lue0123456789",
		nearMisses: []string{"vault login -method=oidc", "hvs.short"},
	},
	"curl_user_password": {
		sample:     "curl -sS -u admin:Cu7lPassw0rd https://ci.example.com/api/json",
		want:       "curl -sS -u admin:[REDACTED:curl_user_password] https://ci.example.com/api/json",
		secret:     "Cu7lPassw0rd",
		nearMisses: []string{"curl -u admin https://ci.example.com/api/json", "curl -H 'Accept: text/plain' https://x.example"},
	},
	"mysql_password": {
		sample:     "mysql -h db -uroot -pMy5qlPassw0rd app",
		want:       "mysql -h db -uroot -p[REDACTED:mysql_password] app",
		secret:     "My5qlPassw0rd",
		nearMisses: []string{"mysql -h db -u root -p app", "mkdir -p build && mysql --version"},
	},
	"sshpass_password": {
		sample:     "sshpass -p 'Ssh pass 01' ssh deploy@host",
		want:       "sshpass -p '[REDACTED:sshpass_password]' ssh deploy@host",
		secret:     "Ssh pass 01",
		nearMisses: []string{"sshpass -f ~/.pw ssh deploy@host", "sshpass -e ssh deploy@host"},
	},
	"login_password": {
		sample:     "docker login -u ci -p D0ckerPassw0rd registry.example.com",
		want:       "docker login -u ci -p [REDACTED:login_password] registry.example.com",
		secret:     "D0ckerPassw0rd",
		nearMisses: []string{"docker run -p 8080:80 nginx", "docker login -u ci registry.example.com"},
	},
	"redis_password": {
		sample:     "redis-cli -h cache -p 6379 -a R3disPassw0rd ping",
		want:       "redis-cli -h cache -p 6379 -a [REDACTED:redis_password] ping",
		secret:     "R3disPassw0rd",
		nearMisses: []string{"redis-cli -h cache -p 6379 ping"},
	},
	"ssh_keygen_passphrase": {
		sample:     `ssh-keygen -t ed25519 -N "Keyg3n phrase" -f id`,
		want:       `ssh-keygen -t ed25519 -N "[REDACTED:ssh_keygen_passphrase]" -f id`,
		secret:     "Keyg3n phrase",
		nearMisses: []string{"ssh-keygen -t ed25519 -N '' -f id", "ssh-keygen -lf id.pub"},
	},
	"openssl_password": {
		sample:     "openssl rsa -in k.pem -passin pass:0pensslPassw0rd -out k2.pem",
		want:       "openssl rsa -in k.pem -passin pass:[REDACTED:openssl_password] -out k2.pem",
		secret:     "0pensslPassw0rd",
		nearMisses: []string{"openssl rsa -in k.pem -passin env:KEY_PASS", "first pass: done"},
	},
	"htpasswd_password": {
		sample:     "htpasswd -bc /etc/nginx/.htpasswd admin Htpassw0rd01",
		want:       "htpasswd -bc /etc/nginx/.htpasswd admin [REDACTED:htpasswd_password]",
		secret:     "Htpassw0rd01",
		nearMisses: []string{"htpasswd -c /etc/nginx/.htpasswd admin", "htpasswd -v .htpasswd admin"},
	},
	"password_hash": {
		sample:     "root:$6$Salt0123$HashedPassw0rdValue0123456789:19000:0:99999:7:::",
		want:       "root:$6$[REDACTED:password_hash]:19000:0:99999:7:::",
		secret:     "HashedPassw0rdValue0123456789",
		nearMisses: []string{"echo $1$2 and a:$1$ x", "nobody:*:19000:0:99999:7:::"},
	},
	"netrc_password": {
		sample:     "machine api.heroku.com\n  login me@example.com\n  password N3trcPassw0rd\n",
		want:       "machine api.heroku.com\n  login me@example.com\n  password [REDACTED:netrc_password]\n",
		secret:     "N3trcPassw0rd",
		nearMisses: []string{"the machine learning password policy", "machine api.heroku.com\n  login me@example.com\n"},
	},
	"cli_secret_flag": {
		sample:     "vercel deploy --prod --token V3rcelT0kenValue",
		want:       "vercel deploy --prod --token [REDACTED:cli_secret_flag]",
		secret:     "V3rcelT0kenValue",
		nearMisses: []string{"kubectl --token-file /run/token get pods", "docker login --password-stdin", "deploy --api-key $API_KEY", "gh auth login --with-token < token.txt"},
	},
	"xml_secret": {
		sample:     "<server><id>nexus</id><password>XmlPassw0rd</password></server>",
		want:       "<server><id>nexus</id><password>[REDACTED:xml_secret]</password></server>",
		secret:     "XmlPassw0rd",
		nearMisses: []string{"<passwordPolicy>strict</passwordPolicy>", "<password></password>", "<tokenizer>bert</tokenizer>"},
	},
	"docker_auth": {
		sample:     `config: {"auths":{"registry.example.com":{"auth":"ZGVwbG95OkQwY2tlckF1dGg="}}}`,
		want:       `config: {"auths":{"registry.example.com":{"auth":"[REDACTED:docker_auth]"}}}`,
		secret:     "ZGVwbG95OkQwY2tlckF1dGg",
		nearMisses: []string{`config: {"auths":{"registry.example.com":{}},"credsStore":"desktop"}`, `{"auth":"none"}`},
	},
	"kube_client_key": {
		sample:     "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=\n",
		want:       "    client-key-data: [REDACTED:kube_client_key]\n",
		secret:     "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo",
		nearMisses: []string{"    client-key-data: DATA+OMITTED\n", "    client-key: /home/dev/.minikube/client.key\n"},
	},
	"npmrc_auth": {
		sample:     "registry=https://npm.example.com/\n_auth=bnBtOk5wbXJjQXV0aDAx\n",
		want:       "registry=https://npm.example.com/\n_auth=[REDACTED:npmrc_auth]\n",
		secret:     "bnBtOk5wbXJjQXV0aDAx",
		nearMisses: []string{"always-auth=true", "_auth="},
	},
	"cookie_header": {
		sample:     "curl -H 'Cookie: sessionid=C00kieValue01; theme=dark' https://app.example.com",
		want:       "curl -H 'Cookie: [REDACTED:cookie_header]' https://app.example.com",
		secret:     "C00kieValue01",
		nearMisses: []string{"the cookie: a small file", "Cookie: none"},
	},
	"secret_assignment": {
		sample:     "password=hunter22 && api_key: 'abcd1234efgh' CLIENT_SECRET=\"zzzz9999\"",
		want:       "password=[REDACTED:secret_assignment] && api_key: '[REDACTED:secret_assignment]' CLIENT_SECRET=\"[REDACTED:env_secret]\"",
		secret:     "hunter22",
		nearMisses: []string{"password = x", "reset your password in settings", "the secret is out", "passwordless=true"},
	},
}

func TestBuiltinRedactionRules(t *testing.T) {
	builtins := BuiltinRules()
	r := New(builtins)
	seen := map[string]bool{}
	for _, rule := range builtins {
		seen[rule.Name] = true
		tc, ok := redactionCases[rule.Name]
		if !ok {
			t.Errorf("built-in rule %q has no test case: add one", rule.Name)
			continue
		}
		t.Run(rule.Name, func(t *testing.T) {
			got := r.Redact(tc.sample)
			if got != tc.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tc.sample, got, tc.want)
			}
			if strings.Contains(got, tc.secret) {
				t.Errorf("secret %q survived: %q", tc.secret, got)
			}
			// The rule on its own must catch it too (not only with help
			// from a neighbour).
			alone, n, err := TestRule(rule, tc.sample)
			if err != nil || n == 0 || strings.Contains(alone, tc.secret) {
				t.Errorf("rule alone: %d matches, %q, %v", n, alone, err)
			}
			for _, miss := range tc.nearMisses {
				if got := r.Redact(miss); got != miss {
					t.Errorf("near miss %q must stay as it is, got %q", miss, got)
				}
			}
		})
	}
	for name := range redactionCases {
		if !seen[name] {
			t.Errorf("test case %q names no built-in rule", name)
		}
	}
}

func TestRedactorDisabledAndCustomRules(t *testing.T) {
	rules := BuiltinRules()
	for i := range rules {
		if rules[i].Name == "aws_access_key" {
			rules[i].Enabled = false
		}
	}
	rules = append(rules,
		Rule{Name: "ticket", Pattern: `TICKET-\d+`, Enabled: true},
		Rule{Name: "broken", Pattern: `(`, Enabled: true},
	)
	r := New(rules)
	if got := r.Redact("AKIAIOSFODNN7EXAMPLE"); got != "AKIAIOSFODNN7EXAMPLE" {
		t.Errorf("a disabled rule must not apply, got %q", got)
	}
	if got := r.Redact("see TICKET-42"); got != "see [REDACTED:ticket]" {
		t.Errorf("custom rule: got %q", got)
	}
	for _, name := range r.Rules() {
		if name == "broken" || name == "aws_access_key" {
			t.Errorf("rule %q must not be active", name)
		}
	}
	var nilR *Redactor
	if nilR.Redact("password=hunter22") != "password=hunter22" {
		t.Error("a nil Redactor returns its input")
	}
	if _, _, err := TestRule(Rule{Name: "x", Pattern: "("}, "a"); err == nil {
		t.Error("TestRule must report an invalid pattern")
	}
}

// A later rule must not re-redact an earlier rule's marker, so the stored
// text names the rule that really matched.
func TestRedactKeepsEarlierMarkers(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct{ in, want string }{
		{"password=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "password=[REDACTED:github_token]"},
		{"API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "API_KEY=[REDACTED:anthropic_key]"},
		{"password=hunter22", "password=[REDACTED:secret_assignment]"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSecretVariants holds further forms of the kinds above that must be
// redacted whole: Stripe test and restricted keys, URL credentials with an
// empty user or an '@' in the password, quoted environment values.
func TestSecretVariants(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct{ in, secret string }{
		{"sk_test_51H8abcdefGHIJKLmnopQRST", "51H8abcdefGHIJKLmnopQRST"},
		// A GitHub token of any length past the minimum (the pattern once
		// capped it at 255, which took 1.5 ms to compile in every hook
		// whose event held "ho_" or "hs_").
		{"ghp_" + strings.Repeat("A1b2", 80), strings.Repeat("A1b2", 80)},
		{"rk_live_51H8abcdefGHIJKLmnopQRST", "51H8abcdefGHIJKLmnopQRST"},
		{"rk_test_51H8abcdefGHIJKLmnopQRST", "51H8abcdefGHIJKLmnopQRST"},
		{"REDIS_URL=redis://:hunter2hunter@cache:6379/0", "hunter2hunter"},
		{"git clone https://deploy:p@ss@w0rd@git.example.com/x.git", "p@ss@w0rd"},
		{"amqp://guest:Gu3stPassw0rd@rabbit:5672", "Gu3stPassw0rd"},
		{`GH_TOKEN="spaced token value" gh pr list`, "spaced token value"},
		{"NPM_KEY=abcd1234", "abcd1234"},
		{"https://0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210@sentry.example.com/12", "fedcba9876543210fedcba9876543210"},
		{"https://0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210@sentry.example.com/12", "0123456789abcdef0123456789abcdef"},
		{"https://hooks.slack.com/workflows/T024BE7LD/A01ABCDEF12/123456789/xYzAbCdEfGh", "xYzAbCdEfGh"},
		{`password: "correct horse battery staple"`, "horse battery staple"},
		{`{"password": 'two words'}`, "two words"},
		{`connect with password: "DEPLOY_TOKEN='SoakEnvStyleToken77'" then`, "SoakEnvStyleToken77"},
		// %-escaped, as in a URL's query.
		{"https://x.example/?q=DB_PASSWORD%3DSoakAssignedSecret42", "SoakAssignedSecret42"},
		{"https://x.example/login?next=https%3A%2F%2Fbot%3AS3cretPassw0rd%40git.example.com%2Fr", "S3cretPassw0rd"},
		{"?q=-----BEGIN+RSA+PRIVATE+KEY-----%0AMIIEowIBAAKCAQEAsoak%0A-----END+RSA+PRIVATE+KEY-----", "MIIEowIBAAKCAQEAsoak"},
		{"?q=Authorization%3A+Bearer+SoakBearerToken0123456789&x=1", "SoakBearerToken0123456789"},
		// A query's value with spaces as '+' and nothing %-escaped, and a
		// JSON escape inside %-escapes.
		{"Fetched https://example.com/?q=vercel+deploy+--prod+--token+QueryFlag0043", "QueryFlag0043"},
		{"https://example.com/?q=docker+login+-u+ci+-p+QueryLogin55+registry.example.com", "QueryLogin55"},
		{"https://example.com/?q=resp+%7B%22pass%5Cu0077ord%22%3A%22QueryEscName58%22%7D", "QueryEscName58"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); strings.Contains(got, tt.secret) || !strings.Contains(got, "[REDACTED:") {
			t.Errorf("Redact(%q) = %q: %q survived", tt.in, got, tt.secret)
		}
	}
}

// %-escaped text that holds no secret stays as written, and so does an
// invalid escape.
func TestPercentDecodedLeavesTheRest(t *testing.T) {
	r := New(BuiltinRules())
	for _, in := range []string{"https://x.example/a%20b?q=go+test%2C+please&n=100%25", "50% off", "%zz%4", "a%2"} {
		if got := r.Redact(in); got != in {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
	if got := r.Clean("?q=%3Cprivate%3Ehidden%3C%2Fprivate%3E&x=1"); strings.Contains(got, "hidden") {
		t.Errorf("an escaped private block survived: %q", got)
	}
}

// A pattern may give several alternatives a (?P<secret>…) group each: the
// one that took part in the match is replaced.
func TestRedactSecretGroupAlternatives(t *testing.T) {
	r := New([]Rule{{Name: "kv", Pattern: `k=(?:"(?P<secret>[^"]+)"|(?P<secret>\w+))`, Enabled: true}})
	if got, want := r.Redact(`k="a b" k=cd`), `k="[REDACTED:kv]" k=[REDACTED:kv]`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Shell commands quote JSON and environment values with escaped quotes
// (curl -d "{\"password\":\"…\"}", docker run -e DB_PASSWORD=\"…\"): the
// escaped quotes are quotes to the password and secret rules, and the
// value is redacted whole, its closing \" kept.
func TestEscapedQuotesInCommands(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct{ in, secret string }{
		{`curl -d "{\"username\":\"admin\",\"password\":\"CurlEscPw0006hunter\"}" https://api.example.com/login`, "CurlEscPw0006hunter"},
		{`docker run -e DB_PASSWORD=\"DockerEscPw0007\" postgres`, "DockerEscPw0007"},
		{`curl -d "{\"client_secret\":\"CliSecEsc0008abcd\",\"grant_type\":\"x\"}"`, "CliSecEsc0008abcd"},
		{`http POST api/keys "{\"api_key\": \"ApiKeyEsc0009 with space\"}"`, "ApiKeyEsc0009 with space"},
		{`psql -c "ALTER USER app PASSWORD 'x'" -v password=\'PsqlEsc0010pw\'`, "PsqlEsc0010pw"},
		{`bash -c "echo \\\"password\\\":\\\"DoubleEsc0011pw\\\""`, "DoubleEsc0011pw"},
		{`http POST api/login password:=\"HttpieEsc0012\"`, "HttpieEsc0012"},
	}
	for _, tt := range tests {
		got := r.Redact(tt.in)
		if strings.Contains(got, tt.secret) || !strings.Contains(got, "[REDACTED:") {
			t.Errorf("Redact(%q) = %q: %q survived", tt.in, got, tt.secret)
		}
	}
	in := `curl -d "{\"user\":\"admin\",\"password\":\"CurlEscPw0006hunter\"}" https://api.example.com/login`
	want := `curl -d "{\"user\":\"admin\",\"password\":\"[REDACTED:secret_assignment]\"}" https://api.example.com/login`
	if got := r.Redact(in); got != want {
		t.Errorf("the escaped quotes around the value stay:\n got %q\nwant %q", got, want)
	}
	for _, miss := range []string{`curl -d "{\"user\":\"admin\",\"remember\":true}"`, `echo \"password\" is a word`, `grep -r \"secret\" .`} {
		if got := r.Redact(miss); got != miss {
			t.Errorf("near miss %q must stay, got %q", miss, got)
		}
	}
}

// \b counts '_' as a letter, so a token inside an identifier (a file
// name, an MCP tool's name) was left: tokens are bounded by anything but
// an ASCII letter or digit, and two tokens a single character apart are
// both found.
func TestTokensBesideUnderscores(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct{ in, secret string }{
		{"cat creds_AKIAIOSFODNN7EXAMPLE.csv", "AKIAIOSFODNN7EXAMPLE"},
		{"mcp__srv-AKIAIOSFODNN7EXAMPLE__x", "AKIAIOSFODNN7EXAMPLE"},
		{"mcp__x__xoxb-123456789012-AbCdEfGhIjKl", "123456789012-AbCdEfGhIjKl"},
		{"token_ghp_16C7e42F292c6912E7710c838347Ae178B4a_old", "16C7e42F292c6912E7710c838347Ae178B4a"},
		{"key_sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
		{"my_sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"},
		{"x_npm_iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g_y", "iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g"},
		{"jwt_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w", "dozjgNryP4J3jVmNHl0w"},
		{"AKIAIOSFODNN7EXAMPLE,AKIAIOSFODNN7EXAMPLF", "AKIAIOSFODNN7EXAMPLF"},
		{"AKIAIOSFODNN7EXAMPLE,AKIAIOSFODNN7EXAMPLF ſ", "AKIAIOSFODNN7EXAMPLF"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); strings.Contains(got, tt.secret) {
			t.Errorf("Redact(%q) = %q: %q survived", tt.in, got, tt.secret)
		}
	}
	if got, want := r.Redact("mcp__srv-AKIAIOSFODNN7EXAMPLE__x"), "mcp__srv-[REDACTED:aws_access_key]__x"; got != want {
		t.Errorf("the characters around the key stay: got %q, want %q", got, want)
	}
	for _, miss := range []string{"xAKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLEX", "task-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ask_live_4eC39HqLyjWDarjtT1zdp7dc"} {
		if got := r.Redact(miss); got != miss {
			t.Errorf("near miss %q must stay, got %q", miss, got)
		}
	}
}

// Kinds of secret users expect redacted, each with a near miss that
// stays: PGP private keys, Slack app tokens, Basic credentials,
// SECRET_KEY_BASE, YAML secrets, Azure keys, connection strings.
func TestMoreSecretKinds(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct {
		in, secret, rule string
		nearMiss         string
	}{
		{"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGVsoakPGPcoreAbCdEf0123\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGVsoakPGPcoreAbCdEf0123", "pem_private_key",
			"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGVpublic0123\n-----END PGP PUBLIC KEY BLOCK-----"},
		{"SLACK_APP_TOKEN xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef", "A0123456789-1234567890123", "slack_token", "the xapp-config file"},
		{"curl -H \"Authorization: Basic YWRtaW46aHVudGVyMmh1bnRlcg==\" https://x", "YWRtaW46aHVudGVyMmh1bnRlcg", "basic_auth", "Authorization: Basic realm"},
		{"SECRET_KEY_BASE=0f3e9a7c6b5d4e3f2a1b0c9d8e7f6a5b bin/rails s", "0f3e9a7c6b5d4e3f2a1b0c9d8e7f6a5b", "env_secret", "SECRET_KEY_BASE_PATH=/etc/app"},
		{"auth:\n  token: YamlTok0013abcdef\n", "YamlTok0013abcdef", "yaml_secret", "auth:\n  token_type: bearer\n"},
		{"db:\n  password: \"yaml pass 0014\"\n", "yaml pass 0014", "secret_assignment", "db:\n  password_file: /run/secrets/db\n"},
		{"AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4cXV1eDAwMTVhYmNk==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4cXV1eDAwMTVhYmNk", "azure_key", "AccountName=acme;EndpointSuffix=core.windows.net"},
		{"psql postgres://u:p@db.internal/app", "u:p@", "url_credentials", "psql postgres://db.internal/app"},
		{"Server=db;User Id=sa;Password=Ado0016 pw;", "Ado0016 pw", "conn_string_password", "Server=db;Integrated Security=true;"},
		{"jdbc:postgresql://db/app?user=app&password=j1", "password=j1", "conn_string_password", "jdbc:postgresql://db/app?user=app&ssl=true"},
	}
	for _, tt := range tests {
		got := r.Redact(tt.in)
		if strings.Contains(got, tt.secret) || !strings.Contains(got, Marker(tt.rule)) {
			t.Errorf("Redact(%q) = %q: %q survived or no %s", tt.in, got, tt.secret, Marker(tt.rule))
		}
		if got := r.Redact(tt.nearMiss); got != tt.nearMiss {
			t.Errorf("near miss %q must stay, got %q", tt.nearMiss, got)
		}
	}
}

// A JSON member whose name or value is written with escapes, in text (a
// document quoted in a prompt, a tool's output, an answer): the escapes
// are read before the rules look (issue 36). Text whose escapes hide
// nothing stays as written.
func TestJSONEscapesInText(t *testing.T) {
	r := New(BuiltinRules())
	tests := []struct{ in, secret string }{
		{`resp {"pass\u0077ord":"EscName0001hunter"}`, "EscName0001hunter"},
		{`resp {"\u0070\u0061\u0073\u0073\u0077\u006f\u0072\u0064": "EscName0002hunter"}`, "EscName0002hunter"},
		{`resp {"api_\u006bey":"EscName0003hunter"}`, "EscName0003hunter"},
		{`{"password":"\u0045scValue0004hunter"}` + " and more", "EscValue0004hunter"},
		{`echo "{\"pass\\u0077ord\":\"EscName0005hunter\"}"`, "EscName0005hunter"},
		{`token \u0067hp_16C7e42F292c6912E7710c838347Ae178B4a`, "hp_16C7e42F292c6912E7710c838347Ae178B4a"},
		{`{"url":"https:\/\/deploy:EscSlash0007pw@git.example.com\/r"} done`, "EscSlash0007pw"},
		{`{"t\ud835\udc28ken":"x"} {"pass\u0057ORD":"EscName0008hunter"}`, "EscName0008hunter"},
	}
	for _, tt := range tests {
		for _, got := range []string{r.Redact(tt.in), r.Clean(tt.in), string(r.CleanJSON([]byte(mustJSON(t, map[string]string{"prompt": tt.in}))))} {
			if strings.Contains(got, tt.secret) || !strings.Contains(got, "[REDACTED:") {
				t.Errorf("Redact(%q) = %q: %q survived", tt.in, got, tt.secret)
			}
		}
	}
	for _, miss := range []string{`caf\u00e9 {"name":"\u0041lice"}`, `"\u0022quoted\u0022"`, `\u00`, `\ud800 alone`, `path C:\\users\\dev`, `a \/ b`} {
		if got := r.Redact(miss); got != miss {
			t.Errorf("near miss %q must stay, got %q", miss, got)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The prefilter of a short text (its pairs hashed, see filterText.short)
// finds every rule literal a text holds, as strings.Contains does.
func TestFilterTextShort(t *testing.T) {
	r := Builtins()
	var lits []string
	for _, rule := range r.rules {
		rule.parse()
		lits = append(lits, rule.need...)
	}
	for _, lit := range lits {
		for _, text := range []string{lit, "x " + lit + "=1", lit[:len(lit)/2], "go build ./... && echo " + lit} {
			if len(text) >= shortUpTo {
				continue
			}
			f := newFilterText(text)
			for _, l := range lits {
				if got, want := f.contains(l), strings.Contains(text, l); got != want {
					t.Fatalf("%q holds %q: %v, want %v", text, l, got, want)
				}
			}
		}
	}
}
