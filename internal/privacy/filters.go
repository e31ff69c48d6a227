package privacy

// filter is what parsing a pattern tells the prefilter and the anchored
// scan: the literals one of which every match contains, and those one of
// which every match starts with.
type filter struct {
	need     []string
	prefix   []string
	boundary bool
}

// builtinFilters are the filters of the built-in patterns, written out so
// that the hook, a new process for every event, does not parse them all
// (about 0.1 ms) before its first Redact. TestBuiltinFilters checks them
// against what parsing gives, and prints this table when they differ. A
// pattern missing here is parsed as any user's rule is.
var builtinFilters = map[string]filter{
	// pem_private_key
	"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\\s\\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[\\s\\S]*)": {
		need:   []string{"private key-----"},
		prefix: []string{"-----begin"},
	},
	// aws_access_key
	"\\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\\b": {
		need:     []string{"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"},
		prefix:   []string{"akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa"},
		boundary: true,
	},
	// aws_secret_key
	"(?i)aws_?secret_?access_?key[\"']?\\s*[:=]\\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})": {
		need:   []string{"aws_secret_access_key", "aws_secret_accesskey", "aws_secretaccess_key", "aws_secretaccesskey", "awssecret_access_key", "awssecret_accesskey", "awssecretaccess_key", "awssecretaccesskey"},
		prefix: []string{"aws_secret_access_key", "aws_secret_accesskey", "aws_secretaccess_key", "aws_secretaccesskey", "awssecret_access_key", "awssecret_accesskey", "awssecretaccess_key", "awssecretaccesskey"},
	},
	// github_token
	"\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\\b": {
		need:     []string{"ho_", "hp_", "hr_", "hs_", "hu_", "ithub_pat_"},
		prefix:   []string{"g"},
		boundary: true,
	},
	// anthropic_key
	"\\bsk-ant-[A-Za-z0-9_\\-]{20,}": {
		need:     []string{"sk-ant-"},
		prefix:   []string{"sk-ant-"},
		boundary: true,
	},
	// openai_key
	"\\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\\-]{20,}": {
		need:     []string{"sk-"},
		prefix:   []string{"sk-"},
		boundary: true,
	},
	// stripe_key
	"\\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}": {
		need:     []string{"rk_live_", "rk_test_", "sk_live_", "sk_test_"},
		prefix:   []string{"rk_live_", "rk_test_", "sk_live_", "sk_test_"},
		boundary: true,
	},
	// google_api_key
	"\\bAIza[0-9A-Za-z_\\-]{35}": {
		need:     []string{"aiza"},
		prefix:   []string{"aiza"},
		boundary: true,
	},
	// slack_token
	"\\bxox[abposr]-[A-Za-z0-9\\-]{10,}": {
		need:     []string{"xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-"},
		prefix:   []string{"xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-"},
		boundary: true,
	},
	// slack_webhook
	"\\bhooks\\.slack\\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_\\-]+/[A-Za-z0-9_\\-]+/[A-Za-z0-9_\\-/]{8,})": {
		need:     []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"},
		prefix:   []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/"},
		boundary: true,
	},
	// npm_token
	"\\bnpm_[A-Za-z0-9]{36}\\b": {
		need:     []string{"npm_"},
		prefix:   []string{"npm_"},
		boundary: true,
	},
	// huggingface_token
	"\\bhf_[A-Za-z]{34,}\\b": {
		need:     []string{"hf_"},
		prefix:   []string{"hf_"},
		boundary: true,
	},
	// mneme_token
	"\\bmneme_pt_[0-9a-f]{64}\\b": {
		need:     []string{"mneme_pt_"},
		prefix:   []string{"mneme_pt_"},
		boundary: true,
	},
	// sentry_dsn
	"://(?P<secret>[0-9a-f]{32}(?::[^\\s@/'\"]*)?)@[A-Za-z0-9.\\-]+(?::\\d+)?/\\d+\\b": {
		need:   []string{"://"},
		prefix: []string{"://"},
	},
	// jwt
	"\\beyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\.[A-Za-z0-9_\\-]{8,}": {
		need:     []string{".eyj"},
		prefix:   []string{"eyj"},
		boundary: true,
	},
	// bearer_token
	"(?i)\\bbearer\\s+(?P<secret>[A-Za-z0-9_\\-\\.=:/+~]{8,})": {
		need:     []string{"bearer"},
		prefix:   []string{"bearer"},
		boundary: true,
	},
	// url_credentials
	"://[^\\s:/@'\"\\[\\]]*:(?P<secret>[^\\s/'\"]+)@": {
		need:   []string{"://"},
		prefix: []string{"://"},
	},
	// env_secret
	"[A-Z0-9]_(?:PASS|PASSWORD|PASSWD|PWD|TOKEN|SECRET|KEY)=(?:\"(?P<secret>[^\"\\n]{4,})\"|'(?P<secret>[^'\\n]{4,})'|(?P<secret>[^\\s\"'`;&|<>]{4,}))": {
		need: []string{"_pass=", "_password=", "_passwd=", "_pwd=", "_token=", "_secret=", "_key="},
	},
	// secret_assignment
	"(?i)(?:password|passwd|secret|api[_\\-]?key|private[_\\-]?key|access[_\\-]?key|auth[_\\-]?token|access[_\\-]?token|refresh[_\\-]?token|api[_\\-]?token|client[_\\-]?secret)[\"']?\\s*[:=]\\s*(?:\"(?P<secret>[^\"\\n]{4,})\"|'(?P<secret>[^'\\n]{4,})'|[\"']?(?P<secret>[^\\s\"',;]{4,}))": {
		need:   []string{"password", "passwd", "secret", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "auth-token", "auth_token", "authtoken", "access-token", "access_token", "accesstoken", "refresh-token", "refresh_token", "refreshtoken", "api-token", "api_token", "apitoken"},
		prefix: []string{"password", "passwd", "secret", "api-key", "api_key", "apikey", "private-key", "private_key", "privatekey", "access-key", "access_key", "accesskey", "auth-token", "auth_token", "authtoken", "access-token", "access_token", "accesstoken", "refresh-token", "refresh_token", "refreshtoken", "api-token", "api_token", "apitoken", "client-secret", "client_secret", "clientsecret"},
	},
}
