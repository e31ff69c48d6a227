package privacy

// filter is what parsing a pattern tells the prefilter and the anchored
// scan: the literals one of which every match contains, and those one of
// which every match starts with.
type filter struct {
	pattern string
	need    []string
	prefix  []string
	lead    int  // see compiledRule.lead
	fold    bool // the pattern folds case somewhere
}

// builtinFilter is the filter of a built-in pattern, if it is one.
func builtinFilter(pattern string) (filter, bool) {
	for _, f := range builtinFilters {
		if f.pattern == pattern {
			return f, true
		}
	}
	return filter{}, false
}

// builtinFilters are the filters of the built-in patterns, written out so
// that the hook, a new process for every event, does not parse them all
// (about 0.1 ms) before its first Redact. TestBuiltinFilters checks them
// against what parsing gives, and prints this table when they differ. A
// pattern missing here is parsed as any user's rule is. A slice, not a
// map: the linker lays a slice out, where a map literal is built by code
// at every start.
var builtinFilters = []filter{
	// pem_private_key
	{
		pattern: "-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]*)",
		need:    []string{"private key block-----", "private key-----"},
		prefix:  []string{"-----begin"},
	},
	// aws_access_key
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})(?:[^0-9A-Za-z]|$)",
		need:    []string{"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"},
		prefix:  []string{"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"},
		lead:    leadAlnum,
	},
	// aws_secret_key
	{
		pattern: "(?i)aws_?secret_?access_?key\\\\*[\"']?(?:\\s*[:=]\\s*|[ \\t]+)\\\\*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})",
		need:    []string{"aws_secret_access_key", "aws_secret_accesskey", "aws_secretaccess_key", "aws_secretaccesskey", "awssecret_access_key", "awssecret_accesskey", "awssecretaccess_key", "awssecretaccesskey"},
		prefix:  []string{"aws_secret_access_key", "aws_secret_accesskey", "aws_secretaccess_key", "aws_secretaccesskey", "awssecret_access_key", "awssecret_accesskey", "awssecretaccess_key", "awssecretaccesskey"},
		fold:    true,
	},
	// github_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})(?:[^0-9A-Za-z]|$)",
		need:    []string{"ho_", "hp_", "hr_", "hs_", "hu_", "ithub_pat_"},
		prefix:  []string{"g"},
		lead:    leadAlnum,
	},
	// gitlab_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>gl(?:pat|dt|rt|ptt|oas)-[0-9A-Za-z_\\-]{20,})",
		need:    []string{"glpat-", "gldt-", "glrt-", "glptt-", "gloas-"},
		prefix:  []string{"glpat-", "gldt-", "glrt-", "glptt-", "gloas-"},
		lead:    leadAlnum,
	},
	// anthropic_key
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>sk-ant-[A-Za-z0-9_\\-]{20,})",
		need:    []string{"sk-ant-"},
		prefix:  []string{"sk-ant-"},
		lead:    leadAlnum,
	},
	// openai_key
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\\-]{20,})",
		need:    []string{"sk-"},
		prefix:  []string{"sk-"},
		lead:    leadAlnum,
	},
	// stripe_key
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>[rs]k_(?:live|test)_[0-9A-Za-z]{16,})",
		need:    []string{"rk_live_", "rk_test_", "sk_live_", "sk_test_"},
		prefix:  []string{"rk_live_", "rk_test_", "sk_live_", "sk_test_"},
		lead:    leadAlnum,
	},
	// google_api_key
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>AIza[0-9A-Za-z_\\-]{35})",
		need:    []string{"aiza"},
		prefix:  []string{"aiza"},
		lead:    leadAlnum,
	},
	// slack_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>(?:xox[abposr]|xapp)-[A-Za-z0-9\\-]{10,})",
		need:    []string{"xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"},
		prefix:  []string{"xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"},
		lead:    leadAlnum,
	},
	// slack_webhook
	{
		pattern: "\\bhooks\\.slack\\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_\\-]+/[A-Za-z0-9_\\-]+/[A-Za-z0-9_\\-/]{8,})",
		need:    []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"},
		prefix:  []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"},
		lead:    leadWord,
	},
	// npm_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>npm_[A-Za-z0-9]{36})(?:[^0-9A-Za-z]|$)",
		need:    []string{"npm_"},
		prefix:  []string{"npm_"},
		lead:    leadAlnum,
	},
	// huggingface_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>hf_[A-Za-z]{34,})(?:[^0-9A-Za-z]|$)",
		need:    []string{"hf_"},
		prefix:  []string{"hf_"},
		lead:    leadAlnum,
	},
	// pypi_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>pypi-AgE[A-Za-z0-9_\\-]{40,})",
		need:    []string{"pypi-age"},
		prefix:  []string{"pypi-age"},
		lead:    leadAlnum,
	},
	// vault_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>hv[sbr]\\.[A-Za-z0-9_\\-]{24,})",
		need:    []string{"hvb.", "hvr.", "hvs."},
		prefix:  []string{"hvb.", "hvr.", "hvs."},
		lead:    leadAlnum,
	},
	// mneme_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>mneme_pt_[0-9a-f]{64})(?:[^0-9A-Za-z]|$)",
		need:    []string{"mneme_pt_"},
		prefix:  []string{"mneme_pt_"},
		lead:    leadAlnum,
	},
	// sentry_dsn
	{
		pattern: "://(?P<secret>[0-9a-f]{32}(?::[^\\s@/'\"]*)?)@[A-Za-z0-9.\\-]+(?::\\d+)?/\\d+\\b",
		need:    []string{"://"},
		prefix:  []string{"://"},
	},
	// jwt
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>eyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\.[A-Za-z0-9_\\-]{8,})",
		need:    []string{".eyj"},
		prefix:  []string{"eyj"},
		lead:    leadAlnum,
	},
	// bearer_token
	{
		pattern: "(?i)\\bbearer\\s+(?P<secret>[A-Za-z0-9_\\-\\.=:/+~]{8,})",
		need:    []string{"bearer"},
		prefix:  []string{"bearer"},
		lead:    leadWord,
		fold:    true,
	},
	// basic_auth
	{
		pattern: "(?i)authorization\\\\*[\"']?\\s*[:=]\\s*\\\\*[\"']?\\s*basic\\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})",
		need:    []string{"authorization"},
		prefix:  []string{"authorization"},
		fold:    true,
	},
	// azure_key
	{
		pattern: "(?i)(?:^|[^0-9A-Za-z])(?:AccountKey|SharedAccessKey)\\s*=\\s*(?P<secret>[A-Za-z0-9+/]{16,}={0,2})",
		need:    []string{"accountkey", "sharedaccesskey"},
		fold:    true,
	},
	// url_credentials
	{
		pattern: "://[^\\s:/@'\"\\[\\]]*:(?P<secret>[^\\s/'\"]+)@",
		need:    []string{"://"},
		prefix:  []string{"://"},
	},
	// curl_user_password
	{
		pattern: "\\bcurl\\b[^\\n|;&]*?\\s(?:-u|--user)(?:[ \\t]*|=)(?:'[^':\\n]*:(?P<secret>[^'\\n]+)'|\"[^\":\\n]*:(?P<secret>[^\"\\n]+)\"|[^\\s:'\"]*:(?P<secret>[^\\s'\"\\\\]+))",
		need:    []string{"curl"},
		prefix:  []string{"curl"},
		lead:    leadWord,
	},
	// mysql_password
	{
		pattern: "\\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\\b[^\\n|;&]*?\\s-p(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))",
		need:    []string{"mysql", "mariadb"},
		prefix:  []string{"mysql", "mariadb"},
		lead:    leadWord,
	},
	// sshpass_password
	{
		pattern: "\\bsshpass\\s+(?:-[^p\\s]\\S*\\s+)*-p[ \\t]*(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))",
		need:    []string{"sshpass"},
		prefix:  []string{"sshpass"},
		lead:    leadWord,
	},
	// login_password
	{
		pattern: "\\b(?:(?:docker|podman|nerdctl|buildah|skopeo|oras|helm registry) login|twine upload)\\b[^\\n|;&]*?\\s-p[ \\t]+(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))",
		need:    []string{"docker login", "podman login", "nerdctl login", "buildah login", "skopeo login", "oras login", "helm registry login", "twine upload"},
		prefix:  []string{"docker login", "podman login", "nerdctl login", "buildah login", "skopeo login", "oras login", "helm registry login", "twine upload"},
		lead:    leadWord,
	},
	// redis_password
	{
		pattern: "\\bredis-cli\\b[^\\n|;&]*?\\s(?:(?:-a|--pass)[ \\t]+(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))|AUTH[ \\t]+(?:[^\\s'\"]+[ \\t]+)?(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))[ \\t]*(?:$|[\\n|;&]))",
		need:    []string{"redis-cli"},
		prefix:  []string{"redis-cli"},
		lead:    leadWord,
	},
	// ssh_keygen_passphrase
	{
		pattern: "\\bssh-keygen\\b[^\\n|;&]*?\\s-[NP][ \\t]+(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))",
		need:    []string{"ssh-keygen"},
		prefix:  []string{"ssh-keygen"},
		lead:    leadWord,
	},
	// openssl_password
	{
		pattern: "-pass(?:in|out|word)?[ \\t]+pass:(?P<secret>[^\\s'\"\\\\]+)|\\bopenssl\\s+enc\\b[^\\n|;&]*?\\s-k[ \\t]+(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))",
		need:    []string{"-pass", "openssl"},
	},
	// htpasswd_password
	{
		pattern: "\\bhtpasswd\\s+(?:-[A-Za-z]*n[A-Za-z]*[ \\t]+\\S+|-[A-Za-z]*b[A-Za-z]*[ \\t]+\\S+[ \\t]+\\S+)[ \\t]+(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\-][^\\s'\"\\\\]*))",
		need:    []string{"htpasswd"},
		prefix:  []string{"htpasswd"},
		lead:    leadWord,
	},
	// password_hash
	{
		pattern: ":(?:\\$(?:apr1|2[abxy]|[156]|y|gy|7)\\$(?P<secret>[./A-Za-z0-9$]{8,})|\\{SHA\\}(?P<secret>[A-Za-z0-9+/]{20,}={0,2}))",
		need:    []string{"$apr1$", "$2a$", "$2b$", "$2x$", "$2y$", "$1$", "$5$", "$6$", "$y$", "$gy$", "$7$", "{sha}"},
		prefix:  []string{":"},
	},
	// netrc_password
	{
		pattern: "\\b(?:machine|default)\\s+(?:\\S+\\s+)?(?:(?:login|account)\\s+\\S+\\s+)+password\\s+(?P<secret>\\S+)",
		need:    []string{"password"},
		prefix:  []string{"machine", "default"},
		lead:    leadWord,
	},
	// cli_secret_flag
	{
		pattern: "--(?:[a-z0-9]+-)*(?:token|password|passwd|passphrase|secret|api-?key|access-?key|auth-?token)(?:[ \\t]+|=)(?:'(?P<secret>[^'\\n]+)'|\"(?P<secret>[^\"\\n]+)\"|(?P<secret>[^\\s'\"$<>|&;\\\\:-](?:[^\\s'\"\\\\:]|:+[^\\s'\"\\\\:/])*:*)(?:[\\s'\"\\\\]|$))",
		need:    []string{"token", "password", "passwd", "passphrase", "secret", "api-key", "apikey", "access-key", "accesskey"},
		prefix:  []string{"--"},
	},
	// xml_secret
	{
		pattern: "(?i)<(?:add\\s+key=\"[^\"\\n]*(?:password|token|secret|apikey)\"\\s+value=\"(?P<secret>[^\"\\n]+)\"|(?:[A-Za-z0-9_.\\-]*:)?[A-Za-z0-9_.\\-]*(?:password|passwd|passphrase|secret|token|api-?key|apikey|access-?key|private-?key)>(?P<secret>[^<\\n]+)</)",
		need:    []string{"value=\"", "password>", "passwd>", "passphrase>", "secret>", "token>", "api-key>", "apikey>", "access-key>", "accesskey>", "private-key>", "privatekey>"},
		prefix:  []string{"<"},
		fold:    true,
	},
	// docker_auth
	{
		pattern: "\"auth\\\\*\"\\s*:\\s*\\\\*\"(?P<secret>[A-Za-z0-9+/]{12,}={0,2})\\\\*\"",
		need:    []string{"\"auth"},
		prefix:  []string{"\"auth"},
	},
	// kube_client_key
	{
		pattern: "client-key-data\\\\*[\"']?\\s*:\\s*\\\\*[\"']?(?P<secret>[A-Za-z0-9+/]{16,}={0,2})",
		need:    []string{"client-key-data"},
		prefix:  []string{"client-key-data"},
	},
	// npmrc_auth
	{
		pattern: "\\b_auth[ \\t]*=[ \\t]*(?P<secret>[^\\s'\"\\\\]{8,})",
		need:    []string{"_auth"},
		prefix:  []string{"_auth"},
		lead:    leadWord,
	},
	// cookie_header
	{
		pattern: "(?i)\\bcookie:[ \\t]*(?P<secret>[^\\s;'\"=]+=[^\\n'\"]+)",
		need:    []string{"cookie:"},
		prefix:  []string{"cookie:"},
		lead:    leadWord,
		fold:    true,
	},
	// conn_string_password
	{
		pattern: "(?i)(?:[;?&]\\s*(?:password|pwd)\\s*=\\s*(?:\\{(?P<secret>[^}\\n]+)\\}|(?P<secret>[^;&\"'\\n]*[^;&\"'\\s]))|(?:password|pwd)\\s*=\\s*(?P<secret>[^;&\"'\\n]*[^;&\"'\\s])\\s*;)",
		need:    []string{"password", "pwd"},
		fold:    true,
	},
	// env_secret
	{
		pattern: "[A-Z0-9]_(?:PASS|PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY|KEY_BASE)=\\\\*(?:\"(?P<secret>[^\"\\n]{4,}?)\\\\*\"|'(?P<secret>[^'\\n]{4,}?)\\\\*'|(?P<secret>[^\\s\"'`;&|<>\\\\][^\\s\"'`;&|<>]{3,}))",
		need:    []string{"_pass=", "_password=", "_passwd=", "_pwd=", "_token=", "_secret=", "_key=", "_key_base="},
	},
	// env_bare_secret
	{
		pattern: "\\b(?:TOKEN|SECRET|PASSWD)=\\\\*(?:\"(?P<secret>[^\"\\n]{4,}?)\\\\*\"|'(?P<secret>[^'\\n]{4,}?)\\\\*'|(?P<secret>[^\\s\"'`;&|<>\\\\][^\\s\"'`;&|<>]{3,}))",
		need:    []string{"token=", "secret=", "passwd="},
		prefix:  []string{"token=", "secret=", "passwd="},
		lead:    leadWord,
	},
	// secret_assignment
	{
		pattern: "(?i)(?:password|passwd|passphrase|secret|api[_\\-]?key|private[_\\-]?key|access[_\\-]?key|auth[_\\-]?token|access[_\\-]?token|refresh[_\\-]?token|api[_\\-]?token|client[_\\-]?secret)\\\\*[\"']?(?:[ \\t]+(?::=|[:=])[ \\t]*|(?::=|:)[ \\t]*|=)(?:\\\\*\"(?P<secret>[^\"\\n]{4,}?)\\\\*\"|\\\\*'(?P<secret>[^'\\n]{4,}?)\\\\*'|\\\\*[\"']?(?P<secret>(?:[^\\s\"',;\\\\$]|\\$[^\\s\"',;{])[^\\s\"',;]{2,}))",
		need:    []string{"password", "passwd", "passphrase", "secret", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "auth-token", "auth_token", "authtoken", "access-token", "access_token", "accesstoken", "refresh-token", "refresh_token", "refreshtoken", "api-token", "api_token", "apitoken"},
		prefix:  []string{"password", "passwd", "passphrase", "secret", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "auth-token", "auth_token", "authtoken", "access-token", "access_token", "accesstoken", "refresh-token", "refresh_token", "refreshtoken", "api-token", "api_token", "apitoken", "client-secret", "client_secret", "clientsecret"},
		fold:    true,
	},
	// yaml_secret
	{
		pattern: "(?im)^[ \\t]*(?:- )?[\"']?[A-Za-z0-9_\\-.]*(?:token|password|passwd|passphrase|secret|api_?key|access_?key|private_?key)[\"']?[ \\t]*:[ \\t]+(?:\"(?P<secret>[^\"\\n]{4,})\"|'(?P<secret>[^'\\n]{4,})'|(?P<secret>[^\\s\"'#|>&*!{\\[][^\\n#]{3,}?))[ \\t]*(?:#.*)?$",
		need:    []string{"token", "password", "passwd", "passphrase", "secret", "api_key", "apikey", "access_key", "accesskey", "private_key", "privatekey"},
		fold:    true,
	},
	// json_secret_member
	{
		pattern: "(?i)\"[A-Za-z0-9_.\\-]*(?:password|passwd|passphrase|secret|token|api[_\\-]?key|private[_\\-]?key|access[_\\-]?key|authorization|credentials?|cookie)\\\\*\"\\s*:\\s*\\\\*\"(?P<secret>[^\"\\n]+?)\\\\*\"",
		need:    []string{"password", "passwd", "passphrase", "secret", "token", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "authorization", "credential", "cookie"},
		prefix:  []string{"\""},
		fold:    true,
	},
}
