package extract

import (
	"regexp"
	"strings"
)

// section is what the label above a block says it holds.
type section int

const (
	secNone       section = iota // no label, or one that says nothing (Summary, Notes)
	secDecision                  // Key decisions:, ## Decisions, What I changed and why:
	secConstraint                // Constraints:, Rules:, Conventions:
	secCause                     // Root cause:, Cause:, What was wrong:
	secTodo                      // Next steps:, TODO:, Open items:, Known issues:
	secChange                    // Changes:, What I did: (a list of edits; a reason makes one a decision)
	secFix                       // Fix: (what was done about a cause; only explicit choices count)
	secSkip                      // Tests:, How to try it:, Files changed: (nothing to remember)
	secUnknown                   // a label outside the vocabulary ("How the auth flow works:")
)

// unit is one statement candidate: a list item, or one sentence of prose.
type unit struct {
	text      string
	sec       section
	item      bool   // a list item
	byDefault bool   // the label right above it (or inline) sets its kind
	checked   bool   // a done checkbox item ("- [x] …")
	nested    bool   // an item indented under another ("   - Pros: fast")
	para      int    // which block (paragraph or item) it came from
	label     string // the heading or label line it sits under, if any
	list      int    // which list an item belongs to (items of one list share it)
	// quoted: the unit is what a document or command says (a block
	// quote, what follows "The README says:", a reported sentence), from
	// names it.
	quoted bool
	from   string
	raw    string // the unit as written, for a memory's evidence
}

// ownClauseRe: where Claude's own clause starts in a sentence that
// reports a source ("…, so I store them …", "…; I pinned it to 3.8.2
// because …").
var ownClauseRe = regexp.MustCompile(`(?:[,;]|\s[—–])\s*(?:so |and so |which is why |that's why |hence |and )?I (?:(?:\w+) ){0,1}?(?:went|chose|picked|store|stored|set|pinned|kept|added|switched|moved|used|made|changed|wrote|configured|settled|opted|capped|raised|lowered|disabled|enabled)\b`)

// withinLead reports whether at is inside or right at the end of the
// "According to X," that opens s: the source's words follow it, Claude's
// own clause never does.
func withinLead(s string, at int) bool {
	m := accordingRe.FindStringIndex(strings.TrimSpace(s))
	return m != nil && at <= m[1]+1
}

// soLeadRe: Claude's clause that follows from what the source says.
var soLeadRe = regexp.MustCompile(`(?i)^(?:so|and so|which is why|that's why|hence)\b`)

// ownLeadRe: the connective before Claude's own clause.
var ownLeadRe = regexp.MustCompile(`(?i)^(?:so|and so|which is why|that's why|hence|and),?\s+`)

// ownNarrationRe: a sentence in which Claude tells what it did or chose
// ("I went with goreleaser …", "So I added …"): its own words, even right
// after a quote.
var ownNarrationRe = regexp.MustCompile(`^(?:so |then |and |instead,? )?I (?:went|chose|picked|added|switched|moved|replaced|kept|left|set|wrote|made|changed|decided|opted|used|fixed|removed|updated|configured|installed|settled)\b`)

var (
	headingRe = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	// itemRe: a list item; group 2 its text, or group 3 the whole of an
	// item lettered "A)" (the letter stays: a pick may name it).
	itemRe   = regexp.MustCompile(`^\s*(?:(?:[-*+•]|\d{1,3}[.)]|(?:i{1,3}|iv|vi{0,3})[.)])\s+(?:\[([ xX])\]\s+)?(.*)|((?:\*\*)?(?:[A-H](?:\)|\s+[—–])|[a-h]\)|\([a-hA-H]\))\s+.*))$`)
	quoteRe  = regexp.MustCompile(`^\s{0,3}(?:>\s?)+`)
	fenceRe  = regexp.MustCompile("^\\s*(```|~~~)")
	indentRe = regexp.MustCompile(`^(?: {4}|\t)`)
	// htmlCommentRe: an HTML comment, across lines.
	htmlCommentRe = regexp.MustCompile(`(?s)<!--.*?-->`)
	labelRe       = regexp.MustCompile(`^\s*(?:\*\*|__)?([A-Za-z][^.!?:` + "`" + `]*?)(?::\s*(?:\*\*|__)?|(?:\*\*|__):?)\s*$`)
	inlineRe      = regexp.MustCompile(`^(?:\*\*|__)?([A-Za-z][A-Za-z '’/()-]*?)(?::\*\*|\*\*:|:__|__:|:|\*\*\s*[—–-])\s+(\S.*)$`)
	boldOnlyRe    = regexp.MustCompile(`^\s*(?:\*\*|__)([^*_]{1,48})(?:\*\*|__)\s*$`)
	// The vocabulary of labels. Matched against the whole label, lowercased.
	secTodoRe       = regexp.MustCompile(`^(?:next( steps?)?|todos?|to ?do|follow[- ]?ups?|open (?:items|issues|points|questions|work)|still open|remaining(?: work| items| issues)?|known (?:issues|limitations|gaps)|limitations|not (?:yet )?done|left (?:to do|for later|open)|what'?s left|outstanding|pending|future work|later)$`)
	secCauseRe      = regexp.MustCompile(`^(?:(?:the )?(?:root |underlying |real |actual |main )?cause|(?:the )?(?:underlying|real|actual|main) (?:issue|problem|bug)|what was wrong|what went wrong|(?:the )?(?:problem|issue|bug)|diagnosis|why it (?:failed|broke|happened))$`)
	secDecisionRe   = regexp.MustCompile(`^(?:(?:key |main |design |technical |important )?decisions?(?: made)?|design (?:choices|notes)|choices|approach|trade-?offs|rationale|reasoning|why|(?:what i )?changed? (?:and|&) why|what i changed and why|changes and why)$`)
	secConstraintRe = regexp.MustCompile(`^(?:constraints?|rules?|conventions?|requirements|house rules|ground rules)$`)
	secChangeRe     = regexp.MustCompile(`^(?:(?:key |main )?changes(?: made)?|what (?:i |we )?(?:changed|did)(?: instead| differently| here| about it)?|what changed|here'?s what i (?:changed|did)(?: instead)?|(?:the )?(?:plan|approach) i took|instead|summary of changes|modifications|updates)$`)
	secFixRe        = regexp.MustCompile(`^(?:(?:the )?fix(?:es)?|solution|resolution|what i fixed)$`)
	secSkipRe       = regexp.MustCompile(`^(?:tests?|testing|verification|verified|how to (?:test|try|run)(?: it)?|to (?:try|test|run) it(?: locally)?|usage|(?:changed )?files(?: changed| touched)?|output|results?|run it with|commands?|example)$`)
	secNoneRe       = regexp.MustCompile(`^(?:summary|notes?|details|context|heads up|important|warning|caveats?|nb|ps|fyi|update|status|done|result)$`)
)

// commentaryRe: a paragraph that opens in Claude's own voice after a
// quote: a person speaking, or a connective that refers back to it.
var commentaryRe = regexp.MustCompile(`(?i)^(?:i|we|i've|we've|i'd|we'd|i'll|we'll|let me|let's|so|that|this|which means|in other words|in practice|but)\b`)

// sectionOf classifies a label; known says whether it is one of the
// vocabulary's labels (an unknown one, like "Pagination", is kept as text).
func sectionOf(label string) (sec section, known bool) {
	l := strings.ToLower(strings.TrimSpace(strings.Trim(label, "*_ ")))
	for _, v := range vocabulary {
		if v.re.MatchString(l) {
			return v.sec, true
		}
	}
	return secUnknown, false
}

// vocabulary maps label patterns to sections, first match wins.
var vocabulary = []struct {
	re  *regexp.Regexp
	sec section
}{
	{secTodoRe, secTodo}, {secCauseRe, secCause}, {secDecisionRe, secDecision}, {secConstraintRe, secConstraint},
	{secChangeRe, secChange}, {secFixRe, secFix}, {secSkipRe, secSkip}, {secNoneRe, secNone},
}

// units reads markdown-ish text into statement candidates. A heading sets
// the section of the list items under it; a label line ("Key decisions:")
// sets it for the list or paragraph right after it; an inline label
// ("**Root cause:** …", "TODO: …") for its own paragraph or item. Fenced
// code is skipped, wrapped lines are joined.
func units(text string) []unit {
	var (
		out     []unit
		headSec section
		// headFresh: no paragraph yet under the last heading.
		headFresh bool
		labelSec  section
		headText  string
		lblText   string
		list      int
		lastItem  bool     // the previous block was a list item
		hasLabel  bool     // a label line is waiting for its list or paragraph
		inList    bool     // the label's list has started
		cur       []string // lines of the current block
		para      int
		curItem   bool
		curCheck  bool
		curNested bool   // the current item is indented under another
		curQuote  bool   // a line of the block is a block quote
		lblQuote  string // the waiting label introduces quoted text from this source
		hdQuote   string // the heading introduces quoted text from this source
	)
	flush := func() {
		if len(cur) == 0 {
			return
		}
		block := strings.Join(cur, " ")
		cur = cur[:0]
		quoted, from := curQuote, "a quoted text"
		curQuote = false
		switch {
		case commentaryRe.MatchString(block) && (hasLabel && lblQuote != "" || !hasLabel && hdQuote != ""):
			// "So a hand edit gets overwritten …", "I kept …" after a
			// quoted banner: Claude speaks again, and the quote is over.
			hdQuote = ""
		case hasLabel && lblQuote != "":
			quoted, from = true, lblQuote
		case !hasLabel && hdQuote != "":
			quoted, from = true, hdQuote
		}
		para++
		sec, byDefault, label := headSec, false, headText
		if headFresh && (headSec == secCause || headSec == secTodo) {
			// "## Root cause" then a paragraph: its first sentence is the
			// cause, as under a "Root cause:" label.
			byDefault = true
		}
		headFresh = false
		if hasLabel {
			sec, byDefault, label = labelSec, true, lblText
		}
		if curItem && !lastItem {
			list++
		}
		lastItem = curItem
		if curItem {
			byDefault = byDefault || sec != secNone
		}
		raw := block
		if l, rest, ok := inlineLabel(block); ok {
			if s, known := sectionOf(l); known {
				block, sec, byDefault = rest, s, s != secNone
			} else if src, ok := reportLabel(l); ok && !quoted {
				quoted, from = true, src
			}
		}
		if curItem {
			u := unit{text: headOf(block), sec: sec, item: true, byDefault: byDefault, checked: curCheck, nested: curNested, para: para, label: label, list: list, quoted: quoted, from: from, raw: headOf(raw)}
			if !quoted {
				u.from, u.quoted = reportedBy(u.text)
				if !u.quoted && quotesOnly(u.text) {
					u.from, u.quoted = quoteSource(u.text), true
				}
			}
			out = append(out, u)
		} else {
			rest := false // a report with a colon quotes the rest of its paragraph
			for i, s := range sentences(block) {
				if rest && ownNarrationRe.MatchString(s) {
					rest, from = false, "" // "… I went with goreleaser …": Claude again, after the quote
				}
				// A label's default covers its paragraph's first sentence;
				// the rest must carry their own cue.
				u := unit{text: s, sec: sec, byDefault: byDefault && i == 0, para: para, label: label, quoted: quoted || rest, from: from, raw: s}
				var own *unit
				if !u.quoted {
					if src, ok := reportedBy(s); ok {
						u.quoted, u.from = true, src
						if loc := ownClauseRe.FindStringIndex(s); loc != nil && !withinLead(s, loc[0]) {
							// "Per the Stripe docs, keys expire after 24 hours,
							// so I store them with a 24 h TTL": what the source
							// says, then what Claude did about it.
							tail := strings.TrimSpace(s[loc[0]:])
							tail = strings.TrimSpace(strings.TrimLeft(tail, ",;—– "))
							if soLeadRe.MatchString(tail) {
								// "…, so I store them …": the source's fact is
								// Claude's reason, told with the choice.
								if m := accordingRe.FindStringIndex(s); m != nil {
									tail = s[m[1]:]
								}
							} else {
								tail = ownLeadRe.ReplaceAllString(tail, "")
							}
							u.text, u.raw = strings.TrimSpace(s[:loc[0]]), strings.TrimSpace(s[:loc[0]])
							own = &unit{text: capitalize(strings.TrimSpace(tail)), sec: sec, para: para, label: label, raw: tail}
						} else if strings.Contains(s, ":") || strings.HasSuffix(strings.TrimSpace(s), ":") {
							rest, from = true, src
						}
					} else if quotesOnly(s) {
						u.quoted, u.from = true, quoteSource(s)
					}
				}
				out = append(out, u)
				if own != nil {
					out = append(out, *own)
				}
			}
			if hasLabel && !inList {
				hasLabel = false // a label's paragraph is one paragraph
			}
			// A paragraph that ends by introducing what a source says
			// ("… Its \"Workflow\" section reads:") quotes the list or
			// paragraph after it, as a label line of its own would.
			if src, ok := introducesQuote(block); ok {
				hasLabel, inList, labelSec, lblText, lblQuote = true, false, secUnknown, "", src
			}
		}
	}
	lines, quotes, code := proseAndCode(text)
	for i, line := range lines {
		if code[i] && hasLabel && !inList && len(cur) == 0 {
			// The label introduced this code ("`npm install` output:"):
			// the paragraph after the code is not the label's.
			hasLabel = false
		}
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			// A table row: cells are not statements (an options table
			// would read as decisions); it ends the block like a blank line.
			flush()
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			flush()
			headSec, _ = sectionOf(m[1])
			headFresh = true
			hdQuote = ""
			if src, ok := reportLabel(m[1]); ok && headSec == secUnknown {
				hdQuote = src
			}
			headText, lastItem = cleanInline(m[1]), false
			hasLabel, inList = false, false
			continue
		}
		if m := itemRe.FindStringSubmatch(line); m != nil {
			flush()
			if hasLabel && !inList {
				inList = true
			}
			cur = append(cur, itemText(m))
			curItem, curCheck = true, m[1] == "x" || m[1] == "X"
			curNested = len(line)-len(strings.TrimLeft(line, " \t")) >= 2 && lastItem
			curQuote = quotes[i]
			continue
		}
		if len(cur) == 0 {
			if l, ok := labelLine(line); ok && !quotes[i] {
				labelSec, _ = sectionOf(l)
				lblText, lastItem = cleanInline(l), false
				hasLabel, inList = true, false
				lblQuote = ""
				if src, ok := reportLabel(l); ok && (labelSec == secUnknown || labelSec == secSkip) {
					lblQuote = src
				}
				continue
			}
			if inList {
				// Prose after the label's list: the label no longer applies.
				hasLabel, inList = false, false
			}
			curItem, curCheck = false, false
		}
		if quotes[i] != curQuote && len(cur) > 0 {
			flush() // a block quote is a block of its own
		}
		curQuote = curQuote || quotes[i]
		cur = append(cur, strings.TrimSpace(line))
	}
	flush()
	return out
}

// proseLines splits text into lines without their blockquote markers,
// each line of fenced code (fences included) blanked: code is never a
// statement, and it ends the paragraph around it. quoted tells which
// lines were block quotes.
func proseLines(text string) (lines []string, quoted []bool) {
	lines, quoted, _ = proseAndCode(text)
	return lines, quoted
}

// proseAndCode is proseLines that also tells which lines were code.
func proseAndCode(text string) (lines []string, quoted, code []bool) {
	// An HTML comment is no one's statement in an answer (a file's
	// "<!-- AI assistants: from now on … -->" copied in): its lines are
	// blanked, their count kept.
	text = htmlCommentRe.ReplaceAllStringFunc(text, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n"))
	})
	lines = strings.Split(text, "\n")
	quoted = make([]bool, len(lines))
	code = make([]bool, len(lines))
	inCode := false
	indented := false // inside an indented code block
	prevBlank, prevItem := true, false
	for i, line := range lines {
		line = strings.TrimRight(line, " \t\r")
		fence := fenceRe.MatchString(line)
		if fence {
			inCode = !inCode
		}
		// An indented code block starts after a blank line that does not
		// follow a list item (whose paragraphs are indented too) and runs
		// while its lines stay indented or blank.
		if !inCode && !fence && line != "" && indentRe.MatchString(line) && (indented || prevBlank && !prevItem) {
			indented = true
			lines[i], code[i] = "", true
			continue
		}
		if line != "" {
			indented = false
			prevItem = itemRe.MatchString(line) || prevItem && !prevBlank
		}
		prevBlank = line == ""
		if fence || inCode {
			lines[i], code[i] = "", true
			continue
		}
		if loc := quoteRe.FindStringIndex(line); loc != nil {
			quoted[i] = true
			line = line[loc[1]:]
		}
		if outputLineRe.MatchString(line) {
			quoted[i] = true // a linter's or compiler's line, pasted as prose
		}
		lines[i] = line
	}
	return lines, quoted, code
}

// outputLineRe: a line a linter or compiler prints, pasted without a
// fence ("info • Always declare return types • lib/repo.dart:12:3 •
// always_declare_return_types", "src/app.ts:14:3 - error TS2345: …").
var outputLineRe = regexp.MustCompile(`(?i)^\s*(?:(?:info|warning|warn|error|hint|note|lint)\s+[•·|]\s|[\w./-]+\.\w{1,5}:\d+:\d+:?\s+(?:-\s+)?(?:error|warning|info|note)\b)|\s[•·]\s[\w./-]+\.\w{1,5}:\d+:\d+\b`)

// promptParagraphs is paragraphs for a prompt, without what it quotes:
// block quotes, fenced and indented code (as paragraphs drops it), and the
// paragraph or list a paragraph ending "… says:" introduces. The user
// pasting a file's "From now on …" sets no rule.
func promptParagraphs(text string) []string {
	var out, cur []string
	skip := false // the block after a paragraph that introduced a quote
	flush := func() {
		if len(cur) == 0 {
			return
		}
		block := strings.Join(cur, " ")
		cur = cur[:0]
		if skip {
			skip = false
			return
		}
		out = append(out, block)
		if _, ok := introducesQuote(block); ok {
			skip = true
		}
	}
	lines, quoted := proseLines(text)
	inList := false
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if quoted[i] {
			flush()
			continue
		}
		if t == "" {
			if !(skip && inList) {
				flush()
			}
			continue
		}
		if m := itemRe.FindStringSubmatch(t); m != nil {
			if skip {
				inList = true
				continue // an item of the introduced list
			}
			flush()
			t = itemText(m)
		} else if inList {
			inList, skip = false, false
		}
		cur = append(cur, t)
	}
	flush()
	return out
}

// ownTailRe: where a sentence that reports a source turns to the
// speaker's own words ("The README says npm, but we use pnpm").
var ownTailRe = regexp.MustCompile(`(?i),?\s+(?:but|however|whereas)\s+|\s+[—–]\s+`)

// ownTail is what sentence s says after it turns from a source's words to
// its speaker's, "" when it does not.
func ownTail(s string) string {
	loc := ownTailRe.FindStringIndex(s)
	if loc == nil {
		return ""
	}
	tail := strings.TrimSpace(s[loc[1]:])
	if _, reported := reportedBy(tail); reported {
		return ""
	}
	return tail
}

// introducesQuote reports whether a paragraph's last sentence ends in a
// colon that introduces a source's words ("The header reads:", "From
// CONTRIBUTING.md:"), and names the source.
func introducesQuote(block string) (string, bool) {
	if m := sourceNoteRe.FindStringSubmatch(strings.TrimSpace(cleanInline(block))); m != nil {
		return sourceName(m[1] + m[2]), true
	}
	ss := sentences(block)
	if len(ss) == 0 {
		return "", false
	}
	last := strings.TrimSpace(cleanInline(ss[len(ss)-1]))
	if !strings.HasSuffix(last, ":") {
		return "", false
	}
	return reportLabel(strings.TrimSuffix(last, ":"))
}

// sourceNoteRe: a paragraph that only says where the text after it comes
// from ("*(copied from `CONTRIBUTING.md`, section 4)*", "Source: the
// runbook", "Verbatim from the ADR:", "_(from `docs/CONVENTIONS.md`)_").
var sourceNoteRe = regexp.MustCompile(`(?i)^[*_(\s]*(?:(?:copied|quoted|taken|pasted|excerpted|reproduced|verbatim|excerpt|quote)(?: (?:verbatim|as is|word for word))? from|source:)\s+([^()*_]{1,80}?)[)*_.:\s]*$|^[*_]*\((?:from|via|per)\s+([^()]{1,80}?)\)[*_.:\s]*$`)

// labelLine reports whether line is a label on its own: a short phrase
// ending in a colon ("Key decisions:", "**Root cause:**"), a bold phrase
// alone, or a bare known label ("Summary", "Key changes").
func labelLine(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, "**") || strings.HasSuffix(t, "__") {
		if m := labelRe.FindStringSubmatch(line); m != nil && len(m[1]) <= 50 && len(strings.Fields(m[1])) <= 7 {
			return m[1], true
		}
		if m := boldOnlyRe.FindStringSubmatch(line); m != nil {
			return m[1], true
		}
		// A file or a command alone ("setup.sh:", "`deploy.yml`:").
		if l := strings.TrimSuffix(t, ":"); len(strings.Fields(l)) <= 3 && looksLikeSource(l) {
			return l, true
		}
	}
	if len(t) <= 40 && len(strings.Fields(t)) <= 4 {
		if _, known := sectionOf(t); known {
			return t, true
		}
	}
	return "", false
}

// inlineLabel splits "Label: rest" (bold or not) at the start of a block.
func inlineLabel(block string) (label, rest string, ok bool) {
	if i := strings.IndexAny(block, ":*_"); i < 0 || i > 48 {
		return "", "", false // no label within a label's length
	}
	m := inlineRe.FindStringSubmatch(block)
	if m == nil || len(m[1]) > 40 {
		return "", "", false
	}
	return m[1], m[2], true
}

// paragraphs splits text at blank lines and code fences, dropping the code,
// and joins each paragraph's lines.
func paragraphs(text string) []string {
	var out, cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	lines, _ := proseLines(text)
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		if m := itemRe.FindStringSubmatch(t); m != nil {
			flush()
			t = itemText(m)
			if m[1] == "x" || m[1] == "X" {
				t = "[x] " + t // a done checkbox stays visible to Completes
			}
		}
		cur = append(cur, t)
	}
	flush()
	return out
}

// abbrevRe matches the words whose final dot does not end a sentence.
// letterLabelRe: a sentence so far that is only a letter labelling what
// follows ("A.", "**B.").
var letterLabelRe = regexp.MustCompile(`^(?:\*\*|__)?[A-H]\.$`)

var abbrevRe = regexp.MustCompile(`(?i)(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|fig)\.$`)

// maxUnit bounds the bytes of one statement candidate that the cues read:
// a memory keeps MaxText runes anyway, and a sentence or list item longer
// than this is not one statement (a pasted log, a minified line).
const maxUnit = 2048

// headOf cuts s to maxUnit bytes on a rune boundary.
func headOf(s string) string {
	return cutBytes(s, maxUnit)
}

// sentences splits a paragraph of an answer at ". ", "! " and "? " when
// the next word starts a sentence; a dot inside a word (a file name, a
// version) never splits. Claude opens its sentences with a capital, so a
// lower-case word after a dot is a name ("… under 2 ms. p99 is 28 ms").
func sentences(p string) []string { return splitSentences(p, false) }

// promptSentences splits a paragraph of a prompt the same way, and also
// before a word typed without its capital ("too slow. we're going with
// Meilisearch"): people type their prompts in lower case.
func promptSentences(p string) []string { return splitSentences(p, true) }

func splitSentences(p string, lower bool) []string {
	var out []string
	start := 0
	inTick := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '`' {
			inTick = !inTick
			continue
		}
		if inTick || (c != '.' && c != '!' && c != '?') || i+1 >= len(p) {
			continue
		}
		if p[i+1] == '"' && i+2 < len(p) && p[i+2] == ' ' {
			i++ // a quote's sentence ends after its closing mark: `says: "… declines." That's …`
		} else if p[i+1] != ' ' {
			continue
		}
		j := i + 1
		for j < len(p) && p[j] == ' ' {
			j++
		}
		if j >= len(p) || !startsSentence(p[j]) && !(lower && p[j] >= 'a' && p[j] <= 'z') && !standingLeadRe.MatchString(p[j:]) {
			continue // a standing rule typed without its capital starts one too: "… is live. from now on …"
		}
		if c == '.' && p[i] != '"' && (abbrevRe.MatchString(p[max(start, i-7):i+1]) || letterLabelRe.MatchString(p[start:i+1])) {
			continue // "e.g.", and "**A. SAML SSO**: …": a lettered option's label
		}
		if s := strings.TrimSpace(p[start : i+1]); s != "" {
			out = append(out, headOf(s))
		}
		start = j
	}
	if s := strings.TrimSpace(p[start:]); s != "" {
		out = append(out, headOf(s))
	}
	return out
}

func startsSentence(c byte) bool {
	return c >= 'A' && c <= 'Z' || c == '`' || c == '"' || c == '*' || c == '(' || c >= 0x80
}

var (
	boldRe    = regexp.MustCompile(`\*\*([^*]*)\*\*|__([^_]*)__`)
	linkRe    = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	leadRe    = regexp.MustCompile(`^(?:[-*+•>]\s+|\d{1,3}[.)]\s+|\[[ xX]\]\s+|#+\s+)+`)
	strayBold = strings.NewReplacer("**", "", "__", "")
)

// cleanInline removes markdown from a statement: list markers, bold,
// links (their text is kept), and squeezes white space. Backticks stay, so
// code terms remain recognisable.
func cleanInline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s != "" && strings.IndexByte("-*+•>#[0123456789", s[0]) >= 0 {
		s = strings.TrimSpace(leadRe.ReplaceAllString(s, ""))
	}
	if strings.Contains(s, "**") || strings.Contains(s, "__") {
		s = strayBold.Replace(boldRe.ReplaceAllString(s, "$1$2"))
	}
	if strings.Contains(s, "](") {
		s = linkRe.ReplaceAllString(s, "$1")
	}
	return strings.TrimSpace(s)
}

// itemText is the text of a list item itemRe matched.
func itemText(m []string) string {
	if m[3] != "" {
		return m[3]
	}
	return m[2]
}
