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

// optValue is a command-line option's value, the (?P<secret>…) part of
// the rules for passwords given to commands: in single or double quotes,
// spaces and all, or up to white space. A bare value does not start with
// '$' (a variable: --token $TOKEN), '-' (the next option) or a shell
// operator, and ends before a backslash (an escaped quote).
const optValue = `(?:'(?P<secret>[^'\n]+)'|"(?P<secret>[^"\n]+)"|(?P<secret>[^\s'"$<>|&;\\-][^\s'"\\]*))`

// envValue is the value of an environment-style assignment: in quotes
// (escaped ones too), spaces and all, or up to white space, a quote or a
// shell operator; 4 characters or more.
const envValue = `\\*(?:"(?P<secret>[^"\n]{4,}?)\\*"|'(?P<secret>[^'\n]{4,}?)\\*'|(?P<secret>[^\s"'` + "`" + `;&|<>\\][^\s"'` + "`" + `;&|<>]{3,}))`

// builtins are made once per process: the hook needs them for every event.
var builtins = makeBuiltins()

func makeBuiltins() []Rule {
	rules := []Rule{
		// PEM blocks (RSA, EC, OPENSSH, ENCRYPTED…) and PGP's armour.
		{Name: "pem_private_key", Pattern: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)`},
		// The token kinds below are bounded by (?:^|[^0-9A-Za-z]) and
		// (?:[^0-9A-Za-z]|$) rather than \b, for which '_' is a letter:
		// a key inside an identifier (creds_AKIA….csv, a tool named
		// mcp__srv-AKIA…__x) is found too. The (?P<secret>…) group keeps
		// the characters around it.
		{Name: "aws_access_key", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})(?:[^0-9A-Za-z]|$)`},
		// The name and the key apart by ':', '=' or white space (aws
		// configure set aws_secret_access_key …).
		{Name: "aws_secret_key", Pattern: `(?i)aws_?secret_?access_?key\\*["']?(?:\s*[:=]\s*|[ \t]+)\\*["']?(?P<secret>[A-Za-z0-9/+=]{40})`},
		{Name: "github_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?:[^0-9A-Za-z]|$)`},
		// GitLab personal, deploy, runner, pipeline-trigger and OAuth
		// application tokens.
		{Name: "gitlab_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>gl(?:pat|dt|rt|ptt|oas)-[0-9A-Za-z_\-]{20,})`},
		{Name: "anthropic_key", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>sk-ant-[A-Za-z0-9_\-]{20,})`},
		{Name: "openai_key", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})`},
		// Stripe secret and restricted keys, live and test: a test key
		// still reads and writes the account's test data. Publishable
		// keys (pk_) are public by design.
		{Name: "stripe_key", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>[rs]k_(?:live|test)_[0-9A-Za-z]{16,})`},
		{Name: "google_api_key", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>AIza[0-9A-Za-z_\-]{35})`},
		// Slack bot, user, app-level (xapp-) and refresh tokens.
		{Name: "slack_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>(?:xox[abposr]|xapp)-[A-Za-z0-9\-]{10,})`},
		{Name: "slack_webhook", Pattern: `\bhooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_\-]+/[A-Za-z0-9_\-]+/[A-Za-z0-9_\-/]{8,})`},
		{Name: "npm_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>npm_[A-Za-z0-9]{36})(?:[^0-9A-Za-z]|$)`},
		{Name: "huggingface_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>hf_[A-Za-z]{34,})(?:[^0-9A-Za-z]|$)`},
		// PyPI API tokens (a macaroon whose first bytes name pypi.org).
		{Name: "pypi_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>pypi-AgE[A-Za-z0-9_\-]{40,})`},
		// HashiCorp Vault service, batch and recovery tokens.
		{Name: "vault_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>hv[sbr]\.[A-Za-z0-9_\-]{24,})`},
		// mneme's own person tokens (team mode, `mneme token create`).
		{Name: "mneme_token", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>mneme_pt_[0-9a-f]{64})(?:[^0-9A-Za-z]|$)`},
		// A Sentry DSN: https://<32 hex key>[:<secret>]@<host>/<project id>.
		{Name: "sentry_dsn", Pattern: `://(?P<secret>[0-9a-f]{32}(?::[^\s@/'"]*)?)@[A-Za-z0-9.\-]+(?::\d+)?/\d+\b`},
		{Name: "jwt", Pattern: `(?:^|[^0-9A-Za-z])(?P<secret>eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})`},
		{Name: "bearer_token", Pattern: `(?i)\bbearer\s+(?P<secret>[A-Za-z0-9_\-\.=:/+~]{8,})`},
		// Authorization: Basic <base64 of user:password>, as a header or
		// a member.
		{Name: "basic_auth", Pattern: `(?i)authorization\\*["']?\s*[:=]\s*\\*["']?\s*basic\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})`},
		// An Azure storage or service bus connection string's key.
		{Name: "azure_key", Pattern: `(?i)(?:^|[^0-9A-Za-z])(?:AccountKey|SharedAccessKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{16,}={0,2})`},
		// scheme://[user]:password@host; the password may hold '@' (the
		// last one before the host is the separator). A user name holds
		// no brackets, so an earlier rule's marker is not taken for one.
		// The patterns start at their literal ("://", "password"…) rather
		// than at the scheme or the start of the name, which are kept
		// anyway: a leading \b[…]* makes Go's matcher try every position
		// (secret_assignment ran at 2 MB/s on text full of candidates).
		{Name: "url_credentials", Pattern: `://[^\s:/@'"\[\]]*:(?P<secret>[^\s/'"]+)@`},
		// Passwords given to a command on its command line. optValue is
		// the value: quoted (spaces and all) or up to white space; a bare
		// one is not a variable ($TOKEN), the next option or a redirect.
		// curl -u user:password, --user "user:password".
		{Name: "curl_user_password", Pattern: `\bcurl\b[^\n|;&]*?\s(?:-u|--user)(?:[ \t]*|=)(?:'[^':\n]*:(?P<secret>[^'\n]+)'|"[^":\n]*:(?P<secret>[^"\n]+)"|[^\s:'"]*:(?P<secret>[^\s'"\\]+))`},
		// mysql -uroot -pSECRET (the family's -p takes its value attached;
		// -p alone, or followed by a space, prompts for it).
		{Name: "mysql_password", Pattern: `\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p` + optValue},
		// sshpass -p SECRET ssh …
		{Name: "sshpass_password", Pattern: `\bsshpass\s+(?:-[^p\s]\S*\s+)*-p[ \t]*` + optValue},
		// docker login -p SECRET (podman, nerdctl, oras, helm registry),
		// twine upload -p SECRET.
		{Name: "login_password", Pattern: `\b(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|helm registry) login|twine upload)\b[^\n|;&]*?\s-p[ \t]+` + optValue},
		// redis-cli -a SECRET (its -p is the port), redis-cli AUTH [user]
		// SECRET.
		{Name: "redis_password", Pattern: `\bredis-cli\b[^\n|;&]*?\s(?:(?:-a|--pass)[ \t]+` + optValue +
			`|AUTH[ \t]+(?:[^\s'"]+[ \t]+)?` + optValue + `[ \t]*(?:$|[\n|;&]))`},
		// ssh-keygen -N new-passphrase, -P old-passphrase.
		{Name: "ssh_keygen_passphrase", Pattern: `\bssh-keygen\b[^\n|;&]*?\s-[NP][ \t]+` + optValue},
		// openssl's -passin pass:SECRET, -passout pass:…, -password pass:…
		// (env:VAR and file:path name where the password is), and openssl
		// enc -k SECRET.
		{Name: "openssl_password", Pattern: `-pass(?:in|out|word)?[ \t]+pass:(?P<secret>[^\s'"\\]+)|\bopenssl\s+enc\b[^\n|;&]*?\s-k[ \t]+` + optValue},
		// htpasswd -b[c] file user SECRET, htpasswd -nb user SECRET.
		{Name: "htpasswd_password", Pattern: `\bhtpasswd\s+(?:-[A-Za-z]*n[A-Za-z]*[ \t]+\S+|-[A-Za-z]*b[A-Za-z]*[ \t]+\S+[ \t]+\S+)[ \t]+` + optValue},
		// A password hash after its user's name, as in .htpasswd and
		// /etc/shadow: user:$apr1$…, user:$2y$…, user:$6$…, user:{SHA}….
		{Name: "password_hash", Pattern: `:(?:\$(?:apr1|2[abxy]|[156]|y|gy|7)\$(?P<secret>[./A-Za-z0-9$]{8,})|\{SHA\}(?P<secret>[A-Za-z0-9+/]{20,}={0,2}))`},
		// .netrc: machine host login user password SECRET, on one line
		// or several.
		{Name: "netrc_password", Pattern: `\b(?:machine|default)\s+(?:\S+\s+)?(?:(?:login|account)\s+\S+\s+)+password\s+(?P<secret>\S+)`},
		// A long option named like a secret: --token SECRET, --password
		// SECRET, --api-key=SECRET, --client-secret SECRET. --token-file
		// and --password-stdin name where the secret is; a URL after the
		// option is the command's argument (wget --ask-password https://…),
		// not a value.
		{Name: "cli_secret_flag", Pattern: `--(?:[a-z0-9]+-)*(?:token|password|passwd|passphrase|secret|api-?key|access-?key|auth-?token)(?:[ \t]+|=)` +
			`(?:'(?P<secret>[^'\n]+)'|"(?P<secret>[^"\n]+)"|(?P<secret>[^\s'"$<>|&;\\:-](?:[^\s'"\\:]|:+[^\s'"\\:/])*:*)(?:[\s'"\\]|$))`},
		// XML elements and NuGet-style settings named like a secret:
		// <password>…</password>, <add key="ClearTextPassword" value="…"/>.
		{Name: "xml_secret", Pattern: `(?i)<(?:add\s+key="[^"\n]*(?:password|token|secret|apikey)"\s+value="(?P<secret>[^"\n]+)"|(?:[A-Za-z0-9_.\-]*:)?[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|secret|token|api-?key|apikey|access-?key|private-?key)>(?P<secret>[^<\n]+)</)`},
		// Docker's config.json: {"auths": {"host": {"auth": "<base64 of
		// user:password>"}}}.
		{Name: "docker_auth", Pattern: `"auth\\*"\s*:\s*\\*"(?P<secret>[A-Za-z0-9+/]{12,}={0,2})\\*"`},
		// A kubeconfig's client key, in YAML or JSON.
		{Name: "kube_client_key", Pattern: `client-key-data\\*["']?\s*:\s*\\*["']?(?P<secret>[A-Za-z0-9+/]{16,}={0,2})`},
		// .npmrc's _auth=<base64 of user:password>.
		{Name: "npmrc_auth", Pattern: `\b_auth[ \t]*=[ \t]*(?P<secret>[^\s'"\\]{8,})`},
		// A Cookie or Set-Cookie header's name=value pairs.
		{Name: "cookie_header", Pattern: `(?i)\bcookie:[ \t]*(?P<secret>[^\s;'"=]+=[^\n'"]+)`},
		// The password of an ADO.NET / ODBC connection string
		// (Server=…;User Id=…;Password=…;), spaces and all, and of a JDBC
		// URL's query (?user=…&password=…): after a ';', '?' or '&', or
		// ended by a ';'. PWD=/home/dev alone is the working directory.
		{Name: "conn_string_password", Pattern: `(?i)(?:[;?&]\s*(?:password|pwd)\s*=\s*(?:\{(?P<secret>[^}\n]+)\}|(?P<secret>[^;&"'\n]*[^;&"'\s]))|(?:password|pwd)\s*=\s*(?P<secret>[^;&"'\n]*[^;&"'\s])\s*;)`},
		// Environment-style assignments (upper case, no space around '='):
		// DB_PASS=…, GH_TOKEN="…", SIGNING_KEY='…', SECRET_KEY_BASE=…, and
		// with the quotes escaped (-e DB_PASSWORD=\"…\" in a quoted
		// command). The name is kept. A name that only starts with such a
		// word (TOKEN_LIMIT=5) is not a secret's, and a value needs 4
		// characters or more.
		{Name: "env_secret", Pattern: `[A-Z0-9]_(?:PASS|PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY|KEY_BASE)=` + envValue},
		// TOKEN=…, SECRET=…, PASSWD=… with the word the whole name (PWD=
		// is the working directory, KEY= too often not a secret); a rule
		// of its own, led by its words, so that text full of "token=" is
		// not run through env_secret's pattern from every position.
		{Name: "env_bare_secret", Pattern: `\b(?:TOKEN|SECRET|PASSWD)=` + envValue},
		// A value in quotes is redacted whole, spaces and all; quotes
		// escaped with backslashes (curl -d "{\"password\":\"…\"}") are
		// quotes too. The value is on the name's line ("Enter password:"
		// and the next line's first word are not), right after a bare '='
		// (PGPASSWORD= psql sets it empty), and not a ${VARIABLE}.
		{Name: "secret_assignment", Pattern: `(?i)(?:password|passwd|passphrase|secret|api[_\-]?key|private[_\-]?key|access[_\-]?key|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|api[_\-]?token|client[_\-]?secret)\\*["']?(?:[ \t]+(?::=|[:=])[ \t]*|(?::=|:)[ \t]*|=)(?:\\*"(?P<secret>[^"\n]{4,}?)\\*"|\\*'(?P<secret>[^'\n]{4,}?)\\*'|\\*["']?(?P<secret>(?:[^\s"',;\\$]|\$[^\s"',;{])[^\s"',;]{2,}))`},
		// YAML (and .env-like) lines whose key ends like a secret's name:
		// token: …, session_token: …, password: …, with the value to the
		// end of the line, comment excepted.
		{Name: "yaml_secret", Pattern: `(?im)^[ \t]*(?:- )?["']?[A-Za-z0-9_\-.]*(?:token|password|passwd|passphrase|secret|api_?key|access_?key|private_?key)["']?[ \t]*:[ \t]+(?:"(?P<secret>[^"\n]{4,})"|'(?P<secret>[^'\n]{4,})'|(?P<secret>[^\s"'#|>&*!{\[][^\n#]{3,}?))[ \t]*(?:#.*)?$`},
		// A JSON member named like a secret written in text (a tool's
		// output quoting a response, JSON inside a shell command, its
		// quotes escaped): "session_token": "…", \"cookie\":\"…\". A
		// string that is one JSON document is decoded instead (see Clean).
		{Name: "json_secret_member", Pattern: `(?i)"[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|secret|token|api[_\-]?key|private[_\-]?key|access[_\-]?key|authorization|credentials?|cookie)\\*"\s*:\s*\\*"(?P<secret>[^"\n]+?)\\*"`},
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
