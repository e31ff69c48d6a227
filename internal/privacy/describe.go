package privacy

import "sync"

// Description says, for people, what a built-in rule catches: one line,
// an example of the shape with an obviously fake value, and the example
// as it is stored once the rule has redacted it.
type Description struct {
	Catches string
	Example string
	Stored  string
}

// about is each built-in's line and example. The examples are placeholders
// (EXAMPLE, zeros): a page shows them, so none may look like a live secret.
// TestBuiltinDescriptions checks each is caught by its own rule.
var about = map[string]struct{ catches, example string }{
	"pem_private_key":       {"A private key file's text (RSA, EC, OpenSSH, PGP), the whole block.", "-----BEGIN OPENSSH PRIVATE KEY----- EXAMPLEkeyEXAMPLE -----END OPENSSH PRIVATE KEY-----"},
	"aws_access_key":        {"An AWS access key id (AKIA…, ASIA…).", "AKIAIOSFODNN7EXAMPLE"},
	"aws_secret_key":        {"An AWS secret access key written after its name.", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	"github_token":          {"A GitHub token (ghp_, gho_, ghs_, github_pat_…).", "ghp_EXAMPLEexampleEXAMPLEexampleEXAMPLE0"},
	"gitlab_token":          {"A GitLab personal, deploy, runner or trigger token (glpat-…).", "glpat-EXAMPLE-example-EXAMPLE"},
	"anthropic_key":         {"An Anthropic API key (sk-ant-…).", "sk-ant-api03-EXAMPLE-example-EXAMPLE"},
	"openai_key":            {"An OpenAI API key (sk-…, sk-proj-…).", "sk-proj-EXAMPLEexampleEXAMPLE0000"},
	"stripe_key":            {"A Stripe secret or restricted key, live or test (sk_live_…, rk_test_…).", "sk_test_EXAMPLEexampleEXAMPLE"},
	"google_api_key":        {"A Google API key (AIza…).", "AIzaEXAMPLEexampleEXAMPLEexampleEXAMPLE"},
	"slack_token":           {"A Slack bot, user or app token (xoxb-…, xapp-…).", "xoxb-EXAMPLE-example"},
	"slack_webhook":         {"A Slack incoming webhook's secret path.", "https://hooks.slack.com/services/TEXAMPLE/BEXAMPLE/EXAMPLEexample"},
	"npm_token":             {"An npm access token (npm_…).", "npm_EXAMPLEexampleEXAMPLEexampleEXAMPLE0"},
	"huggingface_token":     {"A Hugging Face token (hf_…).", "hf_EXAMPLEexampleEXAMPLEexampleEXAMPLE"},
	"pypi_token":            {"A PyPI upload token (pypi-AgE…).", "pypi-AgEEXAMPLEexampleEXAMPLEexampleEXAMPLEexample"},
	"vault_token":           {"A HashiCorp Vault token (hvs.…, hvb.…).", "hvs.EXAMPLEexampleEXAMPLEexample"},
	"mneme_token":           {"A person's mneme token in team mode (mneme_pt_…).", "mneme_pt_0000000000000000000000000000000000000000000000000000000000000000"},
	"sentry_dsn":            {"The key in a Sentry DSN.", "https://00000000000000000000000000000000@sentry.example.com/42"},
	"jwt":                   {"A JSON Web Token (three dot-separated parts starting eyJ).", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJleGFtcGxlIn0.EXAMPLEsignature"},
	"bearer_token":          {"The token after Bearer, in a header or anywhere.", "Authorization: Bearer EXAMPLE-token-0000"},
	"basic_auth":            {"The user and password of an Authorization: Basic header.", "Authorization: Basic EXAMPLEexample="},
	"azure_key":             {"The key of an Azure storage or service bus connection string.", "AccountKey=EXAMPLEexampleEXAMPLE=="},
	"url_credentials":       {"A password inside a URL (scheme://user:password@host).", "postgres://app:EXAMPLE-password@db.example.com/app"},
	"curl_user_password":    {"The password of curl -u user:password.", "curl -u admin:EXAMPLE-password https://ci.example.com"},
	"mysql_password":        {"A password given to mysql, mysqldump or mariadb with -p.", "mysql -u root -pEXAMPLEpassword app"},
	"sshpass_password":      {"The password of sshpass -p.", "sshpass -p EXAMPLEpassword ssh deploy@host.example.com"},
	"login_password":        {"The password of docker login -p (podman, helm registry, twine upload…).", "docker login -u ci -p EXAMPLEpassword registry.example.com"},
	"redis_password":        {"The password of redis-cli -a or AUTH.", "redis-cli -a EXAMPLEpassword ping"},
	"ssh_keygen_passphrase": {"A passphrase given to ssh-keygen with -N or -P.", "ssh-keygen -t ed25519 -N EXAMPLEpassphrase"},
	"openssl_password":      {"A password given to openssl (-passin pass:…, enc -k …).", "openssl pkcs12 -export -passout pass:EXAMPLEpassword"},
	"htpasswd_password":     {"The password given to htpasswd -b.", "htpasswd -b .htpasswd admin EXAMPLEpassword"},
	"password_hash":         {"A password hash after its user, as in .htpasswd or /etc/shadow.", "admin:$apr1$EXAMPLE$exampleEXAMPLEexample"},
	"netrc_password":        {"The password of a .netrc entry.", "machine api.example.com login me password EXAMPLEpassword"},
	"cli_secret_flag":       {"The value of an option named like a secret (--token, --password, --api-key…).", "deploy --token EXAMPLEtoken0000"},
	"xml_secret":            {"An XML element or NuGet setting named like a secret.", "<password>EXAMPLEpassword</password>"},
	"docker_auth":           {"The auth of a registry in Docker's config.json.", `"auths": {"registry.example.com": {"auth": "EXAMPLEexample="}}`},
	"kube_client_key":       {"A kubeconfig's client key.", "client-key-data: EXAMPLEexampleEXAMPLE="},
	"npmrc_auth":            {"The _auth line of an .npmrc.", "_auth=EXAMPLEexample"},
	"cookie_header":         {"The values of a Cookie or Set-Cookie header.", "Cookie: session=EXAMPLEsessionid"},
	"conn_string_password":  {"The password of a database connection string (ADO.NET, ODBC, JDBC).", "Server=db;User Id=app;Password=EXAMPLEpassword;"},
	"env_secret":            {"An environment variable named like a secret (DB_PASSWORD=…, GH_TOKEN=…).", "DB_PASSWORD=EXAMPLEpassword"},
	"env_bare_secret":       {"TOKEN=, SECRET= or PASSWD= as the whole variable name.", "TOKEN=EXAMPLEtoken"},
	"secret_assignment":     {"A value given to a name like password, api_key or client_secret (and such members of JSON).", `api_key = "EXAMPLE key"`},
	"yaml_secret":           {"A YAML or .env line whose key ends like a secret's name.", "session_token: EXAMPLEtoken"},
	"json_secret_member":    {"A JSON member named like a secret, written in text.", `echo '{"session_token": "EXAMPLEtoken"}' | jq .`},
}

// descriptions are made on first use: the hook, which never shows them,
// does not pay for compiling the rules here.
var descriptions = sync.OnceValue(func() map[string]Description {
	out := make(map[string]Description, len(about))
	for _, r := range builtins {
		a, ok := about[r.Name]
		if !ok {
			continue
		}
		stored, _, _ := TestRule(r, a.example)
		out[r.Name] = Description{Catches: a.catches, Example: a.example, Stored: stored}
	}
	return out
})

// Describe returns what built-in rule name catches; ok is false for a name
// that is no built-in's.
func Describe(name string) (Description, bool) {
	d, ok := descriptions()[name]
	return d, ok
}
