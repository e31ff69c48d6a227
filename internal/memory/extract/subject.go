package extract

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	tickRe   = regexp.MustCompile("`([^`\n]+)`")
	letterRe = regexp.MustCompile(`[A-Za-z]`)
)

// fileExts are the extensions that make a bare name ("go.mod", "app.py")
// a file.
var fileExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`go mod sum ts tsx js jsx mjs cjs py rs rb java kt c h cc cpp hpp cs swift sql
	yaml yml json toml ini cfg conf md txt tf sh bash css scss html templ lock env proto graphql xml gradle dockerfile`) {
		fileExts[e] = true
	}
}

// names returns the file paths and the identifiers a statement names,
// each once, in order: paths with a directory or a known extension;
// backticked code terms; CamelCase, snake_case and pkg.Func words.
func names(text string) (files, idents []string) {
	seenF, seenI := map[string]bool{}, map[string]bool{}
	addI := func(s string) {
		if s != "" && !seenI[s] && !seenF[s] && !partOf(s, idents) {
			seenI[s] = true
			idents = append(idents, s)
		}
	}
	toks := strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || strings.ContainsRune("()[]{}<>\"'`,;", r)
	})
	var words []string
	for _, tok := range toks {
		tok = strings.TrimRight(tok, ".:!?")
		switch {
		case isFile(tok):
			if !seenF[tok] && len(files) < 32 {
				seenF[tok] = true
				files = append(files, tok)
			}
		case isIdent(tok):
			words = append(words, tok)
		}
	}
	for _, m := range tickRe.FindAllStringSubmatch(text, 32) {
		t := strings.TrimSpace(m[1])
		if len(t) <= 60 && !strings.ContainsAny(t, " \t") && letterRe.MatchString(t) && !isFile(strings.TrimRight(t, ".:")) {
			addI(t)
		}
	}
	for _, w := range words {
		if len(idents) < 32 {
			addI(w)
		}
	}
	return files, idents
}

// isFile: a path with a directory ("internal/db/", "./run.sh") or a name
// with a known extension, made of path characters only, not a URL.
func isFile(t string) bool {
	if len(t) < 3 || strings.Contains(t, "://") || !letterRe.MatchString(t) {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@.*/-", r)) {
			return false
		}
	}
	if strings.Contains(t, "/") {
		return strings.Trim(t, "/.") != "" && !strings.HasPrefix(t, "--")
	}
	i := strings.LastIndexByte(t, '.')
	return i > 0 && fileExts[strings.ToLower(t[i+1:])]
}

// isIdent: CamelCase, snake_case, or a dotted name with a capitalised part
// (pkg.Func, Type.method).
func isIdent(t string) bool {
	if t == "" || !(t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z' || t[0] == '_') {
		return false
	}
	upperAfterLower, underscore, dot, upperPart := false, false, false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if i > 0 && t[i-1] >= 'a' && t[i-1] <= 'z' {
				upperAfterLower = true
			}
			if i == 0 || t[i-1] == '.' {
				upperPart = true
			}
		case c == '_':
			underscore = true
		case c == '.':
			if i == 0 || i == len(t)-1 || t[i-1] == '.' {
				return false
			}
			dot = true
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return upperAfterLower || underscore && letterRe.MatchString(t) || dot && upperPart
}

// partOf reports whether s is inside one of the identifiers already found
// ("PaymentsClient" in "PaymentsClient.charge").
func partOf(s string, idents []string) bool {
	for _, id := range idents {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// withoutFiles drops the file paths from text, so that two statements
// naming one file do not look alike by the words of its path.
func withoutFiles(text string, files []string) string {
	for _, f := range files {
		text = strings.ReplaceAll(text, f, " ")
	}
	return text
}

// stopwords are the words that never say what a statement is about.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else so to of in on at by for with from into onto over
	under as is are was were be been being it its this that these those there here we i you he she they them our your
	my me us do does did done not no yes can could would should will shall may might must have has had having
	than instead rather now still just only also too very more most less least all any each every some such
	what which who whom whose when where why how about after before again against because since while until up down
	out off own same both few other new old use used uses using make made keep kept add added change changed
	switch switched drop dropped replace replaced move moved went go going get got need needs needed want wants
	one two three first second next last way thing things lot like via per don't doesn't didn't isn't aren't
	wasn't weren't won't can't it's that's there's let's i'll i've we've we'll you'll never always from now on
	decided chose choose picked kept stay stays anymore longer yet todo later so-that ever anything everything
	nothing something anyone everyone stuff thats whats theres dont doesnt isnt cant wont didnt`) {
		stopwords[w] = true
	}
}

// terms returns the statement's key subject words: lowercased, stopwords
// removed, a plural "s" trimmed, each once.
func terms(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(text, 200) {
		w = strings.ToLower(strings.Trim(w, "-_"))
		if len(w) < 3 || stopwords[w] {
			continue
		}
		w = stem(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// words splits text into at most max words: a letter, then letters,
// digits and _+#- ("snake_case", "c++", "pre-commit").
func words(text string, max int) []string {
	var out []string
	start := -1
	for i := 0; i <= len(text); i++ {
		c := byte(' ')
		if i < len(text) {
			c = text[i]
		}
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		inWord := letter || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '#' || c == '-'
		switch {
		case start < 0 && letter:
			start = i
		case start >= 0 && !inWord:
			out = append(out, text[start:i])
			start = -1
			if len(out) == max {
				return out
			}
		}
	}
	return out
}

// stem trims a plural or a few verb endings, enough to meet "tokens" with
// "token" and "caching" with "cache".
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ies") && !strings.ContainsAny(w[len(w)-4:len(w)-3], "kvo"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "ses") && !strings.HasSuffix(w, "sses") && !esPlural(w):
		return w[:len(w)-1] // "responses", "databases", "releases"
	case len(w) > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:len(w)-2] // "batches", "hashes"
	case len(w) > 4 && strings.HasSuffix(w, "es") && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// esPlural: a word in "-ses" whose singular has no "e" ("statuses",
// "aliases", "buses").
func esPlural(w string) bool {
	for _, s := range []string{"tuses", "iases", "buses", "luses", "nuses", "cuses", "ruses", "sises", "xises"} {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// family groups kinds that can replace one another: a user's constraint and
// a decision speak of the same choices; causes and todos stand alone.
func family(k Kind) Kind {
	if k == KindConstraint {
		return KindDecision
	}
	return k
}

// Supersedes reports whether newer replaces older: the same kind family,
// the same subject — the same Subject, however each words its choice, or
// a shared file or identifier, or enough shared key terms — and newer
// states a change ("instead", "no longer", "switched from", "moved …
// again", "… is gone") or contradicts older (one forbids what the other
// does). A further detail on the same subject replaces nothing.
func Supersedes(newer, older Memory) bool {
	if family(newer.Kind) != family(older.Kind) || newer.Kind == KindTodo || newer.Kind == KindCause {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(newer.Text), strings.TrimSpace(older.Text)) {
		return false
	}
	contradicts := newer.Change || negative(newer.Text) != negative(older.Text) || otherVersion(newer.Text, older.Text)
	if sameTopic(newer.Subject, older.Subject) && (contradicts || otherTool(newer, older)) {
		return true
	}
	if Retires(newer, older) || reverses(newer, older) {
		return true
	}
	if newer.Change && newer.Kind == KindDecision && againRe.MatchString(newer.Text) && older.Change &&
		overlap(withParts(newer.Terms), withParts(older.Terms), false) > 0 {
		// "Switched again: CI now lives on Buildkite … outside EKS" after
		// "Moved the workflows to … the EKS cluster": a change that says
		// it changes the last change, naming something of it.
		return true
	}
	if otherCode(newer, older) {
		// "kept in Lambert-93 (2154)" after "Parcels move to EPSG:3857":
		// another code for the same kind of thing.
		return true
	}
	if otherDuration(newer, older) {
		// "slots must be 20 minutes" after "fixed 15-minute slots": the
		// same thing, another length.
		return true
	}
	if otherRate(newer, older) {
		// "weigh the hive four times an hour" after "take a weight
		// reading every 10 seconds": the same rule, at another rate.
		return true
	}
	if otherCount(newer, older) {
		// "One approval is enough from now on" after "PRs need two
		// approvals": the same count, moved.
		return true
	}
	if otherBound(newer, older) {
		// "from now on 85% minimum on the router" after "line coverage
		// has to stay above 80% on order-router": the same bar, moved.
		return true
	}
	if newer.Change && newer.Kind == KindDecision && older.Kind == KindDecision && bareInsteadRe.MatchString(newer.Text) &&
		overlap(withParts(newer.Terms), withParts(older.Terms), false) >= 2 {
		// "Instance data now goes through a vertex buffer … instead" after
		// "Per-instance transforms live in a storage buffer": in place of
		// the choice before, on what both name.
		return true
	}
	if newer.Change && newer.Kind == KindDecision && otherToolFor(newer, older, bareInsteadRe.MatchString(newer.Text)) {
		// "Diagnostics: ITM/SWO now" after "Switched the logs to SEGGER
		// RTT": another tool for the same job.
		return true
	}
	if !sameSubject(newer, older) {
		return false
	}
	return contradicts
}

// bareInsteadRe: "instead" with nothing after it: in place of the choice
// just before ("Switched to pgvector instead: …").
var bareInsteadRe = regexp.MustCompile(`(?i)\binstead\b(?:\s*[:.,;!—–)-]|\s*$)`)

// againRe: a change that says it is not the first.
var againRe = regexp.MustCompile(`(?i)\b(?:switched|moved|changed|migrated|swapped|switching|moving)(?: \w+){0,3}? again\b|^(?:ok,? |so,? )?(?:change of plan|new plan|plan change)\b`)

// rejectedRe finds what a choice turned down: "X instead of Y", "X over
// Y", "rather than Y", "no more Y".
var rejectedRe = regexp.MustCompile(`(?i)\b(?:instead of|rather than|over|not|no more) (?:the |our |a |an )?([\w.+-]{2,30})`)

// afterAllRe: a choice that goes back on an earlier one ("Let's use
// Airflow after all").
var afterAllRe = regexp.MustCompile(`(?i)\b(?:after all|back to|revert(?:ed|ing)? to)\b`)

// reverses reports whether newer, a choice that says it goes back on one
// ("… after all", "back to …"), picks what older turned down: "cron …
// instead of Airflow" is replaced by "Let's use Airflow after all".
func reverses(newer, older Memory) bool {
	if newer.Kind != KindDecision && newer.Kind != KindConstraint {
		return false
	}
	afterAll := afterAllRe.MatchString(newer.Text)
	// A change to a tool older turned down is a reversal too, said or not
	// ("moving the doc model to automerge 2" after "Yjs over Automerge").
	toolChange := newer.Change && newer.Kind == KindDecision
	if !afterAll && !toolChange {
		return false
	}
	lower := strings.ToLower(newer.Text)
	turnedDown := map[string]bool{}
	for _, m := range rejectedRe.FindAllStringSubmatch(strings.ReplaceAll(newer.Text, "`", ""), 4) {
		turnedDown[strings.ToLower(m[1])] = true
	}
	for _, m := range rejectedRe.FindAllStringSubmatch(strings.ReplaceAll(older.Text, "`", ""), 4) {
		w := strings.ToLower(m[1])
		if genericHeads[w] || phraseStop[w] || indexWord(lower, w) < 0 {
			continue
		}
		if _, tool := jobs[w]; afterAll || tool && !turnedDown[w] {
			return true
		}
	}
	if !afterAll {
		return false
	}
	// "replaced SDL2 audio with cpal" — "back to SDL2 for audio after all":
	// what older replaced, chosen again.
	back := strings.ToLower(newer.Text)
	for _, sm := range replacedRe.FindAllStringSubmatch(strings.ReplaceAll(older.Text, "`", ""), 4) {
		for _, g := range sm[1:] {
			for _, w := range retiredTerms(terms(g)) {
				if len(w) >= 3 && !genericHeads[w] && indexWord(back, w) >= 0 {
					return true
				}
			}
		}
	}
	return false
}

// replacedRe finds what a change says is replaced: "replaced X with",
// "instead of X", "switched from X", "moved off X", "no longer X",
// "dropped X", "rather than X", "X is gone".
var replacedRe = regexp.MustCompile(`(?i)\breplac(?:ed|ing) (?:the |our |its )?([^.;,:]{1,60}?) (?:with|by)\b|\binstead of (?:the |our )?([^.;,:]{1,50}?)(?:[,.;:]|\s+(?:because|since|so)\b|$)|\b(?:switched|moved|migrated) (?:[^.;]{0,30}?\s)?(?:away )?(?:from|off) (?:the |our )?([^.;,:]{1,40}?)(?:\s+to\b|[,.;:]|$)|\bno longer (?:\w+ )?([^.;,:—–]{1,40}?)(?:\s+(?:either|too|anymore|as well)\b|[.;,:—–]|\s-\s|$)|\b(?:dropped|dropping|ditch(?:ed|ing)?|scrap(?:ped|ping)?|get rid of) (?:the |our )?([^.;,:]{1,40}?)(?:\s+(?:entirely|completely|altogether|for good))?(?:\s+in favou?r of\b|[,.;:]|$)|\brather than (?:the |our )?([^.;,:]{1,40})|\bwe(?:'re| are) off (?:the |our )?([^.;,:—–-]{1,40}?)(?:\s+[—–-]|[,.;:]|$)|(?:^|[.;]\s+)([\w.+-]{1,30})(?:'s| is| are) out\b|(?:^|[.;:]\s+)(?:the |our )?([^.;,:]{1,40}?) (?:(?:is|are|was|were) (?:now |being )?(?:gone|removed|dropped|retired|deleted|torn down|shut down|decommissioned)|(?:goes|go|is going|are going) away)\b`)

// SameTopic reports whether two memories have one subject.
func SameTopic(a, b Memory) bool { return sameTopic(a.Subject, b.Subject) }

// Touches reports whether a and b may speak of one thing: sameSubject, or
// one shared key term that is a third of the shorter statement's ("never
// commit directly to main" and "pushing straight to main is fine for
// docs"), or two shared terms, a compound's parts counted. Looser than Supersedes asks, for what is only held back for the
// owner to decide, never retired by it.
func Touches(a, b Memory) bool {
	if sameSubject(a, b) {
		return true
	}
	ta, tb := withParts(a.Terms), withParts(b.Terms)
	n := overlap(ta, tb, false)
	return n >= 2 || n >= 1 && n*3 >= min(len(ta), len(tb))
}

// withDigits are the terms that hold a digit ("int16", "utf-8", "v2"):
// values, specific enough to tell one rule apart.
func withDigits(ts []string) []string {
	var out []string
	for _, t := range ts {
		if strings.ContainsAny(t, "0123456789") {
			out = append(out, t)
		}
	}
	return out
}

// identRoots are identifiers with what a member or call hangs from
// ("ApiClient.getBytes()" is also "ApiClient").
func identRoots(ids []string) []string {
	out := ids[:len(ids):len(ids)]
	for _, id := range ids {
		if i := strings.IndexAny(id, ".("); i > 0 && !slices.Contains(out, id[:i]) {
			out = append(out, id[:i])
		}
	}
	return out
}

// withParts is ts with the parts of its compounds too ("auto-migrate"
// is also "migrate"), and a verb's noun ("pooling" is also "pool").
func withParts(ts []string) []string {
	out := ts
	for _, t := range ts {
		if b, ok := strings.CutSuffix(t, "ing"); ok && len(b) >= 4 && !slices.Contains(out, b) {
			out = append(out[:len(out):len(out)], b)
		}
		if strings.Contains(t, "-") {
			for _, p := range strings.Split(t, "-") {
				if len(p) >= 3 && !slices.Contains(out, p) {
					out = append(out[:len(out):len(out)], p)
				}
			}
		}
	}
	return out
}

// Carries reports whether decision done, stated in an answer, only
// carries out decision decided, made in the prompt of the same turn (the
// same subject, and no reason of its own: "Vitest and its config are
// removed." after "We're dropping Vitest as well"), or applies the rule
// the prompt set, naming what it names.
func Carries(done, decided Memory) bool {
	if done.Kind != KindDecision || rationaleRe.MatchString(done.Text) {
		return false
	}
	switch decided.Kind {
	case KindDecision:
		// "The ksops plugin is removed from Argo CD." after "switch
		// secrets from SOPS to AWS Secrets Manager": what the change took
		// away.
		return sameTopic(done.Subject, decided.Subject) || decided.Change && removesSomething(done.Text) ||
			// "Switched the storage endpoint to R2 …" after "moving
			// uploads to R2": the tool the change chose, put in place.
			decided.Change && (sameToolNamed(done, decided) || overlap(withParts(done.Terms), withParts(decided.Terms), false) >= 2 ||
				// "Switched: removed Firmware.Updater, added peridiod …":
				// a report that opens on the change the prompt asked for.
				doneLabelRe.MatchString(done.Text))
	case KindConstraint:
		// "don't import package:http in widgets" — "its fetch now goes
		// through ApiClient.getBytes()": the rule applied, by name.
		// "from now on dBZ values are stored as int16" — "Switched the
		// encoder to int16 …": a value only the rule names.
		return overlap(identRoots(done.Idents), identRoots(decided.Idents), true) > 0 || overlap(done.Files, decided.Files, true) > 0 ||
			overlap(withDigits(done.Terms), withDigits(decided.Terms), false) > 0 ||
			// "Replaced the hook with stylish-haskell …" after
			// "Formatting: stylish-haskell from now on": the tool the rule
			// names, put in place.
			sameToolNamed(done, decided)
	}
	return false
}

// removesSomething reports whether a clause of text says what went ("…,
// the bridge and the Kafka topics are gone", "…; the Unleash container is
// removed").
func removesSomething(text string) bool {
	for _, c := range removalClauseRe.Split(text, -1) {
		if removalRe.MatchString(strings.TrimSpace(c)) {
			return true
		}
	}
	return false
}

// removalClauseRe: where a report's clauses part.
var removalClauseRe = regexp.MustCompile(`[,;]\s+|\s[—–]\s|\.\s+`)

// doneLabelRe: an answer's report that opens on a change, done
// ("Switched: …", "Replaced: …", "Moved: …").
var doneLabelRe = regexp.MustCompile(`(?i)^(?:switched|replaced|moved|migrated|ported|swapped|converted)\s*:\s`)

// Retires reports whether newer, a change, names as replaced what older
// states: an identifier of older's, or two of its key terms, or the one
// word older's choice is ("replaced styled-components with CSS
// Modules" after "components are styled with styled-components").
func Retires(newer, older Memory) bool {
	if !newer.Change || family(newer.Kind) != family(older.Kind) || newer.Kind == KindTodo || newer.Kind == KindCause {
		return false
	}
	for _, sm := range replacedRe.FindAllStringSubmatch(strings.ReplaceAll(newer.Text, "`", ""), 4) {
		for _, g := range sm[1:] {
			if strings.TrimSpace(g) == "" {
				continue
			}
			files, idents := names(g)
			if overlap(idents, older.Idents, true) > 0 || overlap(files, older.Files, true) > 0 {
				return true
			}
			ts := retiredTerms(terms(withoutFiles(g, files)))
			if older.Kind == KindConstraint && (slices.Contains(ts, "percentage") || slices.Contains(ts, "percent")) && percentRe.MatchString(older.Text) && boundRe.MatchString(older.Text) {
				return true // "scrap the percentage gate" after "never … below 85%"
			}
			if len(ts) == 1 && overlap(ts, older.Idents, true) > 0 {
				return true // "replaced yup with zod" after "validated with `yup`"
			}
			if n := overlap(ts, withParts(older.Terms), false); n >= 2 || n == 1 && len(ts) == 1 && !genericHeads[ts[0]] && len(ts[0]) >= 4 {
				return true
			}
			if len(ts) > 1 && len(ts) <= 3 && !genericHeads[ts[len(ts)-1]] && len(ts[len(ts)-1]) >= 4 && overlap(ts[len(ts)-1:], older.Terms, false) == 1 {
				return true // "instead of Opera webhooks" after "switch … to the webhooks": what it names, by its head
			}
		}
	}
	return false
}

// retiredTerms are the key terms of what a change names as replaced: a
// compound as its parts, and without the generic head words ("the
// Atlantis-only rule is dropped" names Atlantis).
func retiredTerms(ts []string) []string {
	var out []string
	for _, t := range ts {
		if strings.Contains(t, "-") {
			// "the Atlantis-only rule", "the 80-character rule": what it
			// names is its parts.
			if parts := terms(strings.ReplaceAll(t, "-", " ")); len(parts) > 0 {
				out = append(out, parts...)
				continue
			}
		}
		if !genericHeads[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return ts
	}
	return out
}

// sameSubject: a shared identifier; a shared file with a shared key term
// (one file holds many subjects); or at least two shared key terms making
// up a third of the smaller statement's terms.
func sameSubject(a, b Memory) bool {
	n := overlap(a.Terms, b.Terms, false)
	switch {
	case overlap(a.Idents, b.Idents, true) > 0:
		return true
	case overlap(a.Files, b.Files, true) > 0:
		return n >= 1
	}
	return n >= 2 && n*3 >= min(len(a.Terms), len(b.Terms))
}

func overlap(a, b []string, fold bool) int {
	set := make(map[string]bool, len(b))
	for _, s := range b {
		if fold {
			s = strings.ToLower(s)
		}
		set[s] = true
	}
	n := 0
	for _, s := range a {
		if fold {
			s = strings.ToLower(s)
		}
		if set[s] {
			n++
			delete(set, s)
		}
	}
	return n
}

var negRe = regexp.MustCompile(`(?i)\b(?:don'?t|do not|never|no longer|not|avoid|stop|without|mustn'?t|must not)\b`)

func negative(t string) bool { return negRe.MatchString(t) }

var (
	doneRe    = regexp.MustCompile(`(?i)\b(?:done|fixed|added|implemented|updated|completed|finished|resolved|removed|deleted|migrated|ported|moved|wired|restyled|translated|landed|shipped|merged|created|wrote|rewrote|enabled|configured|converted|replaced|switched|refactored|cleaned up|set up|hooked up|now (?:\w+ ){0,3}?(?:works|handles|uses|supports|shows|reads|streams|has|returns|includes))\b`)
	checkedRe = regexp.MustCompile(`^\s*\[[xX]\]\s*|^\s*[✅✓✔]\s*`)
	notDoneRe = regexp.MustCompile(`(?i)\bstill\b|\bnot yet\b|\byet\b|\btodo\b|\bneeds? to\b|\bwill need\b|\bnext step|\bhaven'?t\b|\bdidn'?t\b|\bisn'?t\b|\baren'?t\b|\bnot done\b`)
)

// Completes reports whether text (a later answer or summary) says the todo
// is done: one of its sentences states completion without leaving it open,
// and names the todo's subject (a shared file or identifier with one more
// key term, or half the todo's key terms).
func Completes(text string, todo Memory) bool {
	if todo.Kind != KindTodo {
		return false
	}
	for _, p := range paragraphs(bound(text)) {
		for _, s := range sentences(p) {
			checked := checkedRe.MatchString(s)
			if checked {
				s = checkedRe.ReplaceAllString(s, "")
			}
			if !checked && !doneRe.MatchString(s) || notDoneRe.MatchString(s) {
				continue
			}
			files, idents := names(s)
			ts := terms(s)
			shared := overlap(todo.Terms, ts, false)
			named := overlap(todo.Files, files, true) + overlap(todo.Idents, idents, true)
			if named > 0 && shared >= 1 || len(todo.Terms) > 0 && shared >= 2 && shared*2 >= len(todo.Terms) {
				return true
			}
		}
	}
	return false
}

var boundRe = regexp.MustCompile(`(?i)\b(?:above|below|under|over|at least|at most|minimum|maximum|min|max|floor|ceiling|up to|no more than|no less than|not below|not above|lowest|highest|capped|cap|limit|(?:wider|longer|shorter|narrower) than|and up)\b|[≥≤]`)

// sridRe names a spatial reference; sridCodeRe its code, after
// "EPSG:"/"SRID" or in parentheses.
var (
	sridRe     = regexp.MustCompile(`(?i)\b(?:epsg|srid|crs|projection|lambert|utm zone|web mercator)\b`)
	sridCodeRe = regexp.MustCompile(`(?i)(?:\b(?:epsg|srid)\s*[:= ]?\s*|\()(\d{4,5})\b`)
)

// otherCode: two statements that each set a spatial reference by its
// code, to other codes.
func otherCode(newer, older Memory) bool {
	if family(newer.Kind) != KindDecision || family(older.Kind) != KindDecision || !sridRe.MatchString(newer.Text) || !sridRe.MatchString(older.Text) {
		return false
	}
	nc, oc := sridCodeRe.FindAllStringSubmatch(newer.Text, 4), sridCodeRe.FindAllStringSubmatch(older.Text, 4)
	if len(nc) == 0 || len(oc) == 0 {
		return false
	}
	for _, n := range nc {
		for _, o := range oc {
			if n[1] == o[1] {
				return false
			}
		}
	}
	return true
}

// percentRe: a percentage, its figure the first group.
var percentRe = regexp.MustCompile(`\b(\d+(?:\.\d+)?)\s?%`)

// A measure family: what a rule's bound is counted in, and the figures
// of that family a text names.
type measure struct {
	name string
	re   *regexp.Regexp // the figure is its first group
	// owns: the family names its own subject, so two rules need no
	// shared word (a width is a line's; a platform level, the app's).
	owns bool
}

var measures = []measure{
	{"percent", percentRe, false},
	// "80 characters", "120 columns", "the 80-character rule", "32 glyphs".
	{"width", regexp.MustCompile(`(?i)\b(\d+)(?:\s?|-)(?:characters?|chars?|columns?|cols?|glyphs?)\b`), true},
	// "minSdk 29", "API level: 31", "Android 10", "iOS 16".
	{"platform", regexp.MustCompile(`(?i)\b(?:min ?sdk(?:version)?|api(?: level)?|android|ios|ipados|macos)\s*[:=]?\s*(\d+)\b`), true},
}

// countRe: a count of things ("two approvals", "3 replicas"): the number
// and the noun.
var countRe = regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|a single|\d{1,3})\s+([a-z][a-z-]{2,})\b`)

// countWords are the numbers a count spells.
var countWords = map[string]string{"one": "1", "a single": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
	"seven": "7", "eight": "8", "nine": "9", "ten": "10"}

// counts are text's counts, noun (stemmed) → number.
func counts(text string) map[string]string {
	out := map[string]string{}
	for _, m := range countRe.FindAllStringSubmatch(text, 8) {
		n := strings.ToLower(m[1])
		if w, ok := countWords[n]; ok {
			n = w
		}
		noun := stem(strings.ToLower(m[2]))
		if stopwords[noun] || genericHeads[noun] || unitWords[noun] {
			continue
		}
		out[noun] = n
	}
	return out
}

// unitWords are measures, not things counted: a figure in them is a
// bound of its own kind (otherBound), or no count at all.
var unitWords = map[string]bool{"second": true, "minute": true, "hour": true, "day": true, "week": true, "month": true, "year": true,
	"ms": true, "sec": true, "min": true, "percent": true, "character": true, "column": true, "line": true, "byte": true, "time": true}

// otherCount reports whether two rules count the same thing and newer
// sets another number ("One approval is enough" after "PRs need two
// approvals").
func otherCount(newer, older Memory) bool {
	if newer.Kind != KindConstraint || older.Kind != KindConstraint {
		return false
	}
	cn, co := counts(newer.Text), counts(older.Text)
	for noun, n := range cn {
		if o, ok := co[noun]; ok && o != n {
			return true
		}
	}
	return false
}

// widthOwnerRe: what else than a line of code a width is set for ("commit
// subjects under 72 characters").
var widthOwnerRe = regexp.MustCompile(`(?i)\b(?:commit|message|title|summary|subject|heading|header|name|description|slug|label|branch|tweet)s?\b`)

// figures are the numbers a bound names in family m: m's own ("120
// columns"), and for a text that names one, the bare figure after a bound
// word too ("lines can be up to 100 now").
var boundFigureRe = regexp.MustCompile(`(?i)\b(?:up to|at most|at least|under|below|above|over|max|min|capped at|cap(?: of| at)?|limit(?: of| is)?)\s*:?\s*(\d+(?:\.\d+)?)\b`)

func figures(m measure, text string) (own, all []string) {
	for _, f := range m.re.FindAllStringSubmatch(text, 8) {
		own = append(own, f[1])
	}
	if len(own) == 0 {
		return nil, nil
	}
	all = own
	for _, f := range boundFigureRe.FindAllStringSubmatch(text, 8) {
		all = append(all, f[1])
	}
	return own, all
}

// otherBound: two rules that each set a bound in one measure (a
// percentage, a line's width, the lowest platform level) to other
// figures: "from now on 85% minimum on the router" after "line coverage
// has to stay above 80% on order-router"; "Max width: 120 columns" after
// "lines under 80 chars". A percentage's rules must also name one thing
// both; a width's must both be of lines, or both of the same other thing.
func otherBound(newer, older Memory) bool {
	if newer.Kind != KindConstraint || older.Kind != KindConstraint || !boundRe.MatchString(newer.Text) || !boundRe.MatchString(older.Text) {
		return false
	}
	for _, m := range measures {
		pn, _ := figures(m, newer.Text)
		_, po := figures(m, older.Text)
		if len(pn) == 0 || len(po) == 0 {
			continue
		}
		if !slices.ContainsFunc(pn, func(p string) bool { return !slices.Contains(po, p) }) {
			continue // nothing new: the same bar restated
		}
		switch {
		case !m.owns:
			if overlap(withParts(newer.Terms), withParts(older.Terms), false) > 0 {
				return true
			}
		case m.name == "width":
			if widthOwnerRe.MatchString(newer.Text) == widthOwnerRe.MatchString(older.Text) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

var versionNumRe = regexp.MustCompile(`\b\d+\.\d+(?:\.\d+)?\b`)

// otherVersion: both statements name versions, and not the same ones
// ("Python 3.9" then "Python 3.12").
func otherVersion(a, b string) bool {
	va, vb := versionNumRe.FindAllString(a, 8), versionNumRe.FindAllString(b, 8)
	if len(va) == 0 || len(vb) == 0 {
		return false
	}
	set := map[string]bool{}
	for _, v := range vb {
		set[v] = true
	}
	for _, v := range va {
		if set[v] {
			return false
		}
	}
	return true
}

// SaysAgain reports whether a change says it changes the last change
// ("Switched again: …", "we moved the cache again").
func SaysAgain(text string) bool { return againRe.MatchString(text) }

// removedRe: what an answer took out ("removed our RAF tracking calls",
// "deleted the LRS container"); removedPassiveRe: what is gone, said
// of it ("The old workers are stopped").
var (
	removedRe        = regexp.MustCompile(`(?i)\b(?:removed|dropped|deleted|uninstalled|ripped out|tore down|took out|decommissioned)\s+(?:all\s+)?((?:the|our|its|their|every|each)\s+)?([\w.-]+(?:\s+[\w.-]+){0,3})`)
	removedPassiveRe = regexp.MustCompile(`(?i)\b((?:[\w.-]+\s+){0,2}[\w.-]+)\s+(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:removed|deleted|stopped|gone|uninstalled|decommissioned|torn down)\b`)
)

// Removed is the key terms of what text says was taken out: the
// things an answer removed, deleted or stopped.
func Removed(text string) []string {
	var out []string
	add := func(np string) {
		for _, w := range terms(nounPhrase(np)) {
			if !genericHeads[w] && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	for _, m := range removedRe.FindAllStringSubmatch(text, 8) {
		add(m[2])
	}
	for _, m := range removedPassiveRe.FindAllStringSubmatch(text, 8) {
		add(m[1])
	}
	return out
}

// complaintRe: a sentence of a prompt that finds fault with something in
// place ("Testers hate dragging to rotate", "Matter's overhead killed
// frame rates", "sidecars are doubling pod memory, this isn't working").
var complaintRe = regexp.MustCompile(`(?i)\b(?:hates?|hated|killed|kills|too (?:slow|expensive|heavy|costly|high|big|flaky)|(?:is|are|was|isn'?t|aren'?t) (?:deprecated|archived|unmaintained|abandoned)|(?:isn'?t|aren'?t|is not|are not|doesn'?t|don'?t|does not|do not|won'?t|can'?t|cannot) (?:work|working|scale|cope|keep up|build|run)|doubling|tripling|overhead|no good|keeps? (?:breaking|failing|crashing|running out|timing out|dropping|falling over)|runs? out of|(?:is|are) (?:painful|a pain|flaky|broken|unreliable)|unusable|(?:is|are) (?:being |getting )?(?:decommissioned|shut down|sunset|retired|turned off|discontinued|end-of-life|eol)|(?:won'?t|will not|can'?t|cannot) (?:pay|afford)|is going away)\b`)

// faultClauseRe: where a prompt's clauses part.
var faultClauseRe = regexp.MustCompile(`[.;!?]\s+|,\s+|\s[—–-]\s|\s+but\s+|\n+`)

// Faulted is the key terms a prompt finds fault with: the words of its
// sentences that complain of something in place, and the stems of their
// "-ing" forms ("dragging" → "drag").
func Faulted(prompt string) []string {
	var out []string
	for _, s := range faultClauseRe.Split(cleanInline(prompt), -1) {
		// The clause that finds fault, not the rest of its sentence:
		// "promtail is deprecated upstream, swap it for Grafana Alloy".
		if !complaintRe.MatchString(s) {
			continue
		}
		for _, w := range terms(s) {
			if genericHeads[w] {
				continue
			}
			if b, ok := strings.CutSuffix(w, "ing"); ok && len(b) >= 4 {
				if n := len(b); b[n-1] == b[n-2] {
					b = b[:n-1] // "dragging" → "drag"
				}
				w = b
			}
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// Names reports whether m names term: among its key terms, a part of
// one of its identifiers ("DragGesture" names "drag"), or the stem of a
// name it spells like a file ("Moment.js" names "moment").
func Names(m Memory, term string) bool {
	if slices.Contains(m.Terms, term) {
		return true
	}
	for _, f := range m.Files {
		base := strings.ToLower(f[strings.LastIndexAny(f, "/\\")+1:])
		if stem, _, _ := strings.Cut(base, "."); stem == term {
			return true
		}
	}
	for _, id := range m.Idents {
		for _, p := range identParts(id) {
			if p == term {
				return true
			}
		}
	}
	return false
}

// identParts are the lowercased words of an identifier ("DragGesture" →
// "drag", "gesture"; "rx_buf" → "rx", "buf").
func identParts(id string) []string {
	var out []string
	start := 0
	flush := func(i int) {
		if i > start {
			out = append(out, strings.ToLower(id[start:i]))
		}
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
			flush(i)
			start = i + 1
		case i > start && c >= 'A' && c <= 'Z' && id[i-1] >= 'a' && id[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(id))
	return out
}

// SpeaksOf reports whether text names something of m: two of its key
// terms that are not too general, or one that m spells as a name
// ("Postgres", a part of an identifier) — one common word in both
// ("templates") is no reference.
func SpeaksOf(text string, m Memory) bool { return speaksOf(text, m, false) }

// SpeaksOfName is SpeaksOf by a name alone: a word m spells as a name
// or in code, never common words, however many.
func SpeaksOfName(text string, m Memory) bool { return speaksOf(text, m, true) }

func speaksOf(text string, m Memory, namesOnly bool) bool {
	names := map[string]bool{}
	for i, w := range words(m.Text, 200) {
		if i > 0 && w[0] >= 'A' && w[0] <= 'Z' { // not the word a sentence opens with
			names[stem(strings.ToLower(w))] = true
		}
	}
	for _, id := range m.Idents {
		for _, p := range identParts(id) {
			names[p] = true
		}
	}
	for _, f := range m.Files {
		base := strings.ToLower(f[strings.LastIndexAny(f, "/\\")+1:])
		stem, _, _ := strings.Cut(base, ".")
		names[stem] = true
	}
	if a := acronyms(m.Text); len(a) > 0 {
		// "Drop RQ." after "switch the jobs to RQ": a short name in
		// capitals, which key terms leave out.
		for w := range acronyms(text) {
			if a[w] {
				return true
			}
		}
	}
	shared := 0
	for _, w := range terms(text) {
		if genericHeads[w] || len(w) <= 2 || !Names(m, w) {
			continue
		}
		if shared++; shared >= 2 && !namesOnly || names[w] {
			return true
		}
	}
	return false
}

// acronyms are the two-letter names in capitals of text ("RQ", "S3"),
// not the common ones ("CI", "PR", "OK").
func acronyms(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z') }) {
		if len(w) == 2 && w[0] >= 'A' && w[0] <= 'Z' && (w[1] >= 'A' && w[1] <= 'Z' || w[1] >= '0' && w[1] <= '9') && !commonAcronyms[w] {
			out[w] = true
		}
	}
	return out
}

// commonAcronyms name no choice of their own.
var commonAcronyms = map[string]bool{"CI": true, "CD": true, "UI": true, "UX": true, "PR": true, "DB": true, "OK": true, "US": true,
	"EU": true, "IO": true, "ID": true, "IP": true, "OS": true, "QA": true, "VM": true, "AM": true, "PM": true, "TZ": true, "JS": true, "TS": true,
	"GB": true, "MB": true, "KB": true, "TB": true, "MS": true, "IT": true, "AI": true, "ML": true, "HR": true}

// TextMemory is text read as a memory's words — its files, identifiers
// and key terms — with no kind: what a turn spoke of.
func TextMemory(text string) Memory {
	m := Memory{Text: text}
	m.Files, m.Idents = names(text)
	m.Terms = terms(withoutFiles(text, m.Files))
	return m
}

// rateRe finds how often: "every 10 seconds", "every 5 min", "every
// hour", "once a minute", "four times an hour", "twice a day", "hourly".
var rateRe = regexp.MustCompile(`(?i)\bevery\s+(\d+(?:\.\d+)?\s*|an?\s+|other\s+)?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wk)\b|\b(once|twice|\d+|two|three|four|five|six|ten|twelve) times? (?:a|an|per|each) (second|minute|hour|day|week)\b|\bonce (?:a|an|per|each) (second|minute|hour|day|week)\b|\b(hourly|daily|nightly|weekly)\b`)

// rates are the periods, in seconds, that text says something happens at.
func rates(text string) []float64 {
	if !mayName(text, rateHints) {
		return nil
	}
	unit := func(u string) float64 {
		switch u = strings.ToLower(u); {
		case strings.HasPrefix(u, "s"):
			return 1
		case strings.HasPrefix(u, "m"):
			return 60
		case strings.HasPrefix(u, "h"):
			return 3600
		case strings.HasPrefix(u, "d"), u == "nightly":
			return 86400
		case strings.HasPrefix(u, "w"):
			return 7 * 86400
		}
		return 0
	}
	count := map[string]float64{"once": 1, "twice": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10, "twelve": 12}
	var out []float64
	for _, m := range rateRe.FindAllStringSubmatch(text, 4) {
		switch {
		case m[2] != "":
			n := 1.0
			if f, err := strconv.ParseFloat(strings.TrimSpace(m[1]), 64); err == nil {
				n = f
			} else if strings.HasPrefix(strings.ToLower(m[1]), "other") {
				n = 2
			}
			out = append(out, n*unit(m[2]))
		case m[4] != "":
			n, ok := count[strings.ToLower(m[3])]
			if !ok {
				n, _ = strconv.ParseFloat(m[3], 64)
			}
			if n > 0 {
				out = append(out, unit(m[4])/n)
			}
		case m[5] != "":
			out = append(out, unit(m[5]))
		case m[6] != "":
			out = append(out, unit(strings.TrimSuffix(strings.ToLower(m[6]), "ly")))
		}
	}
	return out
}

// otherRate reports whether two rules say how often one thing happens at
// different rates: both rules, sharing a key term, and no rate of newer's
// among older's.
func otherRate(newer, older Memory) bool {
	if newer.Kind != KindConstraint || older.Kind != KindConstraint || !mayName(older.Text, rateHints) {
		return false
	}
	rn := rates(newer.Text)
	if len(rn) == 0 || overlap(withParts(newer.Terms), withParts(older.Terms), false) == 0 {
		return false
	}
	ro := rates(older.Text)
	if len(ro) == 0 {
		return false
	}
	for _, r := range rn {
		if slices.Contains(ro, r) {
			return false
		}
	}
	return true
}

// Near reports whether a and b share a key term (a compound's parts
// counted) or an identifier.
func Near(a, b Memory) bool {
	return overlap(withParts(a.Terms), withParts(b.Terms), false) > 0 || overlap(identRoots(a.Idents), identRoots(b.Idents), true) > 0
}

// removalOnlyRe: a statement that only tells what went ("`tsup` and its
// config are removed", "The hourly check and the MinIO credentials are
// gone from the installer").
var removalOnlyRe = regexp.MustCompile(`(?i)^(?:the |our |its )?[^.;:]{1,80}? (?:is|are|was|were|has been|have been) (?:now )?(?:gone|removed|dropped|deleted|retired|ripped out|torn down)\b(?: (?:from|in|out of) [^.;]{1,60})?[.!]?$`)

// RemovalOnly reports whether a decision only tells what a change took
// away: part of the change it belongs to, no choice of its own.
func RemovalOnly(text string) bool {
	t := strings.TrimSpace(strings.ReplaceAll(text, "`", ""))
	return removalOnlyRe.MatchString(t) && !OwnReason(t)
}

// durationRe finds a length of time that is no rate: "20 minutes",
// "15-minute", "half an hour", "90 s".
var durationRe = regexp.MustCompile(`(?i)(?:\bevery\s+)?(?:\b(\d+(?:\.\d+)?|half an?|an?|one|two|three|four|five|ten|fifteen|twenty|thirty)[\s-]+(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b|\b(\d+(?:\.\d+)?)\s?(s|h|min)\b)`)

// durations are the lengths of time text names, in seconds, rates left
// out ("every 5 minutes" is how often, not how long).
func durations(text string) []float64 {
	if !namesTime(text) {
		return nil // most statements name no time: no regexp
	}
	words := map[string]float64{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30, "half a": 0.5, "half an": 0.5}
	var out []float64
	for _, m := range durationRe.FindAllStringSubmatch(text, 6) {
		if strings.HasPrefix(strings.ToLower(m[0]), "every") {
			continue
		}
		if m[1] == "" {
			m[1], m[2] = m[3], m[4] // "90 s", "2h"
		}
		n, ok := words[strings.ToLower(m[1])]
		if !ok {
			f, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				continue
			}
			n = f
		}
		unit := 1.0
		switch u := strings.ToLower(m[2]); {
		case strings.HasPrefix(u, "m"):
			unit = 60
		case strings.HasPrefix(u, "h"):
			unit = 3600
		case strings.HasPrefix(u, "d"):
			unit = 86400
		}
		out = append(out, n*unit)
	}
	return out
}

// otherDuration reports whether two choices set one thing to different
// lengths of time: both choices, sharing a key term, each naming one
// length, and the lengths differ.
func otherDuration(newer, older Memory) bool {
	if family(newer.Kind) != KindDecision || family(older.Kind) != KindDecision || !namesTime(older.Text) {
		return false
	}
	dn := durations(newer.Text)
	if len(dn) != 1 || rates(newer.Text) != nil || overlap(withParts(newer.Terms), withParts(older.Terms), false) == 0 {
		return false
	}
	do := durations(older.Text)
	return len(do) >= 1 && !slices.Contains(do, dn[0]) && rates(older.Text) == nil
}

// Words one of which a time (durationHints) or a rate (rateHints) needs,
// looked for before the regexp: Supersedes runs for each pair of a new
// memory and the thousands in force.
var (
	durationHints = []string{"sec", "min", "hour", "hr", "day"}
	rateHints     = []string{"every", "once", "twice", "times", "hourly", "daily", "nightly", "weekly"}
)

// digitUnit reports whether text has a figure with "s" or "h" right
// after it ("90 s", "2h"), the short units durationHints leave out.
func digitUnit(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			continue
		}
		j := i + 1
		if j < len(text) && text[j] == ' ' {
			j++
		}
		if j < len(text) && (text[j] == 's' || text[j] == 'h') && (j+1 == len(text) || !isLetter(text[j+1])) {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// namesTime reports whether text may name a length of time: a unit's
// word, or a figure with "s" or "h".
func namesTime(text string) bool { return mayName(text, durationHints) || digitUnit(text) }

// mayName reports whether text holds one of hints, case folded.
func mayName(text string, hints []string) bool {
	lower := strings.ToLower(text)
	for _, h := range hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}
