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
		pattern: "(?i)aws_?secret_?access_?key\\\\*[\"']?\\s*[:=]\\s*\\\\*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})",
		need:    []string{"aws_secret_access_key", "aws_secret_accesskey", "aws_secretaccess_key", "aws_secretaccesskey", "awssecret_access_key", "awssecret_accesskey", "awssecretaccess_key", "awssecretaccesskey"},
		prefix:  []string{"aws_secret_access_key", "aws_secret_accesskey", "aws_secretaccess_key", "aws_secretaccesskey", "awssecret_access_key", "awssecret_accesskey", "awssecretaccess_key", "awssecretaccesskey"},
		fold:    true,
	},
	// github_token
	{
		pattern: "(?:^|[^0-9A-Za-z])(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?:[^0-9A-Za-z]|$)",
		need:    []string{"ho_", "hp_", "hr_", "hs_", "hu_", "ithub_pat_"},
		prefix:  []string{"g"},
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
	// secret_assignment
	{
		pattern: "(?i)(?:password|passwd|secret|api[_\\-]?key|private[_\\-]?key|access[_\\-]?key|auth[_\\-]?token|access[_\\-]?token|refresh[_\\-]?token|api[_\\-]?token|client[_\\-]?secret)\\\\*[\"']?\\s*(?::=|[:=])\\s*(?:\\\\*\"(?P<secret>[^\"\\n]{4,}?)\\\\*\"|\\\\*'(?P<secret>[^'\\n]{4,}?)\\\\*'|\\\\*[\"']?(?P<secret>[^\\s\"',;\\\\][^\\s\"',;]{3,}))",
		need:    []string{"password", "passwd", "secret", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "auth-token", "auth_token", "authtoken", "access-token", "access_token", "accesstoken", "refresh-token", "refresh_token", "refreshtoken", "api-token", "api_token", "apitoken"},
		prefix:  []string{"password", "passwd", "secret", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "auth-token", "auth_token", "authtoken", "access-token", "access_token", "accesstoken", "refresh-token", "refresh_token", "refreshtoken", "api-token", "api_token", "apitoken", "client-secret", "client_secret", "clientsecret"},
		fold:    true,
	},
	// yaml_secret
	{
		pattern: "(?im)^[ \\t]*(?:- )?[\"']?[A-Za-z0-9_\\-.]*(?:token|password|passwd|secret|api_?key|access_?key|private_?key)[\"']?[ \\t]*:[ \\t]+(?:\"(?P<secret>[^\"\\n]{4,})\"|'(?P<secret>[^'\\n]{4,})'|(?P<secret>[^\\s\"'#|>&*!{\\[][^\\n#]{3,}?))[ \\t]*(?:#.*)?$",
		need:    []string{"token", "password", "passwd", "secret", "api_key", "apikey", "access_key", "accesskey", "private_key", "privatekey"},
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
