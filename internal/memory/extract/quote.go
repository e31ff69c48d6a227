package extract

import (
	"regexp"
	"slices"
	"strings"
)

// What Claude quotes or reports is not Claude's own conclusion: a line a
// README, a comment, an issue or a command's output holds becomes, read
// as an answer's statement, a standing rule that whoever wrote the file
// planted. These patterns find such text so that it is kept as a note
// with its source, never as a memory in force.
var (
	// docNounRe: what a reported statement's speaker is when it is a
	// document or a program, not a person of the project.
	docNounRe = regexp.MustCompile(`(?i)\b(?:readme|docs?|documentation|adrs?|design doc|runbook|playbook|handbook|style ?guide|guidelines|standard|file|files|comment|comments|docstring|issue|ticket|pr|pull request|commit(?: message)?|changelog|contributing|guide|wiki|page|site|article|post|blog|spec|rfc|manual|man page|section|chapter|appendix|header|banner|output|log|logs|error|message|script|config|template|notes?|instructions|policy|author|authors|maintainers?|manager|boss|lead|cto|ceo|client|customer|colleague|coworker|co-worker|someone|somebody|reporter|commenter|poster|op|original poster|contributors?|upstream|vendor|library|package|tool|command|stack ?overflow|answer|thread|discussion|forum|faq|gist|tweet|video|talk|tutorial|course|book|slides|newsletter|email|slack|description|license|makefile|dockerfile|the text|it|this|that|they)\b`)
	// reportVerbRe: the verbs that report what a source says.
	reportVerbRe = regexp.MustCompile(`(?i)\b(?:says?|said|states?|stated|claims?|claimed|mentions?|mentioned|notes?|noted|recommends?|recommended|suggests?|suggested|instructs?|instructed|insists?|asserts?|declares?|asks? (?:us|you|me|readers)|warns?|puts? it|points? out|pointed out|tells?|told|wrote|writes|reads|reports?|reported|explains?|explained|specifies|specified|advises?|advised|directs?|directed|answers? (?:it|this|that)(?: \w+)?|has (?:a|an|this|the following) [\w "'-]{0,30}?(?:section|line|note|rule|paragraph|comment|entry|step|checklist)s?|saying|claiming|insisting|suggesting|arguing|recommending|picks?|picked|chooses|chose|mandates?|mandated|prescribes?|prescribed|dictates?|forbids?|bans?|proposes?|proposed|decides?|decided|wants? (?:you|us) to|tells? (?:you|us) to|asks? (?:you|us) to)\b`)
	// personRe: a sentence whose speaker is Claude or the user speaks
	// for itself ("I noted", "we wrote", "you said").
	personRe = regexp.MustCompile(`(?i)^(?:i|we|you|i've|we've|i'd|we'd|i'll|we'll|let me|let's)\b`)
	// reportThatRe: the report verbs that say what a source wants or
	// answered ("asks that", "the maintainers' reply on the issue was
	// to", "their position is that"), kept out of reportVerbRe and looked
	// for only when one of reportThatWords is in the sentence: its
	// optional words cost every sentence otherwise.
	reportThatRe = regexp.MustCompile(`(?i)\b(?:(?:asks?|asked|requests?|requested|requires?|required|demands?|demanded|expects?) that|(?:instructions?|advice|recommendations?|guidance|rules?|reply|response|verdict|suggestion|answer)(?: (?:on|in|to|from) (?:the |their |our |that |this )?[\w-]+)? (?:is|are|was|were) to|(?:position|stance|view|advice|recommendation|guidance|take|answer|reply|response|verdict|suggestion) (?:is|was) that)\b`)
	// accordingRe: "According to X, …", "Per the issue: …", "Quoting X: …".
	accordingRe = regexp.MustCompile(`(?i)^(?:according to|per|as per|quoting|quoted from|from|in the words of|as (?:the )?\S+ (?:puts|says) it)\s+(.{1,80}?)(?:[,:;—–]|\s-\s)\s*`)
	// reportLabelRe: a label line that introduces what a source says
	// ("Output:", "The README says:", "From CONTRIBUTING.md:").
	reportLabelRe = regexp.MustCompile(`(?i)^(?:(?:command |tool |test |build |its |the )?output|stdout|stderr|(?:the )?(?:log|logs|error|message|response|result|excerpt|quote|snippet|(?:file )?contents?|text)|.{0,40}\b(?:readme(?:\.md)?|changelog|contributing(?:\.md)?|release notes|docs|documentation|comment|issue|commit message|wiki|man page|adr|faq|runbook|banner|header|note|notes)(?:\s+(?:above|in|of|on|at|from|for|near|under|below)\s+.{1,40})?|(?:i )?found (?:this|these|the following|that)(?: \w+)? in .{1,60}|(?:here'?s |here is )?what (?:it|the \S+|\S+) says|(?:from|in|quoting|excerpt from) .{1,60}|.{1,60}\b(?:says|said|states|reads|claims|contains|has|writes|wrote|mentions|notes|recommends|suggests|instructs|lists|warns)|.{0,40}\b(?:has|contains|includes|lists|gives|states|sets out) (?:this|these|the following|a|its|some) (?:line|lines|text|note|passage|rule|instruction|paragraph|step|guideline|convention)s?)$`)
)

// foundInRe: a label that shows what Claude found in a source ("I found
// this in `NOTES.md`", "Here is what I found in the wiki").
var foundInRe = regexp.MustCompile(`(?i)^(?:i |we )?(?:found|saw|came across|spotted)(?: this| these| the following| that)?(?: \w+)? in (.{1,60})$|^here(?:'s| is) what (?:i|we) found in (.{1,60})$`)

// reportedBy reports whether sentence s tells what a document or command
// says rather than what Claude concludes, and names that source as well
// as s names it ("README.md", "the issue", "`make lint`").
func reportedBy(s string) (string, bool) {
	t := strings.TrimSpace(cleanInline(s))
	if t == "" {
		return "", false
	}
	if m := accordingRe.FindStringSubmatch(t); m != nil && !standingLeadRe.MatchString(t) && (docNounRe.MatchString(m[1]) || looksLikeSource(m[1])) {
		return sourceName(m[1]), true
	}
	if m := theirPointRe.FindStringSubmatch(t); m != nil {
		return m[1], true // "Her second point (indexes declared in …)": the source's point, told
	}
	if m := thisIsFromRe.FindStringSubmatch(t); m != nil && (docNounRe.MatchString(m[1]) || looksLikeSource(m[1])) {
		return sourceName(m[1]), true // "This is from the vendor's setup guide: …"
	}
	if label, _, ok := strings.Cut(t, ": "); ok && len(label) <= 50 && !personRe.MatchString(label) && !colonInCode(t) {
		// "Bob's PR comment: must squash before merge.": what a source
		// says, labelled inline.
		f := strings.Fields(label)
		last := ""
		if len(f) > 0 {
			last = strings.ToLower(strings.Trim(f[len(f)-1], "`'\"*_"))
		}
		if len(f) > 1 && len(f) <= 6 && summaryWords[strings.Trim(last, ",")] {
			// "Slack thread, summarised: Priya thinks …": a source told in
			// Claude's words is still the source's.
			return sourceName(strings.TrimRight(strings.Join(f[:len(f)-1], " "), ",")), true
		}
		if theirLabelRe.MatchString(label) {
			return sourceName(label), true // "Their guidance: never store tokens …": another's words
		}
		if len(f) > 0 && len(f) <= 5 && last != "" && docNounRe.FindString(last) == last && !labelWords[strings.ToLower(f[0])] {
			// A source named by a word ("comment", "ticket"), not a file
			// ("`next.config.js`: added …" is Claude's change to it).
			return sourceName(label), true
		}
	}
	var loc []int
	for _, l := range reportVerbs(t) {
		if l[0] > 0 && strings.ContainsRune("-_/.`", rune(t[l[0]-1])) {
			continue // part of a name: "index-state", "mode_says"
		}
		if nounVerbs[strings.ToLower(t[l[0]:l[1]])] && (nounNextRe.MatchString(t[l[1]:]) || nounPrevRe.MatchString(t[:l[0]])) {
			if sourceNounLeadRe.MatchString(t[:l[0]]) && strings.Contains(t[l[1]:], ": ") {
				// "The vendor's report is clear: never upgrade past 2.3": the
				// report, a source, introduces its words.
				return sourceName(strings.TrimSpace(t[:l[1]])), true
			}
			continue // a noun: "runs from client-side state only"
		}
		loc = l
		break
	}
	if loc == nil || loc[0] > 90 {
		return "", false
	}
	who := strings.TrimRight(t[:loc[0]], " ,;:—") // "RFC 6265bis, section 4.1.2.5, puts it …"
	who = parenRe.ReplaceAllString(who, "")       // "A Stack Overflow answer (accepted, 900 votes) recommends …"
	if i := strings.LastIndexAny(who, ";,:—"); i >= 0 {
		who = who[i+1:] // the clause the verb is in: "The build works; it writes …"
	}
	who = strings.TrimSpace(connectiveRe.ReplaceAllString(strings.TrimSpace(who), "")) // "So the ADR picks …"
	if f := strings.Fields(who); len(f) > 0 && personRe.MatchString(f[len(f)-1]) {
		return "", false // "… before you tell me": the verb is a person's of the project
	}
	if f := strings.Fields(who); len(f) > 1 && strings.EqualFold(f[len(f)-1], "now") {
		return "", false // "`PriceRepo.Lookup` now reads the view": what the code does since a change
	}
	if subordinateRe.MatchString(who) {
		return "", false // "it ships Zig 0.11 while build.zig.zon declares …": Claude's sentence
	}
	if who == "" || personRe.MatchString(who) || len(strings.Fields(who)) > 12 || clauseVerbInRe.MatchString(who) {
		return "", false // "the root cause is X, which only declares …": not a report
	}
	if f := strings.Fields(who); !docNounRe.MatchString(strings.Join(f[max(0, len(f)-4):], " ")) && !looksLikeSource(who) {
		return "", false
	}
	return sourceName(who), true
}

// theirLabelRe: an inline label that is someone else's ("Their
// guidance", "Upstream's advice", "The vendor's position").
var theirLabelRe = regexp.MustCompile(`(?i)^(?:their|his|her|upstream'?s|the (?:vendor|maintainers?|authors?|upstream|reviewers?|library|framework|project|team)'?s?)\s+[\w -]{1,30}$`)

// reportThatWords are the words one of which every reportThatRe match
// holds.
var reportThatWords = []string{"ask", "request", "require", "demand", "expect", "instruction", "advice", "recommendation",
	"guidance", "rule", "reply", "response", "verdict", "suggestion", "answer", "position", "stance", "view", "take"}

// reportVerbs are where t's report verbs are (reportVerbRe's and
// reportThatRe's), in order.
func reportVerbs(t string) [][]int {
	locs := reportVerbRe.FindAllStringIndex(t, -1)
	lower := strings.ToLower(t)
	if slices.ContainsFunc(reportThatWords, func(w string) bool { return strings.Contains(lower, w) }) {
		if more := reportThatRe.FindAllStringIndex(t, -1); len(more) > 0 {
			locs = append(locs, more...)
			slices.SortFunc(locs, func(a, b []int) int { return a[0] - b[0] })
		}
	}
	return locs
}

// nounVerbs are report verbs that are nouns as often ("state", "notes"):
// a verb only before what a report goes on with.
var nounVerbs = map[string]bool{"state": true, "states": true, "note": true, "notes": true, "report": true, "reports": true}

// sourceNounLeadRe: what opens a sentence whose subject is the noun that
// follows ("The vendor's report", "Their release notes"), not a clause
// of its own ("I split the state").
var sourceNounLeadRe = regexp.MustCompile(`(?i)^(?:(?:the|their|his|her|its|this|that|a|an)\s+(?:[\w.'-]+\s+){0,3}|[\w.-]+'s\s+(?:[\w.'-]+\s+){0,2})$`)

// nounNextRe and nounPrevRe: the words around "state" or "notes" that make
// it a noun ("state only", "state machine", "the state", "release notes").
var (
	nounNextRe = regexp.MustCompile(`(?i)^\s+(?:is|are|was|were|only|machine|machines|management|store|stores|file|files|and|or|of|for|from|with|lives?|changes?|update|updates|gets?|stays?|goes)\b`)
	nounPrevRe = regexp.MustCompile(`(?i)\b(?:the|a|our|its|their|this|that|of|in|into|client-side|server-side|global|shared|local|app|session|release|ui|component|game|world)\s+$`)
)

// colonInCode reports whether the first colon of s is inside inline code
// ("Settled on pinning `index-state: 2024-05-01`"): then it ends no label.
func colonInCode(s string) bool {
	i := strings.IndexByte(s, ':')
	return i >= 0 && strings.Count(s[:i], "`")%2 == 1
}

// summaryWords end a label that tells a source in other words.
var summaryWords = map[string]bool{"summarised": true, "summarized": true, "paraphrased": true, "condensed": true, "tl;dr": true, "gist": true, "excerpt": true}

// standingLeadRe: a rule's own opening, whose "from" names no source
// ("From now on always use pnpm for the scripts in this repo").
var standingLeadRe = regexp.MustCompile(`(?i)^from (?:now|here) on\b`)

// quotedSpanRe: words in double quotes, or in single ones between
// spaces ("added 'never cache auth responses' in 2021"), long enough to
// be somebody's sentence rather than a name.
var quotedSpanRe = regexp.MustCompile(`"[^"]{20,}"|“[^”]{20,}”|‘[^’]{20,}’|(?:^|[\s(])'[^']{20,}'(?:$|[\s.,;:)!?])`)

// codeSpanRe: a span of inline code. Matched left to right, its matches
// pair the backticks, so the prose between two spans is never one.
var codeSpanRe = regexp.MustCompile("`[^`]+`")

// minQuotedCode is the shortest span of inline code read as a quoted line
// (a comment or a line of a file shown as code: "`# DECISION: …`")
// rather than a name.
const minQuotedCode = 22

// quotedSpans are the spans of s that quote somebody's words: double
// quotes, and inline code as long as a sentence.
func quotedSpans(s string) [][]int {
	spans := quotedSpanRe.FindAllStringIndex(s, -1)
	for _, loc := range codeSpanRe.FindAllStringIndex(s, -1) {
		if loc[1]-loc[0] >= minQuotedCode {
			spans = append(spans, loc)
		}
	}
	slices.SortFunc(spans, func(a, b []int) int { return a[0] - b[0] })
	return spans
}

// withoutSpans is s with the spans cut out, a space in each place.
func withoutSpans(s string, spans [][]int) string {
	var b strings.Builder
	at := 0
	for _, loc := range spans {
		if loc[0] < at {
			continue // a code span inside a quote, already cut
		}
		b.WriteString(s[at:loc[0]])
		b.WriteByte(' ')
		at = loc[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// quotesOnly reports whether what makes sentence s a memory is inside
// the words it quotes: without them it states nothing ("One paragraph …
// says: \"Decision: log the full card number …\"").
func quotesOnly(s string) bool {
	spans := quotedSpans(s)
	if len(spans) == 0 {
		return false
	}
	if _, ok := cue(strings.TrimSpace(cleanInline(s)), true); !ok {
		return false
	}
	rest := strings.TrimSpace(cleanInline(withoutSpans(s, spans)))
	_, ok := cue(rest, false)
	return !ok
}

// quoteSource names what the words before a quote say said it.
func quoteSource(s string) string {
	spans := quotedSpans(s)
	if len(spans) == 0 {
		return "a quoted text"
	}
	loc := spans[0]
	who := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[:loc[0]]), ":,—–-"))
	if who == "" {
		return "a quoted text"
	}
	if vs := reportVerbs(who); len(vs) > 0 && vs[0][0] > 0 {
		v := vs[0]
		who = who[:v[0]]
	}
	return sourceName(who)
}

// clauseVerbInRe: words before a report verb that make it a clause of
// its own, not the reporting one.
// parenRe: a parenthetical, which names no speaker.
var parenRe = regexp.MustCompile(`\s*\([^()]*\)`)

// subordinateRe: a clause joined to a main one, whose verb is not what
// the sentence says ("… while the manifest declares …").
var subordinateRe = regexp.MustCompile(`(?i)\S\s+(?:while|whereas|although|though|because|since|when|if|but|as)\s`)

// thisIsFromRe: "This is from the vendor's guide: …", "Here's a bit
// copied from X: …".
// theirPointRe: a sentence about a point someone else made ("Her second
// point …", "The reviewer's other suggestion …").
var theirPointRe = regexp.MustCompile(`(?i)^((?:her|his|their|the (?:reviewer|author|commenter|vendor)'s)) (?:first |second |third |other |last |main )?(?:point|suggestion|comment|idea|request|ask|objection)s?\b`)

var thisIsFromRe = regexp.MustCompile(`(?i)^(?:this|that|it|here)(?:'s| is)(?: a (?:bit|part|line|snippet|passage|paragraph))? (?:from|straight from|copied from|taken from|quoted from|pasted from) (.{1,80}?)\s*[:,—]`)

// connectiveRe: what links a sentence to the one before it.
var connectiveRe = regexp.MustCompile(`(?i)^(?:so|and|but|then|also|yet|still|now|here|thus|hence)\b,?\s*`)

var clauseVerbInRe = regexp.MustCompile(`(?i)\b(?:is|was|are|were|which|that|who|turned out|because|so)\b`)

// looksLikeSource: a file path, a backticked name or a URL.
func looksLikeSource(s string) bool {
	for _, tok := range strings.Fields(s) {
		tok = strings.Trim(tok, "`'\",.:;()")
		if isFile(tok) || strings.Contains(tok, "://") {
			return true
		}
	}
	return strings.Contains(s, "`")
}

// sourceName is how a memory names what it quotes: the file or command
// the words name, else the words themselves, short.
func sourceName(who string) string {
	files, _ := names(who)
	if len(files) > 0 {
		return files[0]
	}
	if m := tickRe.FindStringSubmatch(who); m != nil {
		return m[1]
	}
	w := strings.TrimSpace(strings.Trim(who, ",:;—– "))
	w = strings.TrimPrefix(strings.TrimPrefix(w, "The "), "the ")
	return clip(w, 60)
}

// reportLabel reports whether a label line introduces quoted text, and
// names its source.
func reportLabel(label string) (string, bool) {
	l := strings.TrimSpace(strings.Trim(label, "*_ "))
	if m := foundInRe.FindStringSubmatch(l); m != nil {
		return sourceName(m[1] + m[2]), true // "I found this in NOTES.md:"
	}
	if personRe.MatchString(l) {
		return "", false
	}
	if !reportLabelRe.MatchString(l) {
		// A label that is a file or a command alone ("setup.sh:",
		// "`deploy.yml`:") introduces what it holds.
		if len(strings.Fields(l)) <= 3 && looksLikeSource(l) {
			return sourceName(l), true
		}
		return "", false
	}
	if src, ok := reportedBy(l + " it"); ok {
		return src, true
	}
	if m := accordingRe.FindStringSubmatch(l + ","); m != nil {
		return sourceName(m[1]), true
	}
	return sourceName(l), true
}

// Unquoted is text without what it quotes: block quotes, fenced code,
// and what follows a report ("The README says: …"), as units joined by
// blank lines. A later answer's "done" read from a quote completes
// nothing.
func Unquoted(text string) string {
	var b strings.Builder
	for _, u := range units(bound(text)) {
		if u.quoted {
			continue
		}
		if u.checked {
			b.WriteString("[x] ")
		}
		b.WriteString(u.text)
		b.WriteString("\n\n")
	}
	return b.String()
}

// QuotedIn reports whether statement s is a copy of some text in texts
// (what the turn's tools returned, the files it read): its words, markdown
// and case aside, appear there in a run of at least minCopied bytes.
// The index of the text is returned.
func QuotedIn(s string, texts []string) (int, bool) {
	var cores []string
	for _, c := range []string{s, afterColon(s)} {
		if core := foldText(cleanInline(c)); len(core) >= minCopied {
			cores = append(cores, core)
		}
	}
	if len(cores) == 0 {
		return -1, false
	}
	for i, t := range texts {
		if t == "" {
			continue
		}
		ft := foldText(t)
		for _, core := range cores {
			if strings.Contains(ft, core) {
				return i, true
			}
		}
	}
	return -1, false
}

// afterColon is what follows a statement's first ": " (its attribution
// or label cut: "It also has this line: From now on …"), "" when none.
func afterColon(s string) string {
	if i := strings.Index(s, ": "); i > 0 {
		return s[i+2:]
	}
	return ""
}

// minCopied is the shortest statement a copy is recognised by: shorter
// ones ("use pnpm") are said by anyone.
const minCopied = 24

// foldText lowercases s and keeps its letters and digits, one space
// between words, dropping markdown and punctuation.
func foldText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 0x80 && r != '’' && r != '“' && r != '”' {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// Quote is what an answer quotes or reports, and from what.
type Quote struct {
	From, Text string
}

// Quotes lists what answer quotes or reports: block quotes, what follows
// a report, reported sentences. A statement stated by someone else than
// the extractor (an LLM summarizer) that copies one is that quote.
func Quotes(answer string) []Quote {
	var out []Quote
	for _, u := range units(bound(answer)) {
		if u.quoted {
			out = append(out, Quote{From: u.from, Text: u.raw})
		}
	}
	return out
}
