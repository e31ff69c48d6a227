package edge

import "github.com/mneme-dev/mneme/internal/privacy"

// MaxTagsPerField bounds how many private-style tags are removed from one
// field (see privacy.MaxTagsPerField).
const MaxTagsPerField = privacy.MaxTagsPerField

// StripTags removes every <private>, <mneme-context>, <claude-mem-context>
// and <system-reminder> block from s, content included (see
// privacy.StripTags).
func StripTags(s string) string { return privacy.StripTags(s) }

// StripTagsJSON applies StripTags to every string inside a JSON document
// (see privacy.StripTagsJSON).
func StripTagsJSON(raw []byte) []byte { return privacy.StripTagsJSON(raw) }
