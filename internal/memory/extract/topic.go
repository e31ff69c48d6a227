package extract

import (
	"regexp"
	"slices"
	"strings"
)

// A memory's subject is the thing it is about, a short noun phrase:
// "cache", "config format", "package manager". Two statements about one
// subject are one chain: the newer decision replaces the older, whatever
// words each uses for the choice itself.

var (
	// labelSubjectRe: "Config format: TOML", "**Cache**: Redis".
	// causeOfRe: a root cause labelled with what it is the cause of.
	causeOfRe      = regexp.MustCompile(`(?i)^(?:the )?(?:real |actual |underlying )?root[- ]cause of (?:the |these |those |this |our |all )?([\w /.-]{2,40}?)\s*(?::|\s[—–-]\s)`)
	labelSubjectRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 /-]{1,40}?):\s+\S`)
	// detRe: a noun phrase after a determiner, up to three words.
	detRe = regexp.MustCompile(`(?i)\b(?:the|our|its|their|this project'?s|the project'?s)\s+((?:[A-Za-z][\w-]*\s+){0,2}[A-Za-z][\w-]*)`)
)

// phraseStop are the words a subject's noun phrase ends before: verbs,
// adverbs and prepositions that follow a sentence's subject.
var phraseStop = map[string]bool{}

// genericHeads are nouns too general to be a subject on their own.
var genericHeads = map[string]bool{}

// categories name the subject of a statement that names only its choice:
// "Always use pnpm" is about the package manager.
var categories = map[string]string{}

func init() {
	for _, w := range strings.Fields(`lives live lived is are was were be goes go went stays stay stayed runs run ran uses use used
	sits sit will would should must can could has have had now again still also only just then
	stores store stored holds hold keeps keep handles handle comes come moved moves from in on to into at for with by of
	instead rather because since so and or but not no never always lives gets get got becomes became needs need
	does do did isn't aren't wasn't doesn't don't didn't won't can't shouldn't mustn't
	without unless until before after when if than per via across over under about like between through during returns
	within against except behind next today tomorrow yesterday soon later here there either too anymore anyway as
	made makes said says rely relies requires fails broke breaks took takes gave gives shows knows knew thinks thought seems became
	brought wrote writes threw throws lets means meant wants tries expects includes allows happens depends registers pulls refuses sends emits
	found saw told`) {
		phraseStop[w] = true
	}
	for _, w := range strings.Fields(`test tests file files code function functions thing things way ways issue issues bug bugs
	change changes fix fixes step steps one ones default defaults value values name names error errors page pages option options
	version versions work part parts rest end start case cases time times problem problems reason reasons answer question
	same other first second last new old user users readme docs doc output log logs result results cause root rule
	endpoint endpoints api apis service services app apps server servers module modules flow flows table tables
	field fields column columns handler handlers job jobs script scripts command commands request requests response
	responses data system systems feature features support setup logic layer layers component components library
	libraries tool tools check checks culprit culprits trigger mistake`) {
		genericHeads[w] = true
	}
	loadLexicon()
}

// subjectOf is what statement m is about: a label it opens with, the
// first noun phrase after a determiner that is not too general, the
// category of a tool it names, else its first identifier; label is the
// heading or label line it sat under.
func subjectOf(m Memory, label string) string {
	s, _ := subjectStrength(m, label)
	return s
}

// againLabelRe: a change told as the next of several, before a colon.
var againLabelRe = regexp.MustCompile(`(?i)^(?:we(?:'ve)? )?(?:switched|changed|moved) (?:it |this |that |them )?again\b[^:]{0,50}:\s*`)

// callOnRe: a choice labelled with what it settles ("final call on blob
// storage: …", "decision on the queue driver: …").
var callOnRe = regexp.MustCompile(`(?i)^(?:(?:(?:final|last|my) )?(?:call|decision|verdict|word|answer)|new plan|change of plan|plan change) (?:on|for|about) (?:the |our )?([\w .-]{2,30}?):\s*\S`)

// backForRe: a return to a choice for something ("Back to SDL2 for audio
// after all", "switch back to Yarn for the monorepo").
var backForRe = regexp.MustCompile(`(?i)^(?:(?:let'?s |we'?re )?(?:go(?:ing)? )?back to|revert(?:ed|ing)? to|switch(?:ed|ing)? back to) \S+(?: \S+)? for (?:the |our |all )?([\w -]{2,30})`)

// backToRe: a return to a kind of thing, named first ("Back to UUIDs
// after all — v7 …").
var backToRe = regexp.MustCompile(`(?i)^(?:(?:ok|so),? )?(?:(?:let'?s |we'?re )?(?:go(?:ing)? )?back to|revert(?:ed|ing)? to) ([a-z][\w-]*s)\b(?: after all)?\s*(?:[—–,:;.]|$)`)

// ruleForRe: what a rule label says the rule is for, a kind of thing
// ("Rule for all subgraphs:", "Convention for new endpoints:").
var ruleForRe = regexp.MustCompile(`(?i)^[^:]{0,40}?\bfor (?:all|every|any|new) ([\w./ -]{2,30}?)(?: here)?\s*:`)

// repoWords name the whole project, no subject of a rule.
var repoWords = map[string]bool{"repo": true, "this repo": true, "repository": true, "this repository": true, "codebase": true, "this codebase": true,
	"code base": true, "project": true, "this project": true, "code": true, "team": true, "us": true, "everyone": true}

// subjectStrength is subjectOf, and whether the statement names its
// subject itself (a label, a version, a tool's category, what opens it)
// rather than in passing (a noun phrase further on, an identifier, the
// verb, what a replacement replaced): a weak subject gives way to the
// topic of the prompt the statement answers.
func subjectStrength(m Memory, label string) (string, bool) {
	text := strings.TrimSpace(quoteMarks.Replace(m.Text))
	_, after, colon := strings.Cut(text, ":")
	sm := labelSubjectRe.FindStringSubmatch(text)
	if rc := causeOfRe.FindStringSubmatch(text); rc != nil {
		if s := nounPhrase(rc[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "Root cause of the drops: …": what failed
		}
	}
	if rc := forwardLabelRe.FindStringSubmatch(text); rc != nil {
		if s := nounPhrase(rc[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "tolerances going forward: relative 1e-5, …"
		}
	}
	if rc := dashLabelRe.FindStringSubmatch(text); rc != nil && len(strings.Fields(rc[1])) <= 3 && !clauseVerbRe.MatchString(rc[1]+" ") && !doneLeadRe.MatchString(text) {
		if s := nounPhrase(rc[1]); s != "" && !genericHeads[head(s)] && !labelWords[head(s)] {
			return s, true // "Weights — I switched `grossWeightKg` to BigDecimal …"
		}
	}
	if m.Kind == KindCause {
		if id := openingCode(m.Text); id != "" {
			// "`WarpstoneRenderer` calls straight into NMS …", "Root cause
			// on our side: `cdpshot` creates every tab …": what failed is
			// the code the cause opens with, not what the prompt was about.
			return strings.ToLower(id), true
		}
	}
	if loc := againLabelRe.FindStringIndex(text); loc != nil {
		// "Switched again after the review: API versions are …": what
		// follows says what changed.
		if s, strong := subjectAfterLabel(m, text[loc[1]:], label); s != "" {
			return s, strong
		}
	}
	if rc := callOnRe.FindStringSubmatch(text); rc != nil {
		if s := nounPhrase(rc[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "final call on blob storage: R2": blob storage
		}
	}
	if rc := comeFromRe.FindStringSubmatch(text); rc != nil && m.Kind == KindCause {
		if s := nounPhrase(rc[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "The 500s come from pool exhaustion": the 500s
		}
	}
	switch {
	case colonInCode(m.Text):
		// "Settled on pinning `index-state: …`": no label.
	case colon && ruleLabelRe.MatchString(text):
		// "Rule for all subgraphs: …" names what the rule covers; "Rule
		// of thumb for this repo: …" names no subject.
		if sm := ruleForRe.FindStringSubmatch(text); sm != nil && !repoWords[strings.ToLower(strings.TrimSpace(sm[1]))] {
			if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] {
				return s, true
			}
		}
		return subjectAfterLabel(m, after, label)
	case sm != nil && backLabelRe.MatchString(sm[1]) && !backForRe.MatchString(text):
		// "Back to something simple: a flags table in Postgres": the label
		// says a change is coming, what follows what it is about.
		return subjectAfterLabel(m, text[len(sm[1])+1:], label)
	case sm != nil && len(strings.Fields(sm[1])) <= 4 && !(actLabelRe.MatchString(sm[1]) && len(strings.Fields(sm[1])) > 2):
		if s := labelPhrase(strings.TrimSuffix(strings.TrimSpace(sm[1]), " decision")); s != "" && !standingRe.MatchString(sm[1]) && !slices.ContainsFunc(strings.Fields(s), func(w string) bool { return labelWords[w] }) {
			if _, known := sectionOf(s); !known {
				return s, !genericHeads[head(s)]
			}
		}
		if alwaysRe.MatchString(sm[1]) {
			// "Always keep shadow DOM: don't override …": the label is
			// the rule, and names what it keeps.
			if s, strong := clauseSubject(sm[1]); strong && !genericHeads[head(s)] {
				return s, true
			}
		}
		return subjectAfterLabel(m, text[len(sm[1])+1:], label) // "Rule for this repo: never commit …"
	}
	if sm := noneMayRe.FindStringSubmatch(strings.TrimSpace(leadWordsRe.ReplaceAllString(text, ""))); sm != nil {
		if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "No pipeline task may run longer than …": pipeline tasks
		}
	}
	if sm := backForRe.FindStringSubmatch(text); sm != nil {
		if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "Back to SDL2 for audio after all": audio
		}
	}
	if sm := backToRe.FindStringSubmatch(text); sm != nil && !backForRe.MatchString(text) {
		if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] && len(toolsIn(s)) == 0 {
			return s, true // "Back to UUIDs after all — v7, …": UUIDs, not what the rest names
		}
	}
	if sm := frontedTopicRe.FindStringSubmatch(text); sm != nil {
		if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] {
			return s, true // "For the rate limits, I moved them …"
		}
	}
	if sm := requiresRe.FindStringSubmatch(text); sm != nil {
		return strings.ToLower(sm[1]) + " version", true // requires-python = ">=3.11"
	}
	if sm := versionRe.FindStringSubmatchIndex(text); sm != nil && (sm[2] == 0 || !strings.ContainsRune("/@-.", rune(text[sm[2]-1]))) {
		// Not a package's last path element ("@testing-library/react to 15").
		return strings.ToLower(text[sm[2]:sm[3]]) + " version", true
	}
	if s := copulaSubject(text); s != "" && !genericHeads[head(s)] && (len(strings.Fields(s)) > 1 || nowIsRe.MatchString(text) && !stopwords[s] && !pronouns[s]) {
		// "Product search now runs on Postgres …", "saves are now a
		// SQLite file per profile": what it opens with, not the tool's
		// category.
		return s, true
	}
	if s, strong := clauseSubject(text); strong && len(strings.Fields(s)) > 1 && !genericHeads[head(s)] && moveLeadRe.MatchString(text) {
		// "Moved Pulumi state to a self-managed S3 backend": what moved,
		// before the category of where it went.
		return s, true
	}
	if sm := everyRe.FindStringSubmatch(strings.TrimSpace(leadWordsRe.ReplaceAllString(text, ""))); sm != nil {
		// "Every Eloquent model lists $fillable explicitly": Eloquent
		// models; "every endpoint returns a Pydantic response model": what
		// every endpoint does, when endpoints are too general.
		if s := nounPhrase(sm[1]); s != "" && (!genericHeads[head(s)] || !stopwords[strings.Fields(s)[0]] && len(strings.Fields(s)) > 1) {
			return s, true
		}
		if s := nounPhrase(sm[3]); strings.HasSuffix(sm[2], "s") && s != "" && !genericHeads[head(s)] && !pronouns[strings.Fields(s)[0]] {
			return s, true
		}
	}
	if sm := keptInRe.FindStringSubmatch(text); sm != nil {
		if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] && len(toolsIn(s)) == 0 {
			return s, true // "I kept search in Postgres …": search, not the database
		}
	}
	if c := firstClauseCategory(text); c != "" {
		return c, true
	}
	general := "" // "the real root cause": the last resort
	if s, strong := clauseSubject(text); s != "" {
		if !genericHeads[head(s)] || strings.Contains(s, " ") && strong && !kindHeads[head(s)] {
			return s, strong // "the idempotency check": a general head, named
		}
		general = s
	}
	for _, sm := range detRe.FindAllStringSubmatch(text, 8) {
		if s := nounPhrase(sm[1]); s != "" {
			if !genericHeads[head(s)] && general == "" {
				return s, false
			}
			if general == "" {
				general = s
			}
		}
	}
	if c := categoryIn(text); c != "" {
		return c, true
	}
	if id := firstName(m.Idents); id != "" && (general == "" || len(strings.Fields(general)) == 1 || strings.Contains(general, "cause")) {
		return strings.ToLower(id), false
	}
	if general != "" {
		if cs := copulaSubject(text); cs != "" && !genericHeads[head(cs)] && genericHeads[head(general)] {
			return cs, false // "sd_task's stack was sized the same way": the stack, not the way
		}
		return general, false
	}
	if s := nounPhrase(strings.TrimSpace(leadWordsRe.ReplaceAllString(text, ""))); s != "" && !genericHeads[head(s)] && !clauseVerbRe.MatchString(s+" ") {
		return s, false // "form actions only for mutations": what the rule opens with
	}
	_ = label
	return "", false
}

// firstName is the first of idents that names code, not a commit
// ("e41c9a2") or a number.
func firstName(idents []string) string {
	for _, id := range idents {
		if !isHash(id) {
			return id
		}
	}
	return ""
}

// isHash reports whether w is a commit's hash, short or full.
func isHash(w string) bool { return hashRe.MatchString(w) && strings.ContainsAny(w, "0123456789") }

// hashRe: hex as long as a commit's hash.
var hashRe = regexp.MustCompile(`^(?:[0-9a-f]{7,40})$`)

// openingCode is the code a statement opens with as its grammatical
// subject, after a label that names no subject if it has one: in
// backticks ("Root cause on our side: `cdpshot` creates …") or an
// identifier ("MountDriver.after_flip() reads …",
// "OrderedDataStore:SetAsync was called …"); "" when it opens otherwise,
// with more than a name, or with a tool's name ("PostgreSQL", "GitHub").
func openingCode(s string) string {
	t := strings.TrimSpace(s)
	if loc := tickLabelRe.FindStringIndex(t); loc != nil {
		t = t[loc[1]:]
	}
	var code string
	if rest, ok := strings.CutPrefix(t, "`"); ok {
		c, _, closed := strings.Cut(rest, "`")
		code, _, _ = strings.Cut(c, "(") // "`handle_event(\"pay\", ...)`"
		if !closed || strings.ContainsAny(code, " \t") || !letterRe.MatchString(code) {
			return ""
		}
	} else {
		tok, _, _ := strings.Cut(t, " ")
		tok, _, _ = strings.Cut(strings.TrimRight(tok, ",:;"), "(")
		tok, _, _ = strings.Cut(tok, ":") // "OrderedDataStore:SetAsync", "Foo::bar"
		if !isIdent(tok) {
			return ""
		}
		code = tok
	}
	if code == "" || len(code) > 40 || len(toolsIn(code)) > 0 {
		return ""
	}
	return code
}

// tickLabelRe: a label that says a cause follows and names no subject
// ("Root cause on our side:", "The culprit:"); "The culprit was the
// stack:" names one.
var tickLabelRe = regexp.MustCompile(`(?i)^(?:the )?(?:real |actual |underlying )?(?:root[- ]cause|cause|culprit|problem|issue|bug)(?: (?:on|from|in|at) (?:our|their|the|my|your) (?:side|end|part))?\s*:\s+|^(?:so,? )?(?:it )?turn(?:s|ed) out(?: that)?,?\s+`)

// quoteMarks are dropped before a subject is read: "The green "Saved"
// toast" is about the toast.
var quoteMarks = strings.NewReplacer("`", "", `"`, "", "“", "", "”", "")

// whichNounRe: a closing question that names what is chosen ("Which
// policy do you want …?").
var whichNounRe = regexp.MustCompile(`(?i)^(?:so,? |ok,? )?which ([a-z][\w-]{1,29}(?: [a-z][\w-]{1,29})?) (?:(?:do|would|should|shall|will|did|are) (?:you|we)\b|(?:should|would|will|shall|do|does|can|could) (?:the|our|this|it|they|i)\b)`)

// choiceNouns name a choice itself, not what it is about.
var choiceNouns = map[string]bool{"way": true, "option": true, "approach": true, "route": true, "path": true, "direction": true, "variant": true, "alternative": true}

// askTaskRe: a task asked as a question ("Can you add …", "Could you
// please set up …").
var askTaskRe = regexp.MustCompile(`(?i)^(?:can|could|would|will) (?:you|u) (?:please |pls )?`)

// taskOf is a prompt's sentence without what opens it before a task's
// verb ("ok, can you add …"): what taskVerbRe reads.
func taskOf(s string) string {
	return askTaskRe.ReplaceAllString(strings.TrimSpace(promptLeadRe.ReplaceAllString(s, "")), "")
}

// subjectAfterLabel is the subject of what follows a label that names
// none: what that says, or what it opens with ("Rule of thumb for this
// repo: form actions only for mutations" → "form actions").
func subjectAfterLabel(m Memory, after, label string) (string, bool) {
	text := strings.TrimSpace(after)
	if s, strong := subjectStrength(Memory{Kind: m.Kind, Text: text, Terms: m.Terms}, label); s != "" {
		return s, strong
	}
	if s := nounPhrase(noLeadRe.ReplaceAllString(text, "")); s != "" && !genericHeads[head(s)] {
		return s, true // "…: no SOQL inside loops, ever" is about SOQL
	}
	return "", false
}

// backLabelRe: a label that says the choice goes back or changes ("Back
// to something simple:", "Reverting to the old setup:", "Change of
// course:").
var backLabelRe = regexp.MustCompile(`(?i)^(?:(?:going |so )?back to|revert(?:ing)? to|return(?:ing)? to|change of (?:course|plan)|(?:the )?(?:outcome|result|upshot|conclusion|verdict) of\b|(?:ok,? )?new plan)\b`)

// alwaysRe: a label that is itself a rule ("Always keep shadow DOM:").
var alwaysRe = regexp.MustCompile(`(?i)^(?:always|never|don'?t|do not)\s`)

// noLeadRe: a rule that opens by forbidding what it is about.
var noLeadRe = regexp.MustCompile(`(?i)^no (?:more |new |further )?`)

// taskVerbRe: a sentence that sets a task.
var taskVerbRe = regexp.MustCompile(`(?i)^(?:please )?(?:add|fix|set up|setup|integrate|generate|port|build|write|implement|create|make|move|migrate|switch|replace|resize|issue|store|deploy|host|configure|refactor|rewrite|speed up|clean up|update|upgrade|support|handle|enable|disable|turn|change|improve|cache|split|rename|wire|hook up|expose|serve|send|log|track|validate|document|limit)\b`)

// PromptTopic is what a prompt asks about, "" when it names nothing
// clearly ("Add rate limiting to the API" → "rate limiting"): the subject
// of the answer's statements that do not name their own.
func PromptTopic(prompt string) string {
	p := strings.Join(strings.Fields(cleanInline(bound(prompt))), " ")
	// The task the prompt sets ("… keep drifting. Fix the API docs
	// properly.") before what it reports.
	t := ""
	for _, s := range promptSentences(p) {
		// "Can you add caching?" sets a task as much as "Add caching." does.
		task := taskOf(s)
		if taskVerbRe.MatchString(task) {
			if t = askedSubject(task); t != "" {
				break
			}
		}
	}
	if t == "" {
		t = troubleSubject(p)
	}
	if t == "" {
		t = askedSubject(p)
	}
	if t == "" || genericHeads[head(t)] && len(strings.Fields(t)) == 1 || materialNouns[head(t)] || len(t) < 2 {
		// "log excerpt is in the issue", "Here's the Slack export": what
		// the user hands over is not what the prompt is about.
		return ""
	}
	return t
}

// cutPrep is s without the preposition it opens with ("about new jobs"
// → "new jobs"), and whether it opened with one.
func cutPrep(s string) (string, bool) {
	for _, p := range []string{"about ", "of ", "from ", "into ", "onto ", "with ", "to "} {
		if rest, ok := strings.CutPrefix(strings.ToLower(s), p); ok {
			return s[len(s)-len(rest):], true
		}
	}
	return s, false
}

// submatches are the strings of loc's groups in s, "" for a group that
// did not take part.
func submatches(s string, loc []int) []string {
	out := make([]string, len(loc)/2)
	for i := range out {
		if loc[2*i] >= 0 {
			out[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return out
}

// askedThingRe: a question that names the thing to settle — what to
// use for it, how it should be done to, where it lives, a kind of thing
// to pick, or a bare noun phrase asked about.
var askedThingRe = regexp.MustCompile(`(?i)^(?:so,? |ok,? |hmm,? )?(?:what (?:should|do|would|can|shall) (?:we|i) use for (?:the |our |a |an )?([\w /-]{2,40}?)\s*(?:[?.!]|$)|how (?:should|do|would|will) (?:the |our )?([a-z][\w-]*(?: [a-z][\w-]*)?) (?:be|get) [a-z]+ed|where (?:should|do|does|will|would) (?:the |our )?([a-z][\w-]*(?: [a-z][\w-]*)?) (?:live|go|run|sit|be stored|be kept|be hosted)|(?:pick|choose|recommend|suggest) (?:a|an|the|one|our) ([a-z][\w-]*(?: [a-z][\w-]*)?)(?: for\b| to\b|$|[?.])|([a-z][\w-]*(?: [a-z][\w-]*)?) for (?:the|our|this) [\w -]{2,30}\?)\s*(?:[?.!]|$|\s)`)

// forwardLabelRe: a rule labelled by what it covers and when ("…
// tolerances going forward: relative 1e-5").
var forwardLabelRe = regexp.MustCompile(`(?i)(?:^|[.!?;]\s+)([a-z][\w -]{1,30}?) (?:going forward|from now on|from here on|from today)\s*:\s*\S`)

// dashLabelRe: a statement led by what it is about and a dash ("Weights
// — I switched …", "Drive zipper noise — I went with …").
var dashLabelRe = regexp.MustCompile(`^([A-Za-z][\w -]{1,30}?)\s+[—–]\s+\S`)

// nowIsRe: "X is now …", "X are now …": one word, then how it is now.
var nowIsRe = regexp.MustCompile(`(?i)^[a-z][\w-]* (?:is|are) now\b`)

// storedSomewhereRe: "… needs X stored somewhere", "X has to live
// somewhere".
var storedSomewhereRe = regexp.MustCompile(`(?i)\b(?:needs?|want|has to put|have to put) (?:the |a |an |our |its |their |the user's |users' )?([\w' -]{2,50}?) (?:stored|kept|saved|hosted|put|persisted|cached) (?:somewhere|someplace)\b`)

// fragmentForRe: a prompt's opening fragment "X for the Y", with no verb
// ("FOV for the roguelike (c++ …)", "retry policy for our webhooks:").
var fragmentForRe = regexp.MustCompile(`(?i)^([a-z][\w-]*(?: [a-z][\w-]*)?) for (?:the|our|this|my) [\w -]{2,30}?(?:\s*\(|\s*[.:]|$)`)

// materialNouns name what a prompt hands over to read, not a subject.
var materialNouns = map[string]bool{"excerpt": true, "export": true, "dump": true, "paste": true, "snippet": true,
	"transcript": true, "screenshot": true, "attachment": true, "reply": true, "printout": true, "capture": true}

var (
	// versionRe: a statement about which version of a language or
	// platform ("Python 3.9", "Go 1.22", "Node 20").
	versionRe = regexp.MustCompile(`(?i)\b(python|go|golang|node|node\.js|ruby|java|rust|php|postgres|postgresql|react|typescript|django|rails|kotlin|swift|dotnet|\.net)\s+(?:(?:version|is|to|at|of|>=|=)\s+)?v?\d+(?:\.\d+)*\b`)
	// requiresRe: a package's declared minimum ("requires-python =
	// \">=3.11\"", "python_requires='>=3.9'").
	requiresRe = regexp.MustCompile(`(?i)\b(?:requires-(python)|(python)_requires)\s*=\s*["']?\s*(?:>=|~=|==)?\s*\d`)
	// leadWordsRe: what an instruction opens with before its verb.
	leadWordsRe = regexp.MustCompile(`(?i)^(?:(?:please|make sure(?: that)?(?: you)?|(?:in|for) (?:this|the|our) (?:codebase|code ?base|repo|repository|project)|from now on|going forward|from here on|always|never|don'?t|dont|do not|ever|only|also|just|and|so|we|i|you|let'?s|we'?ll|we should|i'?ve|we'?ve|we'?re|we are|i'?m|now|no longer|still|already)[\s,]+)+`)
	// clauseVerbRe: the verb an instruction or a change of design opens
	// with, its object following.
	clauseVerbRe = regexp.MustCompile(`(?i)^(?:settled on|opted for|do|use|add|modify|alter|mutate|overwrite|activate|write|run|deploy|commit|keep|put|call|store|push|merge|edit|touch|change|log|mock|test|build|ship|release|install|import|target|pin|pinned|lock|locked|vendored|wrap|move|moved|switch|switched|replace|replaced|migrate|migrated|drop|dropped|remove|removed|rename|renamed|convert|converted|split|made|make|set up|set|kept|chose|picked|went with|go with|stick with|adopt|adopted|switching|moving|migrating|dropping|replacing|going with|send|sent|return|returned|cache|cached|serve|served|generate|generated|capped|cap|limit|limited|raised|raise|lowered|lower|increased|increase|decreased|decrease|stored|used|added|wrote|ran|upgraded|upgrade|downgraded|bumped|bump|enable|enabled|disable|disabled|turned off|turned on|stop|stopped|start|started|avoid|prefer|need|sign|signed|issue|issued|verify|host|hosted|publish|published|expire|resize|resized|render|rendered|style|styled|validate|validated|parse|parsed|encrypt|encrypted|hash|hashed|queue|queued|schedule|scheduled|index|indexed|route|routed|proxy|bundle|bundled|lint|format|formatted|rewrite|rewrote|rotate|rotated|purge|purged|delete|deleted|implement|implemented|revisit|investigate|document|documented|audit|audited|backfill|backfilled|retry|retried|batch|batched)\s+`)
	// copulaRe: a statement whose subject opens it ("Resizing is back …",
	// "Friday deploys are fine …", "Minimum Python is 3.12 …").
	copulaRe = regexp.MustCompile(`(?i)^((?:[A-Za-z][\w./'-]*\s+){0,2}?[A-Za-z][\w./'-]*)\s+(?:now\s+)?(?:(?:only|ever|always|all|still)\s+){0,2}(?:is|are|was|were|must|should|will|stays?|lives?|goes|go|runs?|sits?|belongs?|uses?|needs?|has|have|gets?|comes?|reads|returns|moves?|starts?|begins?|isn't|aren't|wasn't|weren't|hasn't|haven't|doesn't|don't)\b`)
)

// clauseSubject is the subject a clause names itself: what follows the
// verb of an instruction or a change ("Don't add new runtime
// dependencies …" → "new runtime dependencies"; "Moved resizing to a
// Lambda" → "resizing"), the verb itself when nothing does ("Never deploy
// on Fridays" → "deploy"), or what opens a statement about it.
func clauseSubject(text string) (string, bool) {
	t := strings.TrimSpace(leadWordsRe.ReplaceAllString(text, ""))
	if loc := clauseVerbRe.FindStringIndex(t); loc != nil {
		verb := strings.ToLower(strings.TrimSpace(t[:loc[1]]))
		rest := strings.TrimSpace(t[loc[1]:])
		rest = strings.TrimSpace(orVerbRe.ReplaceAllString(rest, "")) // "Never UPDATE or DELETE a posted entry"
		rest = strings.TrimSpace(toLeadRe.ReplaceAllString(rest, "")) // "Switch to on-demand initialization"
		rest = strings.TrimSpace(detLeadRe.ReplaceAllString(rest, ""))
		if sm := anythingUnderRe.FindStringSubmatch(rest); sm != nil {
			// "Don't touch anything under src/legacy": the place is the
			// subject, not the verb.
			return strings.ToLower(strings.Trim(sm[1], ".,;:")), true
		}
		if sm := useForRe.FindStringSubmatch(rest); sm != nil && (choiceVerbs[verb] || verb == "use" || verb == "used") && len(toolsIn(sm[1])) == 0 && !negative(text) && !standingRe.MatchString(text) {
			// "Let's use Arena for the queue dashboard": what it is used
			// for, when the tool names no category of its own.
			if s := nounPhrase(sm[2]); s != "" && (!genericHeads[head(s)] || len(strings.Fields(s)) > 1) && !quantRe.MatchString(sm[2]) {
				return s, true
			}
		}
		if s := nounPhrase(allLeadRe.ReplaceAllString(rest, "")); s != "" {
			// "Keep everything compatible with R2021b": what is said of
			// everything.
			// "Replaced the swag comments with …": what was replaced is
			// the old choice, not what the statement is about; "went
			// with temp files" names the choice, not what it is for.
			return s, !replaceVerbs[verb] && !choiceVerbs[verb]
		}
		if !genericVerbs[verb] {
			return verb, false
		}
		return "", false
	}
	if s := copulaSubject(t); s != "" {
		return s, true
	}
	return "", false
}

// useForRe: a tool named, then what it is for ("Arena for the queue
// dashboard").
var useForRe = regexp.MustCompile(`(?i)^([\w.@/+-]+(?: [\w.@/+-]+){0,2}) for (?:the |our |a |an )?((?:[a-z][\w-]*)(?: [\w-]+){0,3})`)

// quantRe: what makes "use X for all Y" a rule about X everywhere.
var quantRe = regexp.MustCompile(`(?i)^(?:all|every|any|each|everything|anything|new)\b`)

// allLeadRe: "everything", "anything" before what is said of it.
var allLeadRe = regexp.MustCompile(`(?i)^(?:everything|anything|all of it|it all)\s+`)

// orVerbRe: a second verb joined to the first ("update or delete …").
var orVerbRe = regexp.MustCompile(`(?i)^(?:or|and|nor) (?:update|delete|edit|change|modify|drop|remove|rename|move|touch|rewrite|overwrite|truncate|insert|alter|push|merge|deploy|run)\s+`)

// noneMayRe: a rule that no X may do something ("No pipeline task may
// run longer than …").
var noneMayRe = regexp.MustCompile(`(?i)^no ([a-z][\w -]{1,30}?) (?:may|can|should|must|will|shall|is allowed to|gets? to|goes|runs?)\b`)

// anythingUnderRe: what a rule covers by place ("anything under
// src/legacy", "any file in migrations/").
var anythingUnderRe = regexp.MustCompile(`(?i)^(?:anything|everything|nothing|any (?:files?|code)|files?|code) (?:under|in|inside|within|below) (?:the )?([\w./-]*[/.][\w./-]*|[\w-]+ (?:folder|directory|dir|package|module))`)

// everyRe: a rule for every thing of a kind ("every Eloquent model
// lists …", "each handler returns …"): the kind, the verb, what follows.
var everyRe = regexp.MustCompile(`(?i)^(?:every|each|all|any) ((?:[a-z][\w-]* ){0,2}?[a-z][\w-]*) ([a-z]+s|must|should|has to|have to|needs to|need to) (?:(?:only|always|never|explicitly|also) )?(.+)`)

// keptInRe: a thing kept or left where it was ("I kept search in
// Postgres", "We leave sessions in Redis"): the thing is the subject.
var keptInRe = regexp.MustCompile(`(?i)^(?:i |we )?(?:kept|keep|left|leave|are keeping|'re keeping) (?:the |our )?([a-z][\w-]*(?: [a-z][\w-]*)?) (?:in|on|inside) `)

// moveLeadRe: a statement that opens with a move of something.
var moveLeadRe = regexp.MustCompile(`(?i)^(?:i |we )?(?:moved|migrated|ported)\s`)

// toLeadRe: the preposition between a verb of change and its object
// ("switch to …", "move over to …").
var toLeadRe = regexp.MustCompile(`(?i)^(?:over )?(?:to|onto|into)\s+`)

// copulaSubject is what a statement about a thing opens with ("Product
// search now runs on …" → "product search"), "" when it opens otherwise.
func copulaSubject(text string) string {
	t := strings.TrimSpace(leadWordsRe.ReplaceAllString(text, ""))
	if sm := forCopulaRe.FindStringSubmatch(t); sm != nil {
		// "Input for the engine viewer is standardised on …": the input.
		if s := nounPhrase(sm[1]); s != "" && !genericHeads[head(s)] {
			return s
		}
	}
	if sm := copulaRe.FindStringSubmatch(t); sm != nil && !determiners[strings.ToLower(lastField(sm[1]))] {
		// Not "Rotate the live Stripe key …": a verb's object is no
		// subject that "lives".
		if s := nounPhrase(strings.TrimSpace(detLeadRe.ReplaceAllString(sm[1], ""))); s != "" && !pronouns[strings.Fields(s)[0]] {
			return s
		}
	}
	return ""
}

// forCopulaRe: a statement about a thing of something ("Input for the
// engine viewer is …", "Retries in the payment client are …").
var forCopulaRe = regexp.MustCompile(`(?i)^([A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?) (?:for|of|in|on) (?:the |our |this |all |every )?[\w .-]{1,30}? (?:is|are|was|were|stays?|goes) `)

// determiners end no noun phrase.
var determiners = map[string]bool{"the": true, "a": true, "an": true, "our": true, "this": true, "that": true, "its": true, "their": true, "your": true, "my": true}

// lastField is the last word of s.
func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// kindHeads name what kind of statement it is, not what it is about
// ("the underlying cause", "the real problem").
var kindHeads = map[string]bool{"cause": true, "issue": true, "problem": true, "bug": true, "reason": true, "fix": true,
	"culprit": true, "error": true, "failure": true, "change": true, "decision": true, "rule": true}

// replaceVerbs name what they take away: their object is the old choice.
var replaceVerbs = map[string]bool{"replace": true, "replaced": true, "drop": true, "dropped": true, "remove": true, "removed": true}

// choiceVerbs name what was chosen: their object is the choice.
var choiceVerbs = map[string]bool{"chose": true, "picked": true, "went with": true, "go with": true, "stick with": true, "adopt": true, "adopted": true, "prefer": true, "settled on": true, "opted for": true}

// frontedTopicRe: a statement that names its subject before it starts
// ("For the rate limits, I moved them …", "As for logging, …").
var frontedTopicRe = regexp.MustCompile(`(?i)^(?:for|as for|as to|regarding|on) (?:the |our |its )?([A-Za-z][\w /-]{1,40}?)(?:,\s|\s+(?:i|we)(?:'ve| have)?\s+(?:went|chose|picked|settled|opted|decided|switched|moved|use[sd]?|kept)\b)`)

// firstClauseCategory is the category of a tool the statement's first
// clause names ("We're moving off Heroku to Fly.io" → "hosting"); a tool
// named in a reason that follows is not what it is about.
func firstClauseCategory(text string) string {
	if m := verbWithRe.FindStringSubmatch(text); m != nil {
		return verbCategories[strings.ToLower(m[1])] // "We format with ruff": the formatter
	}
	first := text
	if i := strings.IndexAny(text, ",;:—"); i > 0 {
		first = text[:i]
	}
	if loc := alternativeRe.FindStringIndex(first); loc != nil {
		first = first[:loc[0]] // "temp-file-and-rename over a lock row in Postgres"
	}
	return categoryIn(first)
}

// actLabelRe: a label that tells what was done to what ("Replaced
// Mosquitto with Redpanda: …"), not what the statement is about; "Switched
// again:" alone still opens what it is about.
var actLabelRe = regexp.MustCompile(`(?i)^(?:replaced|switched|swapped|moved|migrated|dropped|removed|added|changed|went|chose|picked|kept)\b`)

// verbWithRe: a statement that opens on what is done with a tool ("We
// format with ruff", "Every service logs through plat-log"): its subject
// is the tool's job.
var verbWithRe = regexp.MustCompile(`(?i)^(?:we |you |i |(?:every|each|all|our) [\w-]+ )?(?:always |only )?(format|lint|bundle|log|typecheck|type-check)s? (?:\w+ )?(?:with|through|via)\s`)

// verbCategories name the job verbWithRe finds.
var verbCategories = map[string]string{"format": "formatter", "lint": "linter", "bundle": "bundler", "log": "logging", "typecheck": "type checker", "type-check": "type checker"}

// alternativeRe opens what a choice was made over.
var alternativeRe = regexp.MustCompile(`(?i)\s(?:over|instead of|rather than|not)\s`)

// categoryIn is the category of the first tool text names as a word of
// its own: not inside a path, a file name or code ("api/openapi.yaml" is
// no config format, "render(…)" no host), a common English word only
// capitalised ("Fly", "Render").
func categoryIn(text string) string {
	toks := strings.Fields(text)
	for i, tok := range toks {
		if strings.ContainsAny(tok, "/`(") {
			continue
		}
		w := strings.Trim(tok, ",.;:!?\"'")
		if strings.Contains(w, ".") && !categoryDotted[strings.ToLower(w)] {
			continue
		}
		lw := strings.ToLower(w)
		if c, ok := categoryNames[strings.TrimSuffix(lw, "s")]; ok && headAt(toks, i) {
			return c // "No ORMs in this codebase" is about the ORM
		}
		c, ok := categories[lw]
		if !ok || commonWords[lw] && !(w[0] >= 'A' && w[0] <= 'Z') {
			continue
		}
		if i > 0 && i+1 < len(toks) && strings.EqualFold(toks[i-1], "run") && !headAt(toks, i) {
			continue // "run pnpm check": a command, not the package manager
		}
		return c
	}
	return ""
}

// headAt reports whether toks[i] ends its noun phrase: the last word,
// one ending in punctuation, or one a stop word follows ("ORMs in …",
// not "database migrations").
func headAt(toks []string, i int) bool {
	if i == len(toks)-1 || strings.ContainsAny(toks[i][len(toks[i])-1:], ",.;:!?") {
		return true
	}
	next := strings.ToLower(strings.Trim(toks[i+1], ",.;:!?\"'"))
	return phraseStop[next] || pronouns[next]
}

// categoryNames are the categories named by a word of their own ("orm",
// "linter"), singular.
var categoryNames = map[string]string{}

// categoryDotted are tool names with a dot in them.
var categoryDotted = map[string]bool{"fly.io": true, "node.js": true}

// commonWords are tool names that are English words too: they name the
// tool only capitalised.
var commonWords = map[string]bool{"fly": true, "render": true, "echo": true, "express": true, "chi": true, "gin": true, "black": true, "parcel": true, "rollup": true, "railway": true, "bun": true, "matter": true, "arcade": true, "bullet": true, "avian": true, "jolt": true, "havok": true}

// detLeadRe: a determiner opening a noun phrase.
var detLeadRe = regexp.MustCompile(`(?i)^(?:the|a|an|our|its|their|this|that|these|those|every|each|all|any|some|your|my)\s+`)

// genericVerbs say nothing of a subject alone.
var genericVerbs = map[string]bool{"use": true, "make": true, "made": true, "set": true, "change": true, "need": true, "add": true, "used": true}

// labelWords open labels that name no subject ("Rule for this repo:",
// "Found it:", "Note:").
var labelWords = map[string]bool{"rule": true, "found": true, "note": true, "update": true, "change": true, "plan": true, "promise": true, "fixed": true, "done": true, "heads": true, "important": true, "decision": true, "constraint": true}

// lyNouns end in "ly" but are no adverbs.
var lyNouns = map[string]bool{"family": true, "assembly": true, "supply": true, "anomaly": true, "monopoly": true, "butterfly": true}

// pronouns never name a subject.
var pronouns = map[string]bool{"it": true, "this": true, "that": true, "they": true, "them": true, "these": true, "those": true, "we": true, "i": true, "you": true, "there": true, "which": true, "what": true, "here": true,
	"nothing": true, "everything": true, "anything": true, "something": true, "nobody": true, "everyone": true, "anyone": true}

// labelPhrase is the noun phrase a label is: its last three words when
// it is all one phrase ("Lowest supported API level" → "supported api
// level": a participle in a label is an adjective), else nounPhrase.
func labelPhrase(l string) string {
	f := strings.Fields(strings.ToLower(detLeadRe.ReplaceAllString(l, "")))
	for _, w := range f {
		if phraseStop[w] || pronouns[w] || !letterRe.MatchString(w) || strings.ContainsAny(w, "()—") {
			return nounPhrase(l)
		}
	}
	if len(f) > 3 {
		f = f[len(f)-3:]
	}
	if len(f) == 0 || len(f) == 1 && (genericHeads[f[0]] || stopwords[f[0]]) {
		return ""
	}
	return strings.Join(f, " ")
}

// nounPhrase keeps the words of p up to the first that ends a noun
// phrase, lowercased; "" when what is left is too general.
func nounPhrase(p string) string {
	var kept []string
	p = detLeadRe.ReplaceAllString(strings.TrimSpace(p), "")
	for _, w := range strings.Fields(strings.ToLower(p)) {
		if len(w) > 5 && strings.HasSuffix(strings.TrimRight(w, ",.;:!?"), "ly") && !lyNouns[strings.TrimRight(w, ",.;:!?")] {
			if len(kept) == 0 {
				continue // "commit directly to main": the adverb is no subject
			}
			break // "the API docs properly"
		}
		if strings.HasPrefix(w, "(") || strings.HasPrefix(w, "—") || len(kept) == 3 || strings.Contains(w, "://") || !letterRe.MatchString(w) && !(len(kept) == 0 && fieldNumRe.MatchString(w)) {
			break // code, a URL or a pipe ends a name
		}
		end := strings.ContainsAny(w[len(w)-1:], ",.;:!?)")
		w = strings.Trim(w, ",.;:!?'\"()")
		if w == "live" && len(kept) == 0 && !end {
			kept = append(kept, w) // "the live Stripe key": an adjective here
			continue
		}
		if w == "" || phraseStop[w] || pronouns[w] || isHash(w) || len(kept) > 0 && (countWords[w] != "" || w == "twice" || w == "once" || w == "half") {
			break // "Commit e41c9a2 added …": a hash names no subject; "the chamber temperature four times a minute": a count ends it
		}
		if len(kept) > 0 && len(w) >= 4 && strings.HasSuffix(w, "ed") && !edNouns[w] {
			break // "the MLflow box died twice": a verb ends the phrase
		}
		if owner, ok := strings.CutSuffix(w, "'s"); ok && !end && owner != "" {
			kept = kept[:0] // "botocore's retry mode": the owner is not the head
			continue
		}
		kept = append(kept, w)
		if end {
			break
		}
	}
	for len(kept) > 0 && determiners[kept[len(kept)-1]] {
		kept = kept[:len(kept)-1] // "refund the 17 …": a phrase does not end on "the"
	}
	if len(kept) == 0 || len(kept) == 1 && (genericHeads[kept[0]] || stopwords[kept[0]]) {
		return ""
	}
	return strings.Join(kept, " ")
}

// fieldNumRe: a number that names a thing ("the 001 control number",
// "the 404 page").
var fieldNumRe = regexp.MustCompile(`^\d{3,4}$`)

// edNouns end in "ed" but are no verbs.
var edNouns = map[string]bool{"seed": true, "speed": true, "feed": true, "need": true, "embed": true, "shared": true, "signed": true, "nested": true, "cached": true, "hashed": true, "based": true}

// sameTopic reports whether two subjects are one: equal, or the same head
// noun (the last word, stemmed), unless that noun is too general.
func sameTopic(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	a, b = aliasOf(a), aliasOf(b) // "crash reporting" is error tracking
	if a == b {
		return true
	}
	ha, hb := head(a), head(b)
	if ha == hb && !genericHeads[ha] {
		return true
	}
	// "settings persistence" and "app settings": what is persisted is
	// the subject.
	if oa, ob := ownerOfProcess(a), ownerOfProcess(b); oa != "" && (oa == hb || oa == ob) || ob != "" && ob == ha {
		return true
	}
	// "hilt" and "koin 3.5": two choices of one category, or a choice and
	// its category ("dependency injection").
	if ca, cb := categoryOf(a), categoryOf(b); ca != "" && (ca == cb || ca == b) || cb != "" && cb == a {
		return true
	}
	// "state" and "state management": one subject, one word naming it.
	fa, fb := strings.Fields(a), strings.Fields(b)
	switch {
	case len(fa) == 1 && len(fb) > 1:
		return stem(fa[0]) == stem(fb[0]) && !genericHeads[fa[0]]
	case len(fb) == 1 && len(fa) > 1:
		return stem(fb[0]) == stem(fa[0]) && !genericHeads[fb[0]]
	}
	return false
}

// processHeads name what is done to a thing, which a subject names
// before them ("settings persistence").
var processHeads = map[string]bool{"persistence": true, "storage": true, "handling": true, "management": true, "format": true,
	"strategy": true, "setup": true, "pipeline": true, "layer": true}

// ownerOfProcess is the thing a subject ending in a process names
// ("settings persistence" → "setting"), "" otherwise.
func ownerOfProcess(s string) string {
	f := strings.Fields(s)
	if len(f) < 2 || !processHeads[stem(f[len(f)-1])] && !processHeads[f[len(f)-1]] {
		return ""
	}
	if o := stem(f[len(f)-2]); !genericHeads[o] {
		return o
	}
	return ""
}

// categoryOf is the category of the tool a subject opens with
// ("koin 3.5" → "dependency injection"), "" when it names none.
func categoryOf(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return categories[strings.ToLower(f[0])]
}

func head(s string) string {
	f := strings.Fields(s)
	h := stem(f[len(f)-1])
	if w, ok := sameNoun[h]; ok {
		return w
	}
	return h
}

// sameNoun maps a noun's other spellings and short forms, stemmed, to one.
var sameNoun = map[string]string{"mail": "email", "e-mail": "email", "db": "database", "configuration": "config",
	"repository": "repo", "authentication": "auth", "documentation": "doc", "formatter": "format", "formatting": "format"}

// Options offered, then one chosen in the next prompt.
var (
	// askChoiceRe: the answer's closing question asks the user to choose.
	askChoiceRe = regexp.MustCompile(`(?i)\b(?:which (?:one\b|option\b|approach\b|way\b|of these\b|behaviou?r\b|do you|would you|should|you'd)|which [\w-]+(?: [\w-]+)? (?:should|do you|would you|shall)\b|which\b.*\b(?:prefer|want|like|pick|choose)|(?:do|would) you (?:prefer|want|like)|should (?:i|we) (?:use|go|pick)|pick one|your (?:call|preference|pick|choice)|let me know which|or\b[^?]*\?|^thoughts\?|^what do you think\?|^(?:any )?preference\?|^which(?: one)?\?$)`)
	// waysRe: the label before the options names their subject.
	waysRe = regexp.MustCompile(`(?i)^(?:(?:two|three|four|a few|several|some|\d) )?(?:ways|options|approaches|choices|alternatives|possibilities|candidates)(?: (?:to|for|of))?\s+(.*)$`)
	// ordinalRe: "option 2", "the second one", "#2", "2".
	ordinalRe   = regexp.MustCompile(`(?i)^(?:let'?s (?:go with |do |use )?|go with |i'?d (?:go with|pick|take) |pick |use |take )?(?:the |your |my )?(?:option |approach |choice |number |#)?(1st|2nd|3rd|4th|1|2|3|4|one|two|three|four|first|second|third|fourth|former|latter)\b(?:\s+(?:one|option|approach))?`)
	storeVerbRe = regexp.MustCompile(`(?i)^(?:to |for )?(?:store|storing|keep|keeping|handle|handling|do|doing|implement|implementing|structure|structuring|write|writing|run|running|manage|managing|organize|organizing|format|formatting|represent|representing|pick|choose|choosing|set up|setting up|deploy|deploying)\s+`)
)

// option is one of the choices an answer offers.
type option struct {
	name string // what the user would call it ("TOML")
	text string
}

// prosRe opens what an option's text says for or against it, after what
// it does.
var prosRe = regexp.MustCompile(`\s[—–]\s|\s-\s|[;:]\s|\.\s|\s\(`)

// what is what the option does, as offered: its text from its name up to
// its pros and cons ("Keep the watermark, route late records to a side
// output, and have a nightly Spark job merge them" — not "dashboards stay
// fresh"), or its name when the text says no more or far more.
func (o option) what() string {
	t := strings.TrimSpace(cleanInline(o.text))
	i := strings.Index(strings.ToLower(t), strings.ToLower(o.name))
	if i < 0 || i > 16 {
		return o.name
	}
	t = t[i:]
	if loc := prosRe.FindStringIndex(t); loc != nil {
		t = t[:loc[0]]
	}
	t = strings.TrimRight(t, " ,.;:")
	if len(t) <= len(o.name) || len(t) > 160 {
		return o.name
	}
	return t
}

// FromChoice reads a prompt that picks one of the options Claude's
// previous answer offered ("Two ways to store the config: 1. TOML … 2.
// YAML … Which do you want?" — "TOML, comments matter to us") as one
// decision of the user's: its subject, the choice, what was rejected and
// the reason given ("Config: TOML, not YAML — comments matter to us").
func FromChoice(prevPrompt, prevAnswer, prompt string) (Memory, bool) {
	p := strings.TrimSpace(cleanInline(bound(prompt)))
	if m := leadPickRe.FindString(strings.TrimSpace(prompt)); m != "" {
		// "3. the dead-letter queue matters more": the number is the pick,
		// not a list's marker.
		p = strings.TrimSpace(m) + " " + p
	}
	if prevAnswer == "" || p == "" || len(p) > 400 || isQuestion(p) {
		return Memory{}, false
	}
	prev := bound(prevAnswer)
	subject, opts := offered(prev, units(prev))
	if len(opts) < 2 {
		return Memory{}, false
	}
	if w := userAskedWhich(prevPrompt); w != "" {
		subject = w // "… Which generator?": what the user asked to choose
	}
	if asked := askedSubject(prevPrompt); subject == "" || asked != subject && strings.HasSuffix(asked, " "+subject) {
		// "Which broker should I set up?" after "need a message broker
		// that scales": the prompt's fuller name for the same thing.
		subject = asked
	}
	pick, rest := chosen(p, opts)
	if pick < 0 && (takeAdviceRe.MatchString(p) || goAheadRe.MatchString(p)) {
		// "take your recommendation", "go ahead" after "Want me to
		// proceed with Varnish?": the option Claude leaned towards.
		pick, rest = recommended(prev, opts), ""
	}
	if pick < 0 && len(opts) == 2 {
		// "not rabbit, the other one": of two, the one not turned down.
		if m := otherOneRe.FindStringSubmatch(p); m != nil {
			for i, o := range opts {
				if strings.HasPrefix(strings.ToLower(o.name), strings.ToLower(m[1])) {
					pick = 1 - i
				}
			}
		}
	}
	if pick < 0 {
		return ownChoice(p, subject, opts, prompt)
	}
	var rejected []string
	for i, o := range opts {
		if i != pick {
			rejected = append(rejected, midSentence(o.name))
		}
	}
	text := opts[pick].what() + ", not " + strings.Join(rejected, " or ")
	if reason := strings.TrimSpace(strings.Trim(rest, ",.;:—–- ")); len(reason) >= 3 && !assentRe.MatchString(reason) {
		text += " — " + reason
	}
	return choiceMemory(subject, text, prompt)
}

// choiceMemory is the user's decision of a dialogue: text, after its
// subject when the conversation named one, read from evidence (the
// prompt that chose).
func choiceMemory(subject, text, evidence string) (Memory, bool) {
	if subject != "" {
		text = capitalize1(subject) + ": " + text
	}
	m, ok := newMemory(KindDecision, text, map[string]bool{})
	if !ok {
		return Memory{}, false
	}
	m.Subject = subject
	if m.Subject == "" {
		m.Subject = subjectOf(m, "")
	}
	m.Evidence = evidence
	return m, true
}

// midSentence is an option's name as it reads inside a sentence: an
// article that opened it as a heading lower-cased ("A const table in
// flash" → "a const table in flash"), a name left as written.
func midSentence(name string) string {
	for _, a := range []string{"A ", "An ", "The ", "One "} {
		if rest, ok := strings.CutPrefix(name, a); ok {
			return strings.ToLower(a) + rest
		}
	}
	return name
}

// rejectAllRe: a reply that turns down every option offered ("none of
// these tbh.", "all overkill, it's me on one laptop.", "neither —").
var rejectAllRe = regexp.MustCompile(`(?i)^(?:(?:hmm+|nah|no|honestly|tbh|ok)[,.]?\s+)?(?:none of (?:these|them|those|the above|the (?:three|two|four) of them|the options)|neither(?: of (?:them|these|those))?|all (?:of (?:them|these) )?(?:are |seem |sound )?(?:overkill|too \w+|wrong|bad|heavy)|not any of (?:them|these))\b`)

// ownChoice reads a reply that turns down every option and says what to
// do instead ("none of these tbh. … use atlas with a declarative
// schema.hcl"): the user's decision, over all of them.
func ownChoice(p, subject string, opts []option, evidence string) (Memory, bool) {
	loc := rejectAllRe.FindStringIndex(p)
	if loc == nil {
		return Memory{}, false
	}
	rest := strings.TrimSpace(p[loc[1]:])
	// What the turning down says of them ("tbh", ", it's me on one
	// laptop.") ends at its sentence; the choice follows.
	if i := strings.IndexAny(rest, ".;"); i >= 0 && i+1 < len(rest) {
		rest = strings.TrimSpace(rest[i+1:])
	}
	rest = strings.TrimSpace(strings.TrimLeft(rest, ",:—– "))
	if len(strings.Fields(rest)) < 2 || isQuestion(rest) || deferRe.MatchString(rest) {
		return Memory{}, false
	}
	var names []string
	for _, o := range opts {
		names = append(names, midSentence(o.name))
	}
	return choiceMemory(subject, rest+" — not "+strings.Join(names, ", "), evidence)
}

// deferRe: a reply that puts the choice off ("let me think", "later").
var deferRe = regexp.MustCompile(`(?i)^(?:let me (?:think|check|ask)|i'?ll (?:think|get back|check)|later\b|not sure|dunno|no idea)`)

// userWhichRe: a prompt's "Which X?", or "how should … get X?".
var (
	// bareWhichRe: a sentence that only asks which X ("Which generator?",
	// "which driver").
	bareWhichRe = regexp.MustCompile(`(?i)^(?:which|what) ([a-z][\w-]{1,29}(?: [a-z][\w-]{1,29})?)\s*\??$`)
	// howGetRe: "how should … get X?".
	howGetRe = regexp.MustCompile(`(?i)\bhow (?:should|do|can|will|would) (?:the |our |my )?(?:[\w.-]+ ){1,5}?(?:get|receive|pick up|install|apply) ([a-z][\w -]{2,40}?)(?: in the| in| on| from| over| at)?(?: the field| production| prod)?\s*\?`)
)

// userAskedWhich is what a prompt asked Claude to choose by name ("…
// Which generator?", "how should the nodes get firmware updates?"), ""
// when it did not.
func userAskedWhich(prompt string) string {
	for _, s := range promptSentences(strings.Join(strings.Fields(prompt), " ")) {
		for _, re := range []*regexp.Regexp{bareWhichRe, howGetRe} {
			if m := re.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
				if w := strings.ToLower(m[1]); !genericHeads[head(w)] && !choiceNouns[w] && !pronouns[w] {
					return nounPhrase(w)
				}
			}
		}
	}
	return ""
}

// takeAdviceRe: a pick of what Claude recommended.
var takeAdviceRe = regexp.MustCompile(`(?i)^(?:ok(?:ay)?,? |sure,? |yes,? )?(?:(?:let'?s |i'?ll |we'?ll )?(?:take|go with|follow|do|use) (?:your|the) (?:recommendation|recommended one|suggestion|suggested one|pick|advice)|whatever you (?:recommend|suggest)(?:ed)?|as you (?:recommend|suggest)(?:ed)?|your recommendation)\b`)

// recommendRe: the sentence of an answer that recommends an option.
var recommendRe = regexp.MustCompile(`(?i)\b(?:i'?d (?:lean|go|pick|choose|recommend|suggest)|i (?:recommend|suggest|lean)|my (?:recommendation|pick|vote) (?:is|would be)|recommended:)|^(?:\*\*)?(?:my )?recommendation(?:\*\*)?\s*:|\b(?:want|shall|should) (?:me to|i|we) (?:proceed|go ahead|go|set up|start|continue) (?:with|on)\b`)

// recommended is the option prev's recommending sentence names first, -1
// when none does.
func recommended(prev string, opts []option) int {
	for _, u := range units(prev) {
		t := cleanInline(u.text)
		loc := recommendRe.FindStringIndex(t)
		if loc == nil {
			continue
		}
		best, at := -1, len(t)+1
		lt := strings.ToLower(t[loc[1]:])
		for i, o := range opts {
			// "TanStack Query for Solid" recommended as "TanStack Query".
			f := strings.Fields(strings.ToLower(o.name))
			for _, n := range []string{strings.Join(f, " "), strings.Join(f[:min(2, len(f))], " ")} {
				if j := indexWord(lt, n); n != "" && len(n) >= 3 && j >= 0 && j < at {
					best, at = i, j
				}
			}
		}
		if best >= 0 {
			return best
		}
	}
	return -1
}

// comparativeBase is the adjective a comparative is of ("cheaper" →
// "cheap", "simpler" → "simple", "easier" → "easy"), "" for another word.
func comparativeBase(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ier"):
		return w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ler"):
		return w[:len(w)-1] // "simpler"
	case len(w) > 5 && strings.HasSuffix(w, "er") && w[len(w)-3] == w[len(w)-4]:
		return w[:len(w)-3] // "bigger"
	case len(w) > 4 && strings.HasSuffix(w, "er"):
		return w[:len(w)-2]
	}
	return ""
}

// goAheadRe: a bare yes to a proposal ("go ahead", "yes please, do
// it", "sounds good").
var goAheadRe = regexp.MustCompile(`(?i)^(?:(?:ok(?:ay)?|sure|yes|yep|yeah|sounds good|perfect|great|please)[,.!]*\s*)*(?:go ahead|do it|go for it|proceed|please do|ship it|sounds good|yes|yep|yeah)(?: please)?[.!]*$`)

// otherOneRe: the other of two options, the one named turned down ("not
// rabbit, the other one").
var otherOneRe = regexp.MustCompile(`(?i)^(?:no,? )?not (?:the )?([\w.+-]{3,30})\b[^.]{0,20}\b(?:the )?other (?:one|option)\b`)

// assentRe: what follows a pick that gives no reason ("is fine", "please").
var assentRe = regexp.MustCompile(`(?i)^(?:(?:is|sounds|seems|looks) (?:fine|good|great|ok(?:ay)?|right|best)|works(?: for me)?|please|pls|thanks|ok(?:ay)?|go(?: ahead)?|do it|one|option|that one|then)[.!]*$`)

// askedSubject is the subject of the user's question the options
// answered: what it asks to add, choose or do ("We're about to add public
// IDs to orders…" → "public ids"; "How do we version the orders API?").
// askedPronounRe: a question about what the sentence before named
// ("how should we handle them?").
var askedPronounRe = regexp.MustCompile(`(?i)\b(?:handle|fix|deal with|solve|approach|treat|store|do with|do about|manage|process) (?:them|it|this|these|those)\b`)

// troubleRe: a report that opens on what is in trouble ("ladder-export
// dies on the bottling line project", "ISS passes keep losing the last
// 20 seconds", "Warpstones wont load on paper 1.21"), after who reports
// it ("teachers say …").
var (
	troubleRe       = regexp.MustCompile(`(?i)^(?:the |our |my )?((?:[\w.-]+ ){0,2}?[\w.-]+) (?:(?:dies|died|crashes|crashed|fails|failed|breaks|broke|hangs|hung|errors|leaks|ooms|stalls|disappears?|vanish(?:es)?|freezes|froze)\b|(?:keeps?|kept|started|starts) (?:failing|crashing|dying|losing|dropping|timing out|hanging|leaking|erroring|breaking|logging)\b|(?:is|are) (?:failing|broken|crashing|hanging|leaking|timing out|off by|flaky|slow)\b|(?:won'?t|wont|doesn'?t|don'?t|can'?t|cannot) (?:load|start|build|compile|boot|connect|render|save|sync|run|work|open)\b|times out\b|takes \d+ ?(?:min|mins|minutes|s|sec|seconds|hours?|h)\b)`)
	troubleReportRe = regexp.MustCompile(`(?i)^(?:[\w ]{1,20} (?:says?|said|report(?:s|ed)?|tell me|told me) (?:that )?)`)
)

// commandWords open a command line, not a thing ("mvn package -Dnative
// fails"); vagueTrouble names no part of the project ("the game
// crashes").
var (
	commandWords = map[string]bool{"mvn": true, "cargo": true, "npm": true, "pnpm": true, "yarn": true, "go": true, "make": true, "docker": true,
		"gradle": true, "pip": true, "bundle": true, "mix": true, "dotnet": true, "kubectl": true, "terraform": true, "tofu": true, "helm": true}
	vagueTrouble = map[string]bool{"game": true, "it": true, "everything": true, "site": true, "website": true, "project": true, "thing": true, "stuff": true}
)

// troubleSubject is what a prompt reports in trouble, "" when it opens on
// no such report: the subject a root cause and its fix are about.
func troubleSubject(p string) string {
	for _, s := range promptSentences(p) {
		t := strings.TrimSpace(troubleReportRe.ReplaceAllString(strings.TrimSpace(s), ""))
		if isRequest(t) || clauseVerbRe.MatchString(t) {
			continue // "Look at the failing e2e run": a task
		}
		if m := troubleRe.FindStringSubmatch(t); m != nil {
			if n := nounPhrase(m[1]); named(n) && !stopwords[strings.Fields(n)[0]] &&
				!commandWords[strings.Fields(n)[0]] && !strings.Contains(n, " -") && !vagueTrouble[n] {
				return n
			}
		}
	}
	return ""
}

// askedHowRe: how something is to be done ("how to install quillctl",
// "how should we version the API").
var askedHowRe = regexp.MustCompile(`(?i)(?:\bhow (?:to|do (?:i|we|you|they)|can (?:i|we|you|they|users?)|should (?:i|we|the [\w.-]+|[\w.-]+))|\b(?:best|right|cleanest|simplest|easiest|proper) way to) ([a-z]{3,}) (.+)$`)

// named reports whether noun phrase n names a thing: not empty, not a
// general head alone, not a pronoun.
func named(n string) bool {
	return n != "" && !genericHeads[head(n)] && !pronouns[strings.Fields(n)[0]]
}

// openingSubject is what a statement opens on, when it opens on a named
// thing rather than a verb or a task ("late events from the mobile SDK
// are getting dropped" → "late events").
func openingSubject(s string) string {
	t := strings.TrimSpace(detLeadRe.ReplaceAllString(strings.TrimSpace(s), ""))
	if n := nounPhrase(t); named(n) && !clauseVerbRe.MatchString(t) && !taskVerbRe.MatchString(t) {
		return n
	}
	return ""
}

// troubleWithRe: a trouble told with what it is with ("the actual bug
// with the eod date", "what's wrong with the importer").
var troubleWithRe = regexp.MustCompile(`(?i)\b(?:bug|problem|issue|wrong|matter|deal|trouble|fault) (?:with|in) (?:the |our |this |that )?(.+)$`)

func askedSubject(prompt string) string {
	ss := promptSentences(strings.Join(strings.Fields(prompt), " "))
	// What a sentence asks for or says is needed, in any sentence, before
	// what the first sentence reports ("prometheus on the ops cluster
	// OOMs weekly. need long term storage that scales. options?").
	for _, s := range ss {
		// "what should we use for background jobs", "How should config be
		// loaded?", "where do the docs live", "pick a charting lib for
		// the dashboard", "state management for the svelte app?": what
		// the question names as the thing to settle.
		t := strings.TrimSpace(s)
		if _, after, ok := strings.Cut(t, ": "); ok && askedThingRe.MatchString(after) {
			t = after // "next piece of the lightwall fpga: where do the frames live?"
		}
		if loc := askedThingRe.FindStringSubmatchIndex(t); loc != nil && !strings.Contains(t[loc[1]:], " and ") {
			// Not "Pick a job queue for the notifier and enqueue the welcome
			// email": a second task makes the first no subject of all.
			m := submatches(t, loc)
			if n := nounPhrase(m[1] + m[2] + m[3] + m[4] + m[5]); n != "" && (!genericHeads[head(n)] || len(strings.Fields(n)) > 1) && !pronouns[strings.Fields(n)[0]] {
				return n
			}
		}
	}
	for _, s := range ss {
		// "tidewatch needs the user's api key stored somewhere. where":
		// what is to be put somewhere.
		if m := storedSomewhereRe.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
			if n := nounPhrase(m[1]); n != "" && !genericHeads[head(n)] && !pronouns[strings.Fields(n)[0]] {
				return n
			}
		}
	}
	if len(ss) > 0 {
		// "FOV for the roguelike (c++, 80x50 maps). monsters should …": a
		// prompt that opens on what it is about, for what.
		if m := fragmentForRe.FindStringSubmatch(strings.TrimSpace(ss[0])); m != nil && !clauseVerbRe.MatchString(m[1]+" ") && !taskVerbRe.MatchString(m[1]) {
			if n := nounPhrase(m[1]); n != "" && !genericHeads[head(n)] && !pronouns[strings.Fields(n)[0]] {
				return n
			}
		}
	}
	for i, s := range ss {
		t := strings.TrimSpace(s)
		if i > 0 && isQuestion(t) && askedPronounRe.MatchString(t) {
			// "late events from the mobile SDK are getting dropped … how
			// should we handle them?": what the sentence before opens on.
			if n := openingSubject(ss[i-1]); n != "" {
				return n
			}
		}
		if m := askedHowRe.FindStringSubmatch(t); m != nil && !genericVerbs[strings.ToLower(m[1])] {
			// "users keep asking how to install quillctl": what is to be
			// done, to what.
			obj := strings.TrimSpace(detLeadRe.ReplaceAllString(m[2], ""))
			if rest, ok := cutPrep(obj); ok {
				// "how should the workers hear about new jobs?": what they
				// hear about.
				if n := nounPhrase(detLeadRe.ReplaceAllString(rest, "")); n != "" && (!genericHeads[head(n)] || len(strings.Fields(n)) > 1) && !pronouns[strings.Fields(n)[0]] {
					return n
				}
			}
			if f := strings.Fields(obj); len(f) > 0 && pronouns[strings.ToLower(strings.Trim(f[0], ",.;:!?"))] {
				// "Invoices need to be PDFs now. How should we generate
				// them?": the verb, and what the sentence before opens on.
				if i > 0 {
					if n := openingSubject(ss[i-1]); n != "" {
						return strings.ToLower(m[1]) + " " + n
					}
				}
				return strings.ToLower(m[1]) // "what's the best way to sync them"
			}
			if n := nounPhrase(obj); n != "" {
				return strings.ToLower(m[1]) + " " + n
			}
			return strings.ToLower(m[1]) // "how should slurm prioritise jobs?": the jobs are any
		}
		if m := troubleWithRe.FindStringSubmatch(t); m != nil {
			// "so whats the actual bug with the eod date": what the
			// trouble is with.
			if n := nounPhrase(m[1]); named(n) {
				return n
			}
		}
		// "Where should the CLI keep its config?": what the question ends
		// on is what it asks about, not who does it.
		if m := bareWhichRe.FindStringSubmatch(t); m != nil {
			if n := nounPhrase(m[1]); n != "" {
				return n // "… need to move it to a queue. which driver"
			}
		}
		if m := askedObjectRe.FindStringSubmatch(t); m != nil {
			if n := nounPhrase(strings.Join(m[1:], "")); n != "" {
				return n
			}
		}
		if i := strings.Index(strings.ToLower(t), " needs "); i >= 0 {
			// "The reading app needs offline storage for …": what it needs.
			if n := nounPhrase(t[i+7:]); n != "" && !genericHeads[head(n)] {
				return n
			}
		}
		if m := needLeadRe.FindStringIndex(t); m != nil {
			// "want automated a11y checks in CI": a general head named by
			// what qualifies it is specific enough.
			if n := nounPhrase(t[m[1]:]); n != "" && (!genericHeads[head(n)] || len(strings.Fields(n)) > 1) {
				return n
			}
		}
	}
	for _, s := range ss {
		t := strings.TrimSpace(s)
		if i := strings.Index(strings.ToLower(t), " add "); i >= 0 {
			if n := nounPhrase(t[i+5:]); n != "" {
				return n
			}
		}
		if sub, _ := clauseSubject(t); sub != "" && !genericHeads[sub] && !(clauseVerbRe.MatchString(sub+" ") && !strings.Contains(sub, " ")) {
			return sub // a noun phrase, not the verb alone ("We dropped 3.9 support")
		}
		for _, sm := range detRe.FindAllStringSubmatch(t, 4) {
			if n := nounPhrase(sm[1]); n != "" {
				return n
			}
		}
	}
	return ""
}

// askedObjectRe: a question that ends on its object ("… keep its
// config?", "How do we version the orders API?").
// needLeadRe: a sentence that opens on what is needed ("need long term
// storage that scales", "We need a queue for …").
var needLeadRe = regexp.MustCompile(`(?i)^(?:(?:we |i )?(?:really |still |now )?(?:need|want|would like)|(?:we|i)'d (?:really )?like) (?:a |an |some |the |to pick (?:a |an )?|to (?:add|have|get|set up) (?:a |an |some |the )?)?`)

var askedObjectRe = regexp.MustCompile(`(?i)^(?:where|how)\s+(?:should|do|does|can|could|will|would|shall)\s+(?:we|i|you)\s+\w+\s+([\w -]{2,40}?)\s*\?$|^(?:where|how)\s+(?:should|do|does|can|could|will|would|shall)\s+(?:the |our |this )?[\w -]{1,30}?\s+(?:store|keep|put|save|persist|cache|host|run|deploy|send|log|queue|schedule)\s+(?:its |their |the |our )?([\w -]{2,40}?)\s*\??$|^(?:which|what)\s+([\w-]{2,30}(?: [\w-]{2,30})?)\s+(?:do|does|should|will|shall|can|could|would)\s+(?:we|i|you|the|our|this|my|its)\b|^(?:where|how|what|which)\b.*\s(?:its|the|our|their)\s+([\w -]{2,40}?)\s*\?$`)

func capitalize1(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// offered finds the options an answer ends by asking to choose among, and
// their subject: list items (or "X or Y" in the question) before a
// closing question that asks for a choice.
// us is units(answer), read by the caller once; offered only reads it.
// closingAsk is the index of the unit among the last two of us that asks
// the user to choose ("Which do you want?", "Thoughts?", "Let me know
// which"), -1 when none does.
func closingAsk(us []unit) int {
	for i := len(us) - 1; i >= 0 && i >= len(us)-2; i-- {
		t := strings.TrimSpace(cleanInline(us[i].text))
		if isQuestion(t) && askChoiceRe.MatchString(t) || closingAskRe.MatchString(t) {
			return i
		}
	}
	return -1
}

// AsksToChoose reports whether answer closes by asking the user to
// choose, however its options are laid out: the next prompt may be a
// pick.
func AsksToChoose(answer string) bool {
	answer = bound(answer)
	return asksToChoose(answer) && closingAsk(units(answer)) >= 0
}

func offered(answer string, us []unit) (subject string, opts []option) {
	if len(us) == 0 {
		return "", nil
	}
	q := closingAsk(us)
	if q < 0 {
		if subject, opts = proseOffered(us); len(opts) >= 2 {
			return subject, opts
		}
		if opts = labelledOptions(us); len(opts) >= 2 {
			return "", opts
		}
		if n := len(us); isQuestion(strings.TrimSpace(cleanInline(us[n-1].text))) {
			// "- `Oban` — … - `Exq` — … I'd go with Oban. Want me to set
			// it up?": options named line by line, then a question; or a
			// recommendation and its alternative, then "proceed with …?".
			if opts = ledOptions(us[:n-1]); len(opts) >= 2 {
				return "", opts
			}
			return "", adviceOptions(us[:n-1])
		}
		return "", nil
	}
	// The last list before the question.
	end := q - 1
	for end >= 0 && !us[end].item {
		end--
	}
	if end >= 0 {
		list := us[end].list
		start := end
		for start > 0 && us[start-1].item && us[start-1].list == list {
			start--
		}
		for _, u := range us[start : end+1] {
			if u.nested {
				continue // "   - Pros: fast": about the option above, no option
			}
			if n := optionName(u.text); n != "" {
				opts = append(opts, option{name: n, text: u.text})
			}
		}
		subject = waysSubject(us[start].label)
	}
	qt := strings.TrimSpace(cleanInline(us[q].text))
	last := us[max(0, q-3):q]
	// The shapes options come in, tried in turn until one finds two.
	for _, find := range []func() []option{
		func() []option { return headedOptions(us[:q]) },
		func() []option { return tableOptions(answer) },
		func() []option { return orOptions(qt) },
		func() []option { return eitherOptions(last) },
		func() []option {
			// "One way is …", "Another is …", "The third option is …":
			// each opens a paragraph of its own, however long — all of
			// them, when there are more than the last units hold.
			opts := couldOptions(last)
			if more := couldOptions(paragraphLeads(us[:q])); len(more) > len(opts) {
				return more
			}
			return opts
		},
		func() []option { return ledOptions(us[:q]) },
		func() []option { return headingOptions(answer) },
		func() []option { return columnOptions(answer) },
		func() []option { return labelOrOptions(us[:q]) },
		func() []option { return adviceOptions(us[:q]) },
		func() []option { return inlineNumberedOptions(us[max(0, q-2) : q+1]) },
		func() []option { return keycapOptions(answer) },
	} {
		if len(opts) >= 2 {
			break
		}
		opts = find()
	}
	if subject == "" {
		subject = questionSubject(qt)
	}
	for i := 0; subject == "" && i < q; i++ {
		// "Before I build it — where should the cache live?"
		if t := strings.TrimSpace(cleanInline(us[i].text)); isQuestion(t) {
			subject = questionSubject(t)
		}
	}
	for _, o := range opts {
		// The category of the first option that names one ("Redpanda"
		// after "a bigger Kafka partition count").
		if c, ok := categories[strings.ToLower(o.name)]; ok && subject == "" {
			subject = c
		}
	}
	return subject, opts
}

// labelledOptions are the items of a list under a label that calls them
// options ("Options:", "Two approaches:"), offered without a closing
// question ("A or B would both be fine; C worries me").
func labelledOptions(us []unit) []option {
	var opts []option
	list := -1
	for _, u := range us {
		if !u.item || !optionsLabelRe.MatchString(u.label) || list >= 0 && u.list != list {
			continue
		}
		list = u.list
		if n := optionName(u.text); n != "" {
			opts = append(opts, option{name: n, text: u.text})
		}
	}
	if len(opts) < 2 {
		return nil
	}
	return opts
}

// optionsLabelRe: a label that introduces options.
var optionsLabelRe = regexp.MustCompile(`(?i)^(?:(?:the |a few |some |\w+ )?(?:options|choices|approaches|alternatives|candidates)|(?:possible|realistic) (?:approaches|options|ways))$`)

// headedOptions finds options told as paragraphs that each open on a
// bold heading naming them ("**Option A — `anyhow` everywhere.** Every
// function …").
func headedOptions(us []unit) []option {
	var opts []option
	para := -1
	for _, u := range us {
		if u.item || u.quoted || u.para == para {
			continue
		}
		para = u.para
		if m := optionHeadRe.FindStringSubmatch(strings.TrimSpace(u.text)); m != nil {
			if n := optionName(m[1]); n != "" {
				opts = append(opts, option{name: n, text: u.text})
			}
		}
	}
	return opts
}

// closingAskRe: a closing request to choose told without a question
// mark ("Let me know which you'd like.").
var closingAskRe = regexp.MustCompile(`(?i)^(?:let me know|tell me|just say|say) which\b|^your (?:call|pick|choice)\b`)

// tableOptions finds options offered as the rows of a table, each named
// by its first cell (the header row and the rule under it aside).
func tableOptions(answer string) []option {
	var opts []option
	rows := 0
	blankCorner := false // the header's first cell is empty
	for _, line := range strings.Split(answer, "\n") {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, "|") {
			if rows > 0 {
				break // the first table only
			}
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if rows == 1 && strings.TrimSpace(cells[0]) == "" && len(cells) > 2 {
			blankCorner = true
		}
		if rows > 1 && blankCorner && strings.Trim(cells[0], " :-") != "" && !indexCellRe.MatchString(cells[0]) {
			return nil // "| | zap | zerolog |" over "| allocs | …": the options are the columns
		}
		if rows == 1 || strings.Trim(cells[0], " :-") == "" {
			continue // the header, and the rule under it
		}
		if indexCellRe.MatchString(cells[0]) && len(cells) > 1 {
			cells = cells[1:] // "| 2 | Redux Toolkit | …": the number only counts the rows
		}
		if n := strings.Trim(strings.TrimSpace(cells[0]), "*_`"); n != "" && len(strings.Fields(n)) <= 5 {
			opts = append(opts, option{name: n, text: strings.Join(cells, " — ")})
		}
	}
	return opts
}

// indexCellRe: a table cell that only numbers or letters its row.
var indexCellRe = regexp.MustCompile(`^\s*(?:\d{1,2}|[A-Ha-h])[.)]?\s*$`)

// optionHeadRe: a paragraph's bold heading naming an option ("**Option
// A — anyhow everywhere.**", "**Approach 2: a queue**").
var optionHeadRe = regexp.MustCompile(`(?i)^(?:\*\*|__)(?:(?:option|approach|choice|alternative)\s+(?:[A-H]|\d)\s*[—–:.)-]|(?-i:[A-H])[.)])\s*(.+?)(?:\*\*|__|$)`)

// optionLeadRe: a line that opens with an option's name — bold, in
// backticks, or after "Option B:" / "Plan 2 —" — then what it is.
var optionLeadRe = regexp.MustCompile(`^(?:(?:[-*+•]|\d{1,2}[.)])\s+)?(?:(?:\*\*|__)([^*_]{1,60}?)(?:\*\*|__)|` + "`" + `([^` + "`" + `]{1,40})` + "`" + `\s*(?:[—–:(]|-\s)|((?i:option|approach|plan|choice|alternative)\s+(?:[A-H]|\d))\s*[—–:.)-]\s*(.{2,}))`)

// ledOptions finds options as lines or paragraphs that each open with a
// name ("**Docusaurus** gives us …", "` + "`Oban`" + ` — Postgres-backed",
// "Option B: use Unleash"), two or more in a row, the last such run.
func ledOptions(us []unit) []option {
	var run, last []option
	prev := -2
	for i, u := range us {
		if u.quoted {
			continue
		}
		t := strings.TrimSpace(u.text)
		m := optionLeadRe.FindStringSubmatch(t)
		if m == nil {
			if u.para != us[max(prev, 0)].para {
				// Another paragraph than the last option's: the run ends
				// (the option's own further sentences do not end it).
				if len(run) >= 2 {
					last = run
				}
				run = nil
			}
			continue
		}
		name := strings.TrimSpace(m[1] + m[2])
		if m[3] != "" {
			name = optionName(m[4]) // "Option B: use Unleash, self-hosted" → "use Unleash"
			if n := strings.TrimSpace(optionVerbLeadRe.ReplaceAllString(name, "")); n != "" {
				name = n
			}
		}
		name = strings.Trim(name, ":.— ")
		whole := name
		if short, _, ok := strings.Cut(name, ", "); ok && len(strings.Fields(name)) > 6 {
			// "**Single buffer, SPI writes gated to vertical blanking**":
			// the name, then what it does.
			name = strings.TrimSpace(short)
		}
		if name == "" || len(strings.Fields(name)) > 6 {
			continue
		}
		text := strings.ReplaceAll(cleanInline(t), "`", "")
		if !u.item {
			// "**Docusaurus** gives us versioned docs …": a paragraph
			// about the option, which its bold lead says.
			text = whole
		}
		if m[3] != "" {
			text = cleanInline(t) // "Option B: …" keeps its letter, for a pick that names it
		}
		run = append(run, option{name: name, text: text})
		prev = i
	}
	if len(run) >= 2 {
		last = run
	}
	return last
}

// headingOptions are options told as sibling headings ("### Option 1:
// Redis pub/sub", "## Postgres LISTEN/NOTIFY"), two or more of one level.
func headingOptions(answer string) []option {
	var opts []option
	level := ""
	for _, line := range strings.Split(answer, "\n") {
		m := headingRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		hl := strings.TrimSpace(line)
		lv := hl[:len(hl)-len(strings.TrimLeft(hl, "#"))] // "###": the heading's level
		if level != "" && lv != level {
			continue
		}
		t := strings.TrimSpace(m[1])
		if lm := optionLetterLeadRe.FindStringIndex(t); lm != nil {
			t = strings.TrimSpace(t[lm[1]:])
		}
		n := strings.Trim(optionName(t), "*_`")
		if n == "" || len(strings.Fields(n)) > 5 {
			continue
		}
		level = lv
		opts = append(opts, option{name: n, text: strings.TrimSpace(m[1])})
	}
	if len(opts) < 2 {
		return nil
	}
	return opts
}

// optionLetterLeadRe: "Option 1:", "Approach B —" before an option's name.
var optionLetterLeadRe = regexp.MustCompile(`(?i)^(?:option|approach|plan|choice|alternative)\s+(?:[A-H]|\d)\s*[—–:.)-]\s*`)

// columnOptions are options told as a table's columns ("| | zap |
// zerolog | slog |"): a header whose first cell names no option.
func columnOptions(answer string) []option {
	for _, line := range strings.Split(answer, "\n") {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) < 3 || strings.TrimSpace(cells[0]) != "" {
			return nil
		}
		var opts []option
		for _, c := range cells[1:] {
			n := strings.Trim(strings.TrimSpace(c), "*_`")
			if n == "" || len(strings.Fields(n)) > 4 {
				return nil
			}
			opts = append(opts, option{name: n})
		}
		return opts
	}
	return nil
}

// labelOrRe: options listed in one line after a label ("Two options:
// RabbitMQ or SQS.").
var labelOrRe = regexp.MustCompile(`(?i)\b(?:two|three|a few|several|some|the)? ?(?:options|choices|candidates|contenders)(?: here| I see)?:\s*([^.;?]{1,40}?),? or ([^.;?]{1,40}?)[.;?]`)

func labelOrOptions(us []unit) []option {
	for _, u := range us {
		if m := labelOrRe.FindStringSubmatch(cleanInline(u.text)); m != nil {
			var opts []option
			for _, part := range strings.Split(m[1], ",") {
				if n := strings.TrimSpace(part); n != "" {
					opts = append(opts, option{name: n})
				}
			}
			return append(opts, option{name: strings.TrimSpace(m[2])})
		}
	}
	return nil
}

// adviceRe: a recommendation and its alternative told as labels
// ("Recommendation: cache pages in Varnish …", "Alternative: …").
var adviceRe = regexp.MustCompile(`(?i)^(?:\*\*)?(?:my )?(recommendation|recommended|suggestion|alternative|other option|fallback)(?:\*\*)?\s*:(?:\*\*)?\s*(.+)`)

func adviceOptions(us []unit) []option {
	var opts []option
	for _, u := range us {
		if m := adviceRe.FindStringSubmatch(strings.TrimSpace(u.text)); m != nil {
			opts = append(opts, option{name: optionName(m[2]), text: m[2]})
		}
	}
	if len(opts) < 2 {
		return nil
	}
	return opts
}

// inlineNumberRe: an option numbered inside a sentence ("(1) ship with
// Vector to Loki, or (2) use the OTel collector's filelog receiver").
var inlineNumberRe = regexp.MustCompile(`\((\d|[a-h])\)\s*([^()]+?)\s*(?:,?\s+or\s+|[,;.?]\s*|$)`)

// inlineNumberedOptions are options numbered inside one sentence, in the
// units just before the question or the question itself.
func inlineNumberedOptions(us []unit) []option {
	for _, u := range us {
		ms := inlineNumberRe.FindAllStringSubmatch(cleanInline(u.text), 6)
		if len(ms) < 2 {
			continue
		}
		var opts []option
		for _, m := range ms {
			name := strings.TrimSpace(cutAtFirst(m[2], " — ", " – ", ": ", " because ", " which "))
			if f := strings.Fields(name); len(f) == 0 || len(f) > 8 {
				return nil
			}
			opts = append(opts, option{name: name, text: name})
		}
		return opts
	}
	return nil
}

// keycapRe: a line that opens with a keycap digit ("1️⃣ Sessions in
// Redis").
var keycapRe = regexp.MustCompile(`(?m)^\s*([1-9])\x{FE0F}?\x{20E3}\s*(.+)$`)

// keycapOptions are options numbered with keycap digits, line by line.
func keycapOptions(answer string) []option {
	var opts []option
	for _, m := range keycapRe.FindAllStringSubmatch(answer, 8) {
		if n := optionName(m[2]); n != "" && len(strings.Fields(n)) <= 6 {
			opts = append(opts, option{name: n, text: cleanInline(m[2])})
		}
	}
	if len(opts) < 2 {
		return nil
	}
	return opts
}

// trimDangling is s without the determiners and prepositions it ends on
// once cut ("keep flags in a YAML file in the" → "… in a YAML file").
func trimDangling(s string) string {
	f := strings.Fields(s)
	for len(f) > 1 {
		w := strings.ToLower(f[len(f)-1])
		if !determiners[w] && !phraseStop[w] {
			break
		}
		f = f[:len(f)-1]
	}
	return strings.Join(f, " ")
}

// leadPickRe: a pick typed like a list's marker ("3. …", "b) …").
var leadPickRe = regexp.MustCompile(`^(?:\d|[a-hA-H])[.)]\s`)

// optionVerbLeadRe: the verb an option told as a step opens with ("use
// Unleash", "roll our own table").
var optionVerbLeadRe = regexp.MustCompile(`(?i)^(?:use|go with|adopt|pick|keep|stay on|switch to|move to)\s+`)

// proseOffered finds options told as paragraphs after the question that
// asks to choose ("… which behaviour do you want? / Reject the whole
// file … / Or skip bad rows and list them …").
func proseOffered(us []unit) (subject string, opts []option) {
	for q := 0; q < len(us) && q < 2; q++ {
		t := strings.TrimSpace(cleanInline(us[q].text))
		if !isQuestion(t) || !askChoiceRe.MatchString(t) {
			continue
		}
		para := -1
		for _, u := range us[q+1:] {
			if u.item || u.quoted || u.para == para {
				continue // a paragraph's first sentence names its option
			}
			para = u.para
			if n := proseOptionName(u.text); n != "" {
				opts = append(opts, option{name: n, text: u.text})
			}
		}
		if len(opts) < 2 || len(opts) > 4 || !orLeadRe.MatchString(strings.TrimSpace(opts[len(opts)-1].text)) {
			return "", nil // "Or …" closes a choice; anything else is an explanation
		}
		return questionSubject(t), opts
	}
	return "", nil
}

// eitherRe: two options told in one sentence ("Either X, …, or Y …").
var eitherRe = regexp.MustCompile(`(?i)^(?:(?:we|you|i) (?:could|can|might) )?either\s+(.+?),?\s+or\s+(.+?)\.?$`)

// eitherOptions finds the options of an "Either X or Y" sentence among us.
func eitherOptions(us []unit) []option {
	for _, u := range us {
		for _, sn := range sentences(strings.TrimSpace(cleanInline(u.text))) {
			m := eitherRe.FindStringSubmatch(strings.TrimSpace(sn))
			if m == nil {
				continue
			}
			var opts []option
			for _, o := range m[1:] {
				o = strings.Trim(strings.TrimSpace(o), ",")
				name := o
				if len(strings.Fields(o)) > 8 {
					// A long option is named by its first clause, and that
					// by its first eight words.
					name = strings.TrimSpace(cutAtFirst(o, ", ", " the way ", " which ", " so ", " because ", " since ", " — "))
					if f := strings.Fields(name); len(f) > 8 {
						name = strings.Join(f[:8], " ")
					}
					name = trimDangling(name)
				}
				opts = append(opts, option{name: name, text: o})
			}
			return opts
		}
	}
	return nil
}

// couldRe: an option told as a sentence of its own ("We could run
// Meilisearch next to the app, which …", "Or we could stay on Postgres",
// "Or we move it to …", "A third path is …").
var couldRe = regexp.MustCompile(`(?i)^(?:or |alternatively,? )?(?:we|you|i) could (?:also |instead |just )?(.+)$|^or (?:we|you|i) (?:just )?(.+)$|^(?:(?:a|the|my|our) (?:first|second|third|fourth|other|last|final)|one|another) (?:(?:path|option|way|approach|choice|route|suggestion|idea|proposal|alternative) )?(?:is|would be) (?:to )?(.+)$|^(?:the|an|one|another) alternative (?:is|would be) (?:to )?(.+)$|^the ([\w.+-]+(?: [\w.+-]+)?) (?:route|approach|path|way|option) (?:is|would|will|stores|writes|keeps|means|uses|gives|puts|runs|has|takes|costs|needs|sends|lets|adds|saves|moves)\b`)

// paragraphLeads are the first sentences of us's paragraphs.
func paragraphLeads(us []unit) []unit {
	var out []unit
	para := -1
	for _, u := range us {
		if u.para != para && !u.item && !u.quoted {
			out = append(out, u)
		}
		para = u.para
	}
	return out
}

// couldOptions are options told as sentences that each open "we could"
// (the last often "Or we could"), named by their first clause.
func couldOptions(us []unit) []option {
	var opts []option
	for _, u := range us {
		for _, sn := range sentences(strings.TrimSpace(cleanInline(u.text))) {
			m := couldRe.FindStringSubmatch(strings.TrimSpace(sn))
			if m == nil {
				continue
			}
			if m[5] != "" {
				// "The Keychain route stores it as …": the option is what
				// names the route.
				opts = append(opts, option{name: m[5], text: strings.TrimSpace(sn)})
				continue
			}
			told := m[1] + m[2] + m[3] + m[4] // one group matches
			name := strings.TrimRight(strings.TrimSpace(cutAtFirst(told, ", ", " which ", " — ", " – ", " (", ": ", " so ", " because ", " but ", " with ", " as a ", " as an ", " through ", " next to ")), ".")
			if f := strings.Fields(name); len(f) > 8 {
				name = strings.Join(f[:8], " ")
			}
			// The text from the option on ("write new tests with
			// `Test2::V0` …", not "My second suggestion is to …"), so the
			// decision tells what it does.
			opts = append(opts, option{name: name, text: strings.TrimSpace(told)})
		}
	}
	if len(opts) == 1 {
		// "You could version in the URL (…) or with an Accept header
		// (…)": one sentence, two options.
		if a, b, ok := strings.Cut(opts[0].text, " or "); ok {
			if m := couldRe.FindStringSubmatch(a); m != nil {
				a = m[1] + m[2] + m[3] + m[4]
			}
			opts = nil
			for _, o := range []string{a, b} {
				name := strings.TrimRight(strings.TrimSpace(cutAtFirst(o, ", ", " which ", " — ", " (", ": ", " so ", " because ", " but ")), ".")
				if f := strings.Fields(name); len(f) == 0 || len(f) > 8 {
					return nil
				}
				opts = append(opts, option{name: name, text: strings.TrimSpace(o)})
			}
		}
	}
	if len(opts) < 2 {
		return nil
	}
	return opts
}

// cutAtFirst is s up to the first of seps in it (not at its start).
func cutAtFirst(s string, seps ...string) string {
	cut := len(s)
	for _, sep := range seps {
		if i := strings.Index(s, sep); i > 0 && i < cut {
			cut = i
		}
	}
	return s[:cut]
}

// orLeadRe: the last of options told in prose.
var orLeadRe = regexp.MustCompile(`(?i)^or\b`)

// proseOptionName is an option told as a sentence, up to its first
// clause ("Or skip bad rows and list them …" → "skip bad rows").
func proseOptionName(s string) string {
	t := strings.TrimSpace(orLeadRe.ReplaceAllString(strings.TrimSpace(cleanInline(s)), ""))
	n := strings.TrimSpace(cutAtFirst(t, " — ", " – ", ":", ",", ".", " (", " and ", " when ", " if ", " so ", " because ", " unless "))
	if n == "" || len(strings.Fields(n)) > 6 {
		return ""
	}
	return n
}

// optionName is what an option is called: its bold or backticked lead,
// else the words before its first dash, colon or parenthesis.
func optionName(item string) string {
	t := letterLeadRe.ReplaceAllString(strings.TrimSpace(item), "$1")
	if m := boldRe.FindStringSubmatch(t); m != nil && strings.Index(t, m[0]) <= 3 {
		return strings.Trim(strings.TrimSpace(strings.ReplaceAll(m[1]+m[2], "`", "")), ":.")
	}
	t = cleanInline(t)
	if m := tickRe.FindStringSubmatch(t); m != nil && strings.Index(t, m[0]) == 0 {
		return m[1]
	}
	cut := len(t)
	for _, sep := range []string{" — ", " – ", " - ", ":", " (", ",", "."} {
		if i := strings.Index(t, sep); i > 0 && i < cut {
			cut = i
		}
	}
	n := strings.TrimSpace(t[:cut])
	if f := strings.Fields(n); len(f) > 5 {
		// "A Joi schema passed to ConfigModule…": the name ends where
		// its description starts.
		n = ""
		for i, w := range f {
			if i > 0 && (phraseStop[strings.ToLower(w)] || optionVerbRe.MatchString(w)) {
				n = strings.Join(f[:i], " ")
				break
			}
		}
		n = strings.TrimSpace(detLeadRe.ReplaceAllString(n, ""))
		if n == "" || len(strings.Fields(n)) > 5 {
			return ""
		}
	}
	return strings.Trim(n, "`*_")
}

// optionVerbRe: the words an option's description starts with.
var optionVerbRe = regexp.MustCompile(`(?i)^(?:passed|using|via|plus|that|which|where|fired|stored|built|run|called|behind)$`)

// letterLeadRe: an option lettered "A." or "**A. Name**".
// optionLetterRe: an option told as "Option B: …".
var optionLetterRe = regexp.MustCompile(`^(?i:option|choice|plan)\s+[A-H]\s*[—–:.)-]`)

var letterLeadRe = regexp.MustCompile(`^(\*\*|__)?(?:[A-H](?:[.)]|\s+[—–-])|[a-h]\)|\([a-hA-H]\))\s+`)

// letterPickRe: a prompt picking a lettered option ("A.", "option b").
var letterPickRe = regexp.MustCompile(`^(?:(?:option|choice) ([a-hA-H])\b|([A-H])(?:[.),:!]|\s|$)|([a-h])(?:[.),:!]\s|[.!)]?$))`)

// orOptionsRe: "per API key or per IP?", "Redis or Postgres?".
var orOptionsRe = regexp.MustCompile(`(?i)\b((?:per |a |an |the |with |in |on )?[\w./+-]+(?: [\w./+-]+)?) or ((?:per |a |an |the |with |in |on )?[\w./+-]+(?: [\w./+-]+)?)\s*\??$`)

func orOptions(q string) []option {
	q = parenRe.ReplaceAllString(q, "") // "sqlc (typed queries) or GORM (an ORM)?"
	m := orOptionsRe.FindStringSubmatch(strings.TrimRight(q, "?) "))
	if m == nil {
		m = orOptionsRe.FindStringSubmatch(q)
	}
	if m == nil {
		return nil
	}
	var opts []option
	for _, n := range m[1:3] {
		n = strings.TrimSpace(n)
		if t := strings.TrimSpace(optionVerbLeadRe.ReplaceAllString(n, "")); t != "" {
			n = t // "use sqlc": sqlc
		}
		opts = append(opts, option{name: n})
	}
	return opts
}

// waysSubject is the subject a label before options names: "Two ways to
// store the config" → "config".
func waysSubject(label string) string {
	m := waysRe.FindStringSubmatch(strings.TrimSpace(label))
	if m == nil {
		return ""
	}
	if relativeLeadRe.MatchString(m[1]) || placeLeadRe.MatchString(m[1]) {
		// "Options that work well with Avalonia 11", "Three options on
		// the ATmega1284P:", "ways to hold it on the HX8K": no subject
		// (where, or "it", which the prompt names).
		return ""
	}
	rest := storeVerbRe.ReplaceAllString(strings.TrimSpace(m[1]), "")
	if v := verbThenDetRe.FindStringSubmatch(rest); v != nil {
		rest = v[1] // "to cache the rendered pages" → "rendered pages"
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(rest, "the "), "our "), "a ")
	return nounPhrase(rest)
}

// relativeLeadRe: a clause that says what the options are like, not what
// they are for.
var relativeLeadRe = regexp.MustCompile(`(?i)^(?:that|which|who|we|you|i|worth|available|here|there|i'?d|we'?d)\b`)

// placeLeadRe: options said of where they run, or of a thing named
// before ("it", "them").
var placeLeadRe = regexp.MustCompile(`(?i)^(?:on|in|at|inside|within|under|for it|for them|for this|for that)\b|^(?:to\s+)?[a-z]+\s+(?:it|them|this|that|these|those)\b`)

// verbThenDetRe: a verb and its object ("cache the rendered pages").
var verbThenDetRe = regexp.MustCompile(`(?i)^(?:to\s+)?[a-z]+\s+(?:the|our|a|an|its|their)\s+(.+)$`)

// questionSubject is the subject a choosing question names: "should the
// rate limiter be per API key or per IP?" → "rate limiter".
func questionSubject(q string) string {
	if m := whichNounRe.FindStringSubmatch(q); m != nil && !genericHeads[strings.ToLower(m[1])] && !choiceNouns[strings.ToLower(m[1])] {
		return strings.ToLower(m[1]) // "Which policy do you want for the new cluster?"
	}
	if m := whereLivesRe.FindStringSubmatch(q); m != nil && len(strings.Fields(m[1])) <= 3 {
		return strings.ToLower(m[1]) // "where should the session store live?"
	}
	for _, sm := range detRe.FindAllStringSubmatch(q, 4) {
		if s := nounPhrase(sm[1]); s != "" {
			return s
		}
	}
	return ""
}

// whereLivesRe: a question about where or how a thing should be, its
// subject whole ("where should the session store live?").
var whereLivesRe = regexp.MustCompile(`(?i)\b(?:where|how)\s+(?:should|will|would|do|does|can|could|shall)\s+(?:the|our|its|their|this)\s+([a-z][\w -]{1,40}?)\s+(?:live|go|run|be stored|be kept|be hosted|be deployed|work|behave|look|be structured|be handled)\s*\?`)

// theOneRe: a pick that names its option by a word of it ("hmm, the
// Fluent one — …").
var theOneRe = regexp.MustCompile(`(?i)^(?:\w+,\s+)?(?:let'?s (?:go with |do |use )?|go with |i'?d (?:go with|pick|take) |pick |use |take )?(?:the )?([\w.+-]{3,30}) (?:one|option|route|approach|way)\b`)

// oneWhereRe: a pick told by what the option does ("the one where the
// esp32 only writes during blanking", "the option that keeps the dump").
var oneWhereRe = regexp.MustCompile(`(?i)^(?:\w+,?\s+)?(?:let'?s (?:go with |do )?|go with |i'?d (?:go with|pick|take) )?the ((?:[\w-]+ ){0,2}?)(?:one|option|approach|way|version) (?:where|that|which|with|in which)\s+([^.;,—–]+)`)

// romanPickRe: a pick by a roman numeral alone ("iii", "ii, it rolls
// back"), never "i think …".
var romanPickRe = regexp.MustCompile(`^(?:option |number )?(i{1,3}|iv)(?:[.),:;!]|$)`)

// notOptionWords open "… one" without naming an option ("that one", "this
// one", "either one").
var notOptionWords = map[string]bool{"that": true, "this": true, "these": true, "those": true, "which": true, "other": true, "same": true,
	"last": true, "next": true, "either": true, "neither": true, "any": true, "each": true, "every": true, "another": true, "your": true, "our": true}

// chosen finds which option prompt p picks, and the rest of p (the
// reason): an option named first in p, or an ordinal.
func chosen(p string, opts []option) (int, string) {
	lp := strings.ToLower(p)
	best, at := -1, len(lp)+1
	for i, o := range opts {
		n := strings.ToLower(o.name)
		if n == "" {
			continue
		}
		if j := indexWord(lp, n); j >= 0 && j < at {
			best, at = i, j
		}
	}
	if best >= 0 {
		// A choice opens the prompt (or follows "let's go with").
		if at > 40 || negatedBefore(lp[:at]) {
			return -1, ""
		}
		return best, p[at+len(opts[best].name):]
	}
	if m := oneWhereRe.FindStringSubmatchIndex(p); m != nil {
		// "the one where the esp32 only writes during blanking. we're
		// short on block ram": the option its clause describes.
		clause, rest := p[m[2]:m[3]]+p[m[4]:m[5]], p[m[5]:]
		if pick := byWords(clause, opts); pick >= 0 {
			return pick, rest
		}
	}
	if lettered(opts) {
		if t := strings.TrimSpace(strings.Trim(p, ".!")); len(t) == 1 && t[0] >= 'a' && t[0] <= 'h' && int(t[0]-'a') < len(opts) {
			return int(t[0] - 'a'), "" // "a": a lone letter is no article
		}
		if m := letterPickRe.FindStringSubmatchIndex(p); m != nil {
			var l string
			switch {
			case m[2] >= 0:
				l = p[m[2]:m[3]] // "option b"
			case m[4] >= 0:
				l = p[m[4]:m[5]] // "A."
			default:
				l = p[m[6]:m[7]] // "b, it fits": a letter alone before its reason
			}
			if n := int(strings.ToUpper(l)[0] - 'A'); n < len(opts) {
				return n, p[m[1]:]
			}
		}
	}
	if m := ordinalRe.FindStringSubmatchIndex(p); m != nil {
		n := map[string]int{"1": 0, "1st": 0, "one": 0, "first": 0, "former": 0, "2": 1, "2nd": 1, "two": 1, "second": 1, "latter": len(opts) - 1,
			"3": 2, "3rd": 2, "three": 2, "third": 2, "4": 3, "4th": 3, "four": 3, "fourth": 3}[strings.ToLower(p[m[2]:m[3]])]
		if n < len(opts) {
			return n, p[m[1]:]
		}
	}
	if m := romanPickRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(p))); m != nil {
		// "iii": options numbered i., ii., iii.
		if n := map[string]int{"i": 0, "ii": 1, "iii": 2, "iv": 3}[m[1]]; n < len(opts) {
			return n, strings.TrimSpace(p)[len(m[0]):]
		}
	}
	if m := theOneRe.FindStringSubmatchIndex(p); m != nil && !notOptionWords[strings.ToLower(p[m[2]:m[3]])] {
		// "the Fluent one", "the managed option", "hey-api one": the one
		// option whose name, else whose description, has the word.
		w := strings.ToLower(p[m[2]:m[3]])
		if base := comparativeBase(w); base != "" && !slices.ContainsFunc(opts, func(o option) bool {
			return indexWord(strings.ToLower(o.name+" "+o.text), w) >= 0
		}) {
			w = base // "the cheaper one": the one said to be cheap
		}
		for _, whole := range []bool{false, true} {
			pick, n := -1, 0
			for i, o := range opts {
				t := o.name
				if whole {
					t = o.text
				}
				if indexWord(strings.ToLower(t), w) >= 0 {
					pick, n = i, n+1
				}
			}
			if n == 1 {
				return pick, p[m[1]:]
			}
			if n > 1 {
				break
			}
		}
	}
	if len(strings.Fields(p)) <= 8 {
		if pick := byWords(p, opts); pick >= 0 {
			return pick, ""
		}
	}
	if word := strings.Fields(p)[0]; len(word) >= 6 {
		// "victoriametrcis, nobody here …": a name typed with a slip.
		if pick := byName(strings.Trim(word, ",.;:!"), opts); pick >= 0 {
			return pick, p[len(word):]
		}
	}
	// "the timer, honestly. no new infra until …": a short first clause
	// picks, what follows is the reason.
	if i := strings.IndexAny(p, ",.;—"); i > 0 && len(strings.Fields(p[:i])) <= 4 {
		if pick := byWords(p[:i], opts); pick >= 0 {
			return pick, p[i:]
		}
		if pick := byName(strings.TrimSpace(p[:i]), opts); pick >= 0 {
			return pick, p[i:]
		}
	}
	return -1, ""
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and adjacent swaps), in bytes.
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// byName is the one option whose name has the word w: as typed, or, for
// a word of six letters or more, with at most two letters slipped (a
// swap, a letter missing, added or wrong: "victoriametrcis"); -1 when
// none or several do. It reads words too short for key terms ("s3.").
// shortWords are short forms a pick uses for an option's words, stemmed.
var shortWords = map[string]string{"env": "environment", "var": "variable", "db": "database", "k8": "kubernete", "k8s": "kubernete",
	"config": "configuration", "auth": "authentication", "repo": "repository", "dep": "dependency", "pg": "postgre", "postgres": "postgre",
	"mono": "monorepo", "perf": "performance", "msg": "message", "doc": "documentation", "infra": "infrastructure"}

func byName(w string, opts []option) int {
	if len(strings.Fields(w)) != 1 {
		return -1
	}
	w = strings.ToLower(w)
	pick := -1
	for i, o := range opts {
		name := strings.ToLower(o.name)
		match := indexWord(name, w) >= 0
		for _, n := range strings.Fields(name) {
			match = match || len(w) >= 6 && len(n) >= 6 && editDistance(w, strings.Trim(n, ",.;:()")) <= 2
		}
		if match {
			if pick >= 0 {
				return -1
			}
			pick = i
		}
	}
	return pick
}

// byWords is the one option that shares the pick's words ("skip and
// report"): their names first, then the whole of what each says; -1 when
// none or several do.
func byWords(p string, opts []option) int {
	pt := terms(p)
	for _, w := range pt {
		if long, ok := shortWords[w]; ok {
			pt = append(pt, long) // "env vars" is "environment variables"
		}
	}
	for _, whole := range []bool{false, true} {
		best, tie, most := -1, false, 0
		for i, o := range opts {
			ot := o.name
			if whole {
				ot = o.text
			}
			switch n := overlap(pt, terms(ot), false); {
			case n > most:
				best, tie, most = i, false, n
			case n == most && n > 0:
				tie = true
			}
		}
		if best >= 0 && !tie {
			return best
		}
		if tie {
			break
		}
	}
	return -1
}

// lettered reports whether the options were offered as A., B., ….
func lettered(opts []option) bool {
	for _, o := range opts {
		if t := strings.TrimSpace(o.text); !letterLeadRe.MatchString(t) && !optionLetterRe.MatchString(t) {
			return false
		}
	}
	return len(opts) > 0
}

// negatedBefore: "not TOML", "no YAML".
func negatedBefore(s string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && (f[len(f)-1] == "not" || f[len(f)-1] == "no" || f[len(f)-1] == "never")
}

// indexWord is the index of word w in s on word boundaries, -1 if none.
func indexWord(s, w string) int {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		before := i == 0 || !isWordByte(s[i-1])
		after := i+len(w) >= len(s) || !isWordByte(s[i+len(w)])
		if before && after {
			return i
		}
		from = i + 1
	}
	return -1
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// comeFromRe: a failure told with where it comes from.
var comeFromRe = regexp.MustCompile(`(?i)^(?:the |our |these |those |all )?((?:[\w.-]+ ){0,2}?[\w.-]+) (?:come|comes|came|stem|stems|stemmed) from\b`)

// OwnCauseSubject reports whether a root cause names what it is the cause
// of ("Root cause of the drops: …", "Composition failure: …") or is about
// code it names ("`SymbolIndex` is declared as uint16, so …"): that, not
// the prompt's topic, is its subject.
func OwnCauseSubject(m Memory) bool {
	t := strings.TrimSpace(strings.ReplaceAll(m.Text, "`", ""))
	if causeOfRe.MatchString(t) || failureLabelRe.MatchString(t) || comeFromRe.MatchString(t) {
		return true
	}
	_, after, _ := strings.Cut(t, ": ")
	if m.Subject != "" && (strings.EqualFold(openingCode(m.Text), m.Subject) || strings.EqualFold(openingCode(after), m.Subject)) {
		return true // "Root cause on our side: `cdpshot` creates …", "Root cause: OrderedDataStore:SetAsync was called …"
	}
	return m.Subject != "" && (slices.ContainsFunc(m.Idents, func(id string) bool {
		// The identifier, or what its member hangs from ("OrderedDataStore:SetAsync").
		id = strings.ToLower(id)
		return id == m.Subject || strings.HasPrefix(id, m.Subject+":") || strings.HasPrefix(id, m.Subject+".")
	}) ||
		slices.ContainsFunc(m.Files, func(f string) bool { return strings.EqualFold(f, m.Subject) }))
}

// failureLabelRe: a cause labelled with what failed ("Composition
// failure: the root cause is …").
var failureLabelRe = regexp.MustCompile(`(?i)^(?:the )?[\w .-]{2,30}? (?:failure|error|crash|bug|regression|outage)s?\s*:\s*\S`)
