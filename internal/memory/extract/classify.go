package extract

import (
	"regexp"
	"strings"
)

// The cues, each a case-insensitive RE2 pattern (linear time; bounded
// repetitions only). Where a statement carries several, cause beats todo
// beats constraint beats decision: "I still need to restyle it — it uses
// blue instead of brand" is a todo, not a decision.
// standingWords are the words that make a statement hold from now on
// ("from now on", "going forward", "from today onward"), and standing
// finds them anywhere in a statement, with "… from here." at its end:
// the one list every rule and change pattern below is built from.
const (
	standingWords = `from now on|going forward|from here on|from (?:today|this point) on(?:wards?)?|from today onwards?`
	standing      = `\b(?:` + standingWords + `)\b|\w\s+from here(?:[,;!]|\.(?:\s|$)|$)|^new (?:rule|policy|convention)\b`
)

// The pieces of the change patterns that the prompt's decision, its
// correction and the retirement of something are all built from.
const (
	// alsoGone ends a retirement that says it is one more ("… too", "…
	// either"), with the reason after it ("too, the licence changed").
	alsoGone = `(?: too| as well| either)(?:(?:,| after| since| because| given| now that| [—–-])[^.;]{0,80})?`
	// gone retires the thing named before it: dropped, gone or retired,
	// or out when it says it is one more ("Prod is out." is an outage).
	gone = `(?:(?:is|are) (?:dropped|gone|retired|(?:being )?(?:torn down|shut down|decommissioned|retired))(?:` + alsoGone + `)?|(?:is|are) out` + alsoGone + `)`
	// promptMove: a prompt moving something ("auth goes to Clerk now",
	// "popup state is moving to Jotai",
	// "save games move from PlayerPrefs to …", "moving the jobs to …").
	promptMove = `^[\w-]+(?: [\w-]+)? (?:moves?|goes|go|(?:is|are) (?:moving|switching|migrating)) (?:from [^.;]{1,40}? )?(?:to|onto)\b|^(?:moving|switching|migrating|swapping) [^.;]{1,40}? (?:to|onto|for) \S`
	// weAreOnNow: a choice told as where the project is now ("that's
	// what we're on now").
	weAreOnNow = `\bthat'?s what we(?:'re| are) (?:on|using|going with|running) now\b`
)

var (
	causeRe = newCue(`(?i)\broot[- ]cause\b|^(?:this|it|that) happens (?:when|whenever|because)\b|\bthe (?:real|actual|underlying) (?:failure|error|reason)\b|\bthe (?:real |actual |underlying )?(?:issue|problem|bug|culprit|cause) (?:was|is|turned out)\b|\b(?:was|were|is|are) caused by\b|\bturned out\b|\b(?:(?:duplicate|double|failed|failing|missing|broken|extra|stale|wrong|empty|slow|dropped|lost|flaky|spurious|random|blank) [\w-]+|errors|failures|crashes|timeouts|\d{3}s|charges|drops|duplicates|dupes|leaks|spikes|exceptions|retries|logouts|stalls|hangs|outages|alerts) come from\b|\b(?:was|were|is|are) (?:failing|crashing|timing out|hanging|flaky|broken|erroring)\b|\b(?:fail(?:ed|s|ing)?|broke|crash(?:ed|es)?|happen(?:ed|s)?|hung|panick?ed|leak(?:ed|s)?|timed out) because\b|\b(?:which|that) is why\b|\bthat'?s why\b|\bthe reason (?:was|is)\b|\b(?:was|were) due to\b|\b(?:deadlock|leak|race|crash|segfault|panic|regression) (?:was|is) in\b|^(?:fixed|found it)\W{1,4}(?:it|this|that) was\b|^fixed\b(?:[^.:;—–]|\.\S)*(?::|\s[—–-])\s+(?:it|this|that|they)\b`, "cause", "issue", "problem", "bug", "culprit", "turned out", "came from", "comes from", "come from", "stemmed from", "stems from", "failing", "crashing", "timing out", "hanging", "flaky", "broken", "erroring", "because", "why", "reason", "due to", "deadlock", "leak", "race", "crash", "segfault", "panic", "regression", "fixed", "found it", "failure", "error", "happen")
	// todoLeadRe: a statement that opens as a todo.
	todoLeadRe = regexp.MustCompile(`(?i)^(?:todo|to-do|fixme)\b`)
	// explainsChangeRe: a change of design, often told with its reason.
	explainsChangeRe = regexp.MustCompile(`(?i)\binstead of\b|\bswitched\b|\b(?:moved|migrated) (?:[^.;]{0,40}?\b)?(?:from|to|again)\b|\bno longer\b|\breplaced\b|\b(?:is|are) (?:gone|dropped|removed)\b|\bnow (?:lives?|uses?|runs?|goes|is|are|stored)\b`)
	// retiredLeadRe: a change that opens by retiring something ("The
	// sidecar is dropped too: …"), whose "dropped" tells no failure.
	retiredLeadRe = regexp.MustCompile(`(?i)^(?:the |our )?[\w .-]{1,40}? (?:is|are) (?:dropped|gone|retired|removed)(?: too| as well| either)?\s*[:,;—–-]`)
	// strongCauseRe: words that say a failure's cause whatever else.
	strongCauseRe = regexp.MustCompile(`(?i)\broot[- ]cause\b|\bcaused by\b|\bthe (?:real |actual |underlying )?(?:issue|problem|bug|culprit) (?:was|is)\b|\bturned out\b`)
	// becauseRe with failRe makes a cause of "X was executed twice because …"
	// when the sentence does not start with what was done about it.
	becauseRe = regexp.MustCompile(`(?i)\bbecause\b`)
	failRe    = newCue(`(?i)\b(?:fail\w*|errors?|crash\w*|time(?:d)? ?outs?|timing out|hang\w*|leak\w*|flaky|broke\w*|twice|double\w*|skipp\w*|5\d\d|panic\w*|deadlock\w*|segfault\w*|oom\w*|wrong|stale|missing|lost|dropp(?:ed|ing)|slow|slower|sluggish)\b`, "fail", "error", "crash", "time", "timing out", "hang", "leak", "flaky", "broke", "twice", "doubl", "skipp", "5", "panic", "deadlock", "segfault", "oom", "wrong", "stale", "missing", "lost", "dropp", "slow", "sluggish")
	// actLeadRe: a statement that opens on what Claude or the team did
	// ("I relaxed …", "We've pinned …").
	actLeadRe = regexp.MustCompile(`(?i)^(?:i|we)(?:'ve| have)? (?:also |now |then |just )?(?:\w+ed|went|chose|took|kept|made|built|wrote|put|set)\b`)
	// keptAsAskedRe: something left undone on purpose, because the user
	// asked ("I didn't add it, since you asked to be asked first"): not
	// work left to do.
	keptAsAskedRe = regexp.MustCompile(`(?i)\b(?:did not|didn'?t|haven'?t|have not|won'?t)\b[^.;]*\b(?:since|because|as) (?:you|the user)\b`)
	actionRe      = regexp.MustCompile(`(?i)^(?:i|we|i've|we've|i'd|made|kept|used|set|put|built|wrote|chose|went|gave|\w+ed)\b`)

	todoRe = newCue(`(?i)\bstill needs?\b|\bstill (?:have|has) to\b|\bneeds? (?:to be )?(?:updating|migrating|porting|fixing|doing|the same)\b|\bnext step|^next,|\btodo\b|\bto-do\b|\bleft (?:\w+ ){0,3}for later\b|\bfor a follow[- ]?up\b|\ba follow[- ]?up (?:could|should|would|will|can)\b|\b(?:haven'?t|hasn'?t|isn'?t|aren'?t|didn'?t|wasn'?t|weren'?t|have not|has not|is not|are not|did not) [^.;]*\byet\b|\bnot (?:done|implemented|handled|supported|wired|covered) yet\b|\bnot yet\b|\bworth revisiting\b|\bremains? to be\b|\b(?:did not|didn'?t) (?:add|implement|handle|cover|support|get to)\b|\bwill need\b`, "still", "need", "next", "todo", "to-do", "for later", "follow", "yet", "worth revisiting", "remain", "did not", "didn")

	constraintRe = newCue(`(?i)\bmust(?: not)?\b|\bmustn'?t\b|\bnever\b|\balways\b|\bis required\b|\bare required\b|`+standing+`|\bfull stop\b|\b(?:nobody|no one) (?:runs?|merges?|pushes?|deploys?|applies|commits?|touches|edits?|ships?)\b|\b(?:repo|project|team|house|code|our)(?:'s)? (?:rule|convention|policy)\b|\b(?:the|our|a|house|repo|team|naming|project) convention (?:is|here|in|for)\b|\bby convention\b|\brule (?:in|from|that)\b|\bpins? (?:\w+ )?(?:\d|v\d|to\b)|\bpinned (?:to|at)\b|\bonly (?:allowed|supported)\b`, "must", "never", "always", "required", "from now on", "going forward", "from here", "from today", "from this point", "full stop", "nobody", "no one", "rule", "convention", "policy", "pin", "only allowed", "only supported")

	decisionRe = newCue(`(?i)\b(?:went|go|going|gone) with\b|\bchose\b|\bchosen\b|\bpicked (?:it|them|this|that|\S+) because\b|\bopted (?:for|to)\b|\bdecided (?:to|on|against)\b|\bsettled on\b|\bstandardi[sz]ed on\b|\bswitched\b|\b(?:migrated|moved|converted|changed) (?:[^.;]|\.\S)*?\bfrom\b (?:[^.;]|\.\S)*?\bto\b|\breplaced\b|\bdropped\b|\bno longer\b|\b(?:is|are) (?:now )?(?:gone|removed|dropped|retired)\b|\b(?:is|are) back (?:in|to|on)\b|\b(?:moved|switched|changed|migrated) (?:[^.;]{0,40}?\b)?again\b|\bkept [^.;]*\b(?:for compatibility|so that|so the|so it|because|since|rather|for one release|to avoid)\b|\bnow (?:runs?|lives?|goes|sits?) (?:on|through|in (?:a|an|the|our|its))\b|\b(?:is|are) now (?:handled|managed|stored|kept|served|hosted|deployed|tracked|backed|powered|done|built) (?:with|by|in|on|through)\b`, " with", "now", "chose", "picked", "opted", "decided", "settled on", "standardi", "switched", "from", "replaced", "dropped", "no longer", "kept", "gone", "removed", "retired", "back", "again")
	// nowStateRe: a state told as the new one ("styling is Tailwind now",
	// "they're RS256 now"), not a test or build result ("the tests are
	// green now").
	nowStateRe  = newCue(`(?i)(?:\b(?:is|are)|'re)\s+(?:[\w./+-]+\s+){0,3}?[\w./+-]+\s+now\b`, " now")
	nowResultRe = regexp.MustCompile(`(?i)(?:\b(?:is|are)|'re)\s+(?:all\s+|both\s+)?(?:green|passing|fixed|fine|ok|okay|working|done|fast|faster|slower|correct|right|wrong|broken|failing|ready|live|up|down|back|empty|there|gone)\s+now\b`)
	// movedToRe: a move of where something lives or runs, which with
	// its reason ("Moved uploads to R2: same API, no egress fees") is a
	// decision, and a change of where it was; a bare move is a refactor.
	movedToRe = regexp.MustCompile(`(?i)^(?:i |we )?(?:moved|migrated|switched|ported) (?:[^.;:]|\.\S){1,40}? (?:to|onto) \S`)
	// actReasonRe: what Claude did, told with its reason in prose ("I
	// moved the check into a plug, so a new handler can't forget it").
	actReasonRe    = regexp.MustCompile(`(?i)^(?:(?:while|since|as|when|to|for) [^,]{1,60}, |(?:while|since|as|when|after|before) (?:i|we) [^,]{1,40}? )?(?:i|we)(?:'ve)? (?:also |now |then )?(?:\w+ed|convert|use|keep|store|send|route|run|put|build|wrap|cache|split|return)\b`)
	actNotChoiceRe = regexp.MustCompile(`(?i)^(?:(?:while|since|as|when|to|for) [^,]{1,60}, )?(?:i|we)(?:'ve)? (?:also |now |then )?(?:checked|tested|verified|confirmed|looked|tried|noticed|reproduced|ran|added (?:a |some |more )?tests?|suspected|guessed|assumed|expected|hoped|wanted|needed|asked|fixed)\b`)
	// weakDecisionRe: words that make a choice of an act ("I used X instead
	// of Y") but also describe what code does ("it uses a transaction per
	// file instead of one"); in prose they need actRe too.
	weakDecisionRe = newCue(`(?i)\binstead\b|\brather than\b|\bin favou?r of\b|\btrade-?off\b`, "instead", "rather than", "in favo", "trade")
	actRe          = regexp.MustCompile(`(?i)\b(?:i|we|i've|we've|now|went|chose|kept|made|built|wrote|put|set|took|gave|left|\w{2,}ed)\b`)
	// describesRe: "always"/"never" before a verb in the third person
	// tells what code does ("it never retries"), not a rule.
	describesRe = regexp.MustCompile(`(?i)\b(?:always|never)\s+\w*[^s\W]s\b`)
	// neverDidRe: so does "never" before a past tense ("it was added once
	// and never touched again"): what happened, not a rule — unless a
	// present passive makes it one ("generated files are never edited").
	neverDidRe = regexp.MustCompile(`(?i)\b(\w+)\s+never\s+(?:\w+ed|ran|got|went|came|made|saw|took|held|left|built|caught|wrote|written|done|seen|taken)\b`)

	// rationaleRe marks an edit given with its reason: in a list of changes
	// such an item is a decision, a bare edit is not.
	rationaleRe = newCue(`(?i)\bso that\b|\bso (?:it|the|we|they|clients|callers|users|tests|a|an|both|refunds|there|nobody|only|that|nothing|each|every|you)\b|\bso \S+ (?:is|are|can|can't|cannot|won't|doesn't|don't|isn't|aren't|stays?|gets?|works?|runs?|will|never|only|uses?|has|have|needs?)\b|\bbecause\b|\bsince\b|\bto avoid\b|\bto keep\b|\bfor compatibility\b|\bin order to\b`, "so ", "because", "since", "to avoid", "to keep", "for compatibility", "in order to")

	changeRe = newCue(`(?i)\bscrap(?:ped|ping)?\b|\bswap(?:ped|ping)? (?:\w+ ){0,4}?(?:for|with|to|out)\b|\binstead\b|\bno longer\b|\bswitch(?:ed|ing)? (?:\w+ ){0,4}?(?:from|to|again)\b|\bswitched\b|\bdropped\b|\bdrop\b|\breplac(?:e|ed|ing)\b|\bnow use[sd]?\b|\b(?:migrated|migrates|moved|moves|changed|changes) (?:\w+ ){0,4}?(?:from|again)\b|\bnot anymore\b|\banymore\b|\bin favou?r of\b|\b(?:is|are) (?:gone|dropped|removed|retired)\b|\bnow (?:lives?|is|are|runs?|goes|sits?|stored|kept|in)\b|\b(?:is|are) back\b|\b(?:moving|moved|move) off\b|\bditch(?:ed|ing)?\b|\bwe(?:'re| are) off (?-i:[A-Z0-9\x60])|(?:'s|\bis|\bare) out,? [\w.+-]+(?: [\w.+-]+)? (?:is|are) in\b|\brevert(?:ed|ing)? to\b|\b(?:go|going|switch|switched) back to\b|\bwe(?:'re| are) (?:moving|migrating) (?:\w+ ){0,4}?(?:to|onto)\b|\b(?:goes|go|going) away\b|`+weAreOnNow+`|\b(?:is|are) now (?-i:[A-Z0-9\x60])`, "scrap", "swap", "what we", "ditch", "moving", "migrating", "away", " off", " out", "revert", "back to", "instead", "no longer", "switch", "drop", "replac", "now ", "from", "again", "anymore", "in favo", "gone", "removed", "retired", "back", "off")

	standingRe = regexp.MustCompile(`(?i)` + standing)
	// fillerRe is talk about the conversation, not the project.
	fillerRe   = regexp.MustCompile(`(?i)^(?:i (?:haven'?t|have not|didn'?t|did not) (?:changed?|touched?|done|edited?) anything\b|let me know|let me|let's see|i'll|i will|i'm going to|i am going to|i can|i could|i'd like your|would you|want me|do you want|should i|shall i|if you|feel free|hope|happy to|here'?s|here is|tell me|please|could you|can you|thanks|all done|done|ready)\b`)
	testOnlyRe = regexp.MustCompile(`(?i)^(?:added|add|new|updated|wrote|extended)\b[^.]*\btests?\b|^(?:tests?|specs?)\b|_test\.go\b|\.(?:test|spec)\.[jt]sx?\b|\btest_\w+\.py\b`)
)

// cueRe is a case-insensitive pattern with the lowercase words one of
// which every match contains. Go's regexp runs an alternation of a few dozen
// phrases at a few MB/s at best; most statements carry none of the words, so
// a strings.Contains on each first skips the regexp for them.
type cueRe struct {
	re   *regexp.Regexp
	lits []string
}

func newCue(pattern string, lits ...string) *cueRe {
	return &cueRe{re: regexp.MustCompile(pattern), lits: lits}
}

// MatchString reports whether s matches, skipping the regexp when none of
// the words is in s.
func (c *cueRe) MatchString(s string) bool {
	lower := strings.ToLower(s)
	for _, l := range c.lits {
		if strings.Contains(lower, l) {
			return c.re.MatchString(s)
		}
	}
	return false
}

// classifyAnswer gives a unit of an answer its kind, if it has one.
func classifyAnswer(u unit) (Kind, bool) {
	t := strings.TrimSpace(cleanInline(u.text))
	if t == "" || u.checked || u.sec == secSkip || isQuestion(t) {
		return "", false
	}
	if fillerRe.MatchString(t) {
		// "I'll …" is talk about this turn, unless it promises a standing rule.
		if standingRe.MatchString(t) {
			return KindConstraint, true
		}
		return "", false
	}
	if u.byDefault {
		switch u.sec {
		case secTodo:
			return KindTodo, true
		case secCause:
			return KindCause, true
		case secConstraint:
			return KindConstraint, true
		case secDecision:
			if !testOnlyRe.MatchString(t) {
				return KindDecision, true
			}
		}
	}
	if k, ok := cue(t, u.item); ok {
		return k, true
	}
	if u.sec == secChange || u.sec == secDecision || u.sec == secNone {
		// A list item under no label that says what it is for ("… so
		// the dashboard plots one point per 30 s") is a line of what
		// changed; one under a decisions label, or that says why or over
		// what, is a choice.
		if u.item && rationaleRe.MatchString(t) && !testOnlyRe.MatchString(t) && (u.sec != secNone || OwnReason(t) || guardsRe.MatchString(t)) {
			return KindDecision, true
		}
	}
	return "", false
}

// cue classifies a statement by the phrases it carries; a list item may
// state a choice without saying who made it ("Return 422 instead of 500").
func cue(t string, item bool) (Kind, bool) {
	t = notOurDrop(t)
	switch {
	case todoLeadRe.MatchString(t):
		return KindTodo, true // "TODO: …" whatever follows
	case pronounActRe.MatchString(t) && !rationaleRe.MatchString(t) && !becauseRe.MatchString(t):
		// "I dropped it there.", "I removed it from that profile; the
		// wasm is 1.3 MB again": what was done to what was just named.
		return "", false
	case becauseRe.MatchString(t) && explainsChangeRe.MatchString(t) && !strongCauseRe.MatchString(t) && (!failRe.MatchString(beforeBecause(t)) || retiredLeadRe.MatchString(t)):
		// "The cache now lives in Redis instead of in memory, because the
		// two replicas must share it": a change with its reason.
		return KindDecision, true
	case choiceMadeRe.MatchString(t) && beforeReason(t) != t && choiceMadeRe.MatchString(beforeReason(t)) && !strongCauseRe.MatchString(t) && !becauseRe.MatchString(t) && (causeRe.MatchString(t) || cameFromRe.MatchString(t)):
		// "Went with anyhow over thiserror, since … when a header is
		// broken": a choice whose reason speaks of failures, not a cause.
		return KindDecision, true
	case causeRe.MatchString(t):
		return KindCause, true
	case cameFromRe.MatchString(t) && !whereFromRe.MatchString(t) && (pastFromRe.MatchString(t) || failRe.MatchString(t)):
		// "The duplicates came from the retry loop", "the 502s come from
		// the proxy" — not "the Total column comes from a second pass"
		// nor "shows where each value came from".
		return KindCause, true
	case becauseRe.MatchString(t) && failRe.MatchString(t) && !actionRe.MatchString(t) && !todoRe.MatchString(t) && !choiceMadeRe.MatchString(beforeBecause(t)):
		return KindCause, true
	case todoRe.MatchString(beforeReason(t)) && !keptAsAskedRe.MatchString(t):
		// "… since the API needs the same protection": the reason's
		// words leave nothing open.
		return KindTodo, true
	case constraintRe.MatchString(t) && constraintRe.MatchString(withoutDescriptions(t)) &&
		!(actLeadRe.MatchString(t) && !anyConstraintRe.MatchString(beforeReason(t))):
		// "I relaxed that pin to 1.38 so …" tells what was done, not a rule.
		return KindConstraint, true
	case toolSwap(t):
		// "Swapped Moment.js for date-fns", "Luxon replaces date-fns
		// everywhere": one named tool put in place of another is a change
		// of design, reason or not.
		return KindDecision, true
	case measuredOutcome(t):
		// "Compile time is back to 4.6 s and the lit suite passes": what
		// a change achieved, measured, is no choice.
		return "", false
	case decisionRe.MatchString(t), weakDecisionRe.MatchString(t) && (item || actRe.MatchString(t) || rationaleRe.MatchString(t)),
		movedToRe.MatchString(t) && (rationaleRe.MatchString(t) || strings.Contains(t, ": ")),
		nowStateRe.MatchString(t) && !nowResultRe.MatchString(t),
		!item && actReasonRe.MatchString(t) && !actNotChoiceRe.MatchString(t) && rationaleRe.MatchString(t) && !testOnlyRe.MatchString(t):
		return KindDecision, true
	}
	return "", false
}

var (
	// pronounActRe: an action on what the sentence before named.
	pronounActRe = regexp.MustCompile(`(?i)^(?:so |then |and )?(?:i|we)(?:'ve| have)? (?:also |just )?(?:dropped|removed|deleted|reverted|disabled|replaced|moved|switched|fixed|updated|renamed) (?:it|them|that|this|those)\b`)
	// choiceMadeRe: a clause that makes a choice ("I went with X rather
	// than Y"), which its reason does not turn into a cause.
	choiceMadeRe = newCue(`(?i)\b(?:went with|go with|going with|chose|chosen over|picked|opted for|settled on|rather than|instead of|in favou?r of)\b`, "went with", "go with", "going with", "chose", "picked", "opted", "settled on", "rather than", "instead of", "in favo")
	// figureRe: a measured figure, with its unit.
	figureRe = regexp.MustCompile(`\b\d+(?:[.,]\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|min|mins|minutes|h|hours|KB|kB|MB|GB|MiB|GiB|Mpps|Kpps|pps|rps|qps|req/s|ops/s|fps|Hz|kHz|MHz|Gb/s|Mb/s|MB/s|GB/s|x|×|%)(?:\s|[.,;:)]|$)|\(\d+/\d+\)`)
	// outcomeRe: what a result says happened ("passes", "is gone from the
	// profile", "no longer smears", "is back to", "no drops").
	outcomeRe = regexp.MustCompile(`(?i)\b(?:pass(?:es)?|passing|green|is back to|are back to|back to where|(?:is|are) gone (?:from|at|in|on)|no longer \w+s\b|no (?:drops|errors|failures|regressions)|runs at|dropped to|down to|up to)\b`)
	// figureInsteadRe: a figure compared with the one before ("takes 11 s
	// instead of 3 min"), no alternative chosen.
	figureInsteadRe = regexp.MustCompile(`(?i)\b(?:instead of|rather than|over|from|down from|up from) ~?\d[\w.,]*(?:\s?\w{1,4})?`)
	// nowTakesRe: a figure that is what something now measures.
	nowTakesRe = regexp.MustCompile(`(?i)\bnow (?:takes|runs in|finishes in|costs|uses|weighs|loads in|builds in)\b`)
	// choiceWordRe: what makes a sentence with a figure a choice still.
	choiceWordRe = regexp.MustCompile(`(?i)\b(?:because|since|so that|instead|rather than|in favou?r of|over|went with|chose|switched|replaced|from now on|going forward)\b`)

	// theyDroppedRe: something else dropped or removed a thing ("The
	// ubuntu-24.04 runner image dropped NDK 26 in last week's update"):
	// news from upstream, not a choice of the project's.
	theyDroppedRe = regexp.MustCompile(`(?i)^((?:the|a|an|their|its|upstream|github'?s|apple'?s|google'?s)\s(?:[\w.@/+'\x60-]+\s){1,5})(?:dropped|removed|deprecated|pulled)\s`)
	// droppedToRe: a value lowered ("Dropped it to 4 workers"), not a
	// thing removed.
	droppedToRe = regexp.MustCompile(`(?i)\bdropped ((?:it|them|this|that|[\w.-]+) (?:down )?to ~?\d)`)
	// droppedFromRe: a figure that fell ("latency dropped from 95ms to
	// 4ms").
	droppedFromRe = regexp.MustCompile(`(?i)\bdropped (from ~?\d)`)
	// countDroppedRe: a count of what was lost ("0 dropped"), or a loss
	// ("anything later is silently dropped", "events are getting dropped").
	countDroppedRe = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?%?|silently|quietly|being|getting|gets?) (?:dropped|removed)\b`)
	// passiveLastRe: the word before the verb makes it a passive ("the
	// sidecar is dropped"), which is a choice of the project's.
	passiveLastRe = regexp.MustCompile(`(?i)\b(?:is|are|was|were|been|being|got|gets|be|now)\s$`)
)

// swapRe and replacesRe: one thing put in place of another ("Swapped
// Moment.js for date-fns", "Replaced ntfy with UnifiedPush", "Luxon
// replaces date-fns everywhere").
var (
	swapRe     = regexp.MustCompile(`(?i)^(?:done[:,—–-]\s*)?(?:i |we )?(?:swapped|replaced|switched)\s+(?:out\s+)?(?:the\s+|our\s+)?([\w.+#@/-]+(?:\s[\w.+#@/-]+)?)\s+(?:for|with|to)\s+([\w.+#@/-]+(?:\s[\w.+#@/-]+)?)`)
	replacesRe = regexp.MustCompile(`(?i)^(?:done[:,—–-]\s*)?([\w.+#@/-]+(?:\s[\w.+#@/-]+)?)\s+(?:now\s+)?replaces\s+(?:the\s+|our\s+)?([\w.+#@/-]+(?:\s[\w.+#@/-]+)?)`)
)

// toolSwap reports whether t puts one named tool in place of another:
// both sides name a tool (or a product, capitalised), and not the same.
func toolSwap(t string) bool {
	m := swapRe.FindStringSubmatch(t)
	if m == nil {
		m = replacesRe.FindStringSubmatch(t)
	}
	if m == nil || strings.EqualFold(m[1], m[2]) {
		return false
	}
	named := func(s string) bool {
		return len(toolsIn(s)) > 0 || s != "" && s[0] >= 'A' && s[0] <= 'Z' && !determiners[strings.ToLower(strings.Fields(s)[0])]
	}
	return named(m[1]) && named(m[2])
}

// measuredOutcome: a sentence that reports what a change achieved, with a
// figure, and gives no reason or alternative: a result, not a choice.
func measuredOutcome(t string) bool {
	if !strings.ContainsAny(t, "0123456789") {
		// Without a figure only two results make one ("passes …, and …
		// no longer crashes"): a literal first, most statements have none.
		lower := strings.ToLower(t)
		if !strings.Contains(lower, "pass") && !strings.Contains(lower, "no longer") && !strings.Contains(lower, "green") {
			return false
		}
	}
	outcomes := len(outcomeRe.FindAllStringIndex(t, 3))
	return (figureRe.MatchString(t) && outcomes > 0 || outcomes > 1 || figureRe.MatchString(t) && nowTakesRe.MatchString(t)) &&
		!choiceWordRe.MatchString(figureInsteadRe.ReplaceAllString(t, ""))
}

// notOurDrop is t with the "dropped" that tells no choice of the
// project's said neutrally: an upstream's removal, a value lowered.
func notOurDrop(t string) string {
	if lower := strings.ToLower(t); !strings.Contains(lower, "dropped") && !strings.Contains(lower, "removed") &&
		!strings.Contains(lower, "deprecated") && !strings.Contains(lower, "pulled") {
		return t // most statements: no regexp run
	}
	if sm := theyDroppedRe.FindStringSubmatchIndex(t); sm != nil && !passiveLastRe.MatchString(t[:sm[3]]) {
		t = t[:sm[3]] + "lost " + t[sm[1]:]
	}
	t = droppedFromRe.ReplaceAllString(t, "fell $1")
	return countDroppedRe.ReplaceAllString(droppedToRe.ReplaceAllString(t, "set $1"), "$1 lost")
}

// withoutDescriptions is t without the "always" and "never" that tell
// what code does or what happened rather than set a rule.
func withoutDescriptions(t string) string {
	t = describesRe.ReplaceAllString(t, "")
	return neverDidRe.ReplaceAllStringFunc(t, func(m string) string {
		switch strings.ToLower(strings.Fields(m)[0]) {
		case "is", "are", "be", "get", "gets":
			return m
		}
		return ""
	})
}

// beforeReason is t up to the reason it gives ("since the numbers must
// be live": the rule is the reason's, not the statement's).
func beforeReason(t string) string {
	if loc := reasonRe.FindStringIndex(t); loc != nil {
		return t[:loc[0]]
	}
	return t
}

// reasonRe: what opens a statement's reason.
var reasonRe = regexp.MustCompile(`(?i)\b(?:because|since|so that|as)\b`)

// beforeBecause is t up to its first "because": the failure a change's
// reason tells ("instead of the cron, because the cron was missing
// files") does not make the change a cause.
func beforeBecause(t string) string {
	if loc := becauseRe.FindStringIndex(t); loc != nil {
		return t[:loc[0]]
	}
	return t
}

// isQuestion reports whether a statement asks rather than states.
func isQuestion(t string) bool {
	t = strings.TrimRight(t, " )*_\"'")
	return strings.HasSuffix(t, "?")
}

var (
	// promptLeadRe strips what a prompt's sentence opens with before the
	// instruction itself: "no,", "actually", "ok,", "please".
	promptLeadRe = regexp.MustCompile(`(?i)^(?:no+\s*[,.!:;—–-][\s,.!:;—–-]*|(?:nope|nah|actually|ok(?:ay)?|also|and|but|so|hmm+|wait|yes|yeah|sure|right|please|pls|one more thing|btw|(?:a |one )?separate (?:thing|note|topic)|unrelated|another thing|side note|on another note)\b[\s,.!:;—–-]*|(?:(?:in|for) (?:this|the|our) (?:codebase|code ?base|repo|repository|project)\s+)?make sure(?: that)?(?: you)?\s+|(?:in|for) (?:this|the|our) (?:codebase|code ?base|repo|repository|project),?\s+)+`)
	askRe        = regexp.MustCompile(`(?i)^(?:can|could|would|will|how|what|why|where|when|which|who|is|are|does|do you|did|should)\b`)
	// promptDecisionRe: the user picks something for the project.
	promptDecisionRe = regexp.MustCompile(`(?i)^(?:change of plan|new plan|plan change|correction)(?: (?:for|on) [\w .-]{1,30}?)?\s*[:,—–-]|^[\w .-]{2,30} decision:\s*\S|^[\w .-]{2,30} (?:goes|go|went|is going|are going) back to\b|^(?:we(?:'ve)? )?(?:switched|changed|moved) (?:it |this |that |them )?again\b|^[\w .'-]{2,40}? (?:changed|switched|moved) again\s*:\s*\S|^(?:(?:final|last|my) )?(?:call|decision|verdict|word|answer) (?:on|for|about) [\w .-]{2,30}:\s*\S|^[\w .-]{2,50}:\s*we(?:'re| are) (?:on|using|going with|moving to|switching to|replacing|dropping|swapping|moving off|switching off|writing|building|rolling)\b|` + promptMove + `|^we(?:'re| are) off (?-i:[A-Z0-9\x60])|^[\w.+-]+(?:'s| is| are) out,? [\w.+-]+(?: [\w.+-]+)? (?:is|are) in\b|^(?:revert|go back|switch back|back) to\b|^[\w.@/+-]+(?: [\w.@/+-]+)? instead of\b|^(?:so |and |then |ok,? |okay,? )?we(?:'re| are) (?:moving|switching|migrating|deploying|going with|dropping|replacing|ditching|done with)\b|^(?:so |and |then |ok,? |okay,? )?we(?:'re| are) (?:doing|using|building|writing|running|shipping|taking) [^.;?]{2,100}?\binstead\b|^(?:[\w ]{1,30}:\s*)?(?:the |our )?[\w -]{1,40}? (?:is|are) now (?-i:[A-Z0-9\x60])|^[\w -]{0,30}\b(?:model|scheme|strategy|approach|design|format|backend|engine|transport|layout|architecture)(?: for [\w -]{1,30})?:\s*\S|^we (?:no longer|don'?t) (?:use|need|run|want)\b|^[\w.@/-]+(?: [\w.@/-]+)? ` + gone + `\s*[.!]?$|^we(?:'ll| will) (?:host|deploy|run|store|keep|put)\b|^(?:let'?s|let us|we(?:'ll| will| should)|i(?:'d| would)? (?:want|prefer) (?:to|us to)) (?:go with|use|switch|move|migrate|drop|stick with|adopt|standardi[sz]e on|replace|keep)\b|^(?:go with|stick with|switch|move|migrate) [^.;]*?\b(?:from|to|over)\b|^swap (?:out )?[^.;]{1,40}?\b(?:for|with)\b|^replace [^.;]{1,40}?\bwith\b|^drop [^.;]*\b(?:entirely|completely|altogether)\b|` + weAreOnNow + `|^(?:i |we )?(?:moved|switched|migrated|swapped) (?:[^.;]|\.\S){1,60}? (?:to|onto) [^.;]{1,60}?\b(?:instead|since|because)\b|^(?:every|each|all|the|our) [\w -]{1,30}? (?:logs?|runs?|goes|go|deploys?|lives?|sends?|talks?|builds?) (?:through|via|on|to|in) [^.;]{1,60}? now\b|^(?:` + standingWords + `),? (?:the |our |all |every )?[\w .-]{1,30}? (?:runs?|lives?|is hosted|are hosted|is deployed|are deployed|deploys?) (?:on|in|at|to)\b`)
	// neverHappensRe: what something never does, told of a third party
	// ("the emails never arrive", "the job never finishes").
	neverHappensRe = regexp.MustCompile(`(?i)^(?:the |our |half (?:of )?the |some (?:of )?the |most (?:of )?the |\w+ )?[\w\s,/~.-]{0,80}?\b(?:never|always) (?:arrives?|works?|loads?|shows? up|appears?|finish(?:es)?|completes?|happens?|fires?|reach(?:es)?|succeeds?|gets? (?:sent|delivered|called)|go(?:es)? out|returns?|responds?|ends?|starts?|crash(?:es)?|fails?|times? out|hangs?)\b`)
	ruleWordRe     = regexp.MustCompile(`(?i)\bmust\b|` + standing + `|^(?:please )?(?:never|always|don'?t|do not)\b`)
	// clauseConstraintRe: a clause that opens as a standing instruction.
	clauseConstraintRe = regexp.MustCompile(`(?i)^(?:(?:and |also,? )?(?:nobody|no one) (?:ever )?(?:runs?|merges?|pushes?|deploys?|applies|commits?|touches|edits?|ships?|publishes)\b)|(?:(?:and |also,? )?no (?:new |more |further )?[\w.-]+(?: [\w.-]+){0,2},? (?:period|full stop|ever|at all)\b)|(?:we|you) (?:don'?t|do not|never|always)\b|^(?:please )?(?:don'?t|do not|never|always|stop|from now on|keep|avoid|no more|only ever)\b|^no (?:new |more |further )?[\w.-]+(?: [\w.-]+)? (?:in|on|for|anywhere in) (?:this|the|our|any) (?:codebase|code ?base|repo|repository|project|code|app|service)\b|^(?:please )?use\b[^.;]*?\b(?:not|instead of|rather than|never|only|over)\b|^(?:please )?use \S+(?: \S+)? for (?:all|every|any)\b`)
	// ruleLabelRe: a rule announced as one ("Rule of thumb for this repo:
	// …", "House style is: …", "Team convention:").
	ruleLabelRe = regexp.MustCompile(`(?i)^(?:and |also |plus )?(?:(?:a |one )?rule of thumb|(?:one|general|important|big) thing|(?:our |the )?house (?:style|rules?)|(?:our |the |a )?(?:team|repo|project|code) (?:rule|convention|policy|style)|(?:our |the |one |a )?(?:new |general |hard |firm |golden |strict |simple )?(?:rule|convention|policy|constraint|requirement)|ground rule|new (?:bar|floor|ceiling|threshold|limit|minimum|maximum))(?: for (?:(?:this|the|our|all|every|any) )?[\w./ -]{1,30}?)?(?: (?:after|from|since|following|per) [\w .'-]{1,50}?)?(?: here)?(?:,\s*[\w ,]{1,40}?)?(?: is)?\s*:\s*\S`)
	// isTheRuleRe: a rule said last ("every 5 minutes is the rule",
	// "squash merges only, that's the rule now").
	isTheRuleRe = regexp.MustCompile(`(?i)^\S.{2,80}?(?:,?\s+(?:that'?s|thats|this is)|\s+is)\s+the (?:new )?(?:rule|policy|convention)(?: (?:now|from now on|going forward))?(?:[.!]?$|[.!]?\s*,\s)`)
	// turnOnlyRe: an instruction for this turn only ("Don't apply
	// anything.", "Do not push it yet.").
	turnOnlyRe = regexp.MustCompile(`(?i)^(?:please )?(?:don'?t|dont|do not) \w+ (?:anything|it|that|this|them)(?: yet| for now| now| just yet)?(?:,? (?:just |only )?(?:tell|show|explain|ask|give) (?:me|us)\b[^.!]*)?[.!]?$`)
	// categoryChoiceRe: a tool chosen for a category, from now on
	// ("Error tracking: AppSignal from here on."): a decision, not a rule.
	categoryChoiceRe = regexp.MustCompile(`(?i)^[\w .-]{2,30}:\s*[\w.@/+-]+(?:\s[\w.@/+-]+){0,2}\s+(?:` + standingWords + `)[.!]?$`)
	// labelNowRe: a choice told as a label and what holds now
	// ("Diagnostics: ITM/SWO now, since we bought a J-Trace probe",
	// "Credentials: Vault now, through Kubernetes auth"): a decision that
	// changes an earlier one; so does "Orchestrator: Dagster Cloud,
	// starting this sprint".
	labelNowRe = regexp.MustCompile(`(?i)^[\w .-]{2,30}:\s*[\w.@/+-]+(?:\s[\w.@/+-]+){0,3}(?:\s+now\b(?:\s*[.!]?$|\s*[,;—–]|\s+-\s|\s+(?:since|because|as|through|via|with|that|for|on)\b)|,?\s+(?:starting|effective|as of|from) (?:this|next|today|tomorrow|now|monday|the next)\b)`)
	// boundLabelRe: a bound set as a label and its value ("Lowest
	// supported API level: 31.", "Max line width: 120 columns.").
	boundLabelRe = regexp.MustCompile(`(?i)^(?:the |our )?(?:lowest|highest|minimum|maximum|min|max|oldest|newest|smallest|largest) [\w .-]{1,30}:\s*[~≥≤<>=]*\s*\d[\w.%]*(?:\s+[\w%]+)?\s*[.!]?$`)
	// anyConstraintRe: words that make a rule wherever they stand.
	anyConstraintRe = regexp.MustCompile(`(?i)\bstandardi[sz](?:e|es|ing|ed) on\b|\b(?:merges?|builds?|ci|deploys?|releases?|prs?|the merge|the build) (?:is |are |gets? )?(?:blocked|fails?|rejected) otherwise\b|\bor (?:ci|the build|the merge|the pipeline) fails\b|^no [\w.-]+(?: [\w.-]+){0,4},? ever\b|\b(?:rule|limit|policy|ban) (?:is|was) (?:gone|dropped|lifted|relaxed|scrapped)\b|\bmust(?: not)?\b|\bmustn'?t\b|\bnever\b|` + standing + `|\bfull stop\b`)
	// logLineRe: pasted logs, errors and stack traces.
	logLineRe = regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}\b|\b(?:ERROR|WARN(?:ING)?|FATAL|Traceback|Exception|panic:|goroutine \d+)\b|(?i:\berror:|\bat [\w.$<>]+\([^)]*:\d+)|^\s*[\w./-]+\.\w+:\d+`)
	// correctionRe: a prompt that opens by overruling what came before
	// ("no, …", "actually …", "instead …") or by moving something ("auth
	// goes to Clerk now") changes an earlier choice.
	correctionRe  = regexp.MustCompile(`(?i)^(?:no+|nope|nah|actually|instead|rather|wait|change of plan|new plan|plan change|correction)\b|` + promptMove)
	clauseSplitRe = regexp.MustCompile(`\s*(?:[,;:]|\s[—–-]\s|\band\b|\bthen\b)\s*`)
)

// classifyPrompt reads one sentence of a prompt; the text it returns is the
// sentence without its conversational opening ("no, use pnpm" → "use pnpm").
func classifyPrompt(s string) (Kind, string, bool) {
	s = strings.TrimSpace(cleanInline(s))
	if isQuestion(s) {
		return "", "", false
	}
	if logLineRe.MatchString(s) {
		return "", "", false // pasted output: "must be a string" is the program's rule, not the user's
	}
	body := strings.TrimSpace(promptLeadRe.ReplaceAllString(s, ""))
	if body == "" || askRe.MatchString(body) && !askLabelRe.MatchString(body) {
		return "", "", false // "Where flows execute: …" is a label, not a question
	}
	if turnOnlyRe.MatchString(body) {
		return "", "", false // "Don't apply anything.": this turn's instruction
	}
	if categoryChoiceRe.MatchString(body) || labelNowRe.MatchString(body) && !standingRe.MatchString(body) {
		return KindDecision, body, true // "Error tracking: AppSignal from here on."
	}
	if boundLabelRe.MatchString(body) {
		return KindConstraint, body, true // "Lowest supported API level: 31."
	}
	if labelledTool(body) {
		return KindDecision, body, true // "Asset pipeline: Vite with vite-plugin-shopify, we want HMR"
	}
	if loc := ruleLabelRe.FindStringIndex(body); loc != nil && loc[1] < len(body) {
		return KindConstraint, body, true // "House style is: no :refer :all in ns forms"
	}
	if isTheRuleRe.MatchString(body) {
		return KindConstraint, body, true // "every 5 minutes is the rule"
	}
	if topicReturnRe.MatchString(body) {
		return "", "", false // "back to the witness signing failure": the conversation's topic, not a choice
	}
	if promptDecisionRe.MatchString(body) || labelMoveRe.MatchString(body) || againChoice(body) {
		return KindDecision, body, true
	}
	if imperInsteadRe.MatchString(body) && !isQuestion(body) && !turnOnlyRe.MatchString(body) {
		// "log everything to our mlflow server instead, same rule
		// otherwise": a change of design the user directs.
		return KindDecision, body, true
	}
	if nowStateRe.MatchString(body) && !nowResultRe.MatchString(body) && !failRe.MatchString(body) && !standingRe.MatchString(body) &&
		(copulaSubject(body) != "" || copulaSubject(labelLeadRe.ReplaceAllString(body, "")) != "") {
		// "The handbook is Typst documents now": how a thing is, since a
		// change the user made.
		return KindDecision, body, true
	}
	if neverHappensRe.MatchString(body) && !ruleWordRe.MatchString(body) {
		return "", "", false // "Half the emails never arrive": a report, not a rule
	}
	if anyConstraintRe.MatchString(body) {
		return KindConstraint, body, true
	}
	if clauseConstraintRe.MatchString(body) {
		return KindConstraint, body, true
	}
	for _, c := range clauseSplitRe.Split(body, 8) {
		c = strings.TrimSpace(promptLeadRe.ReplaceAllString(c, ""))
		if clauseConstraintRe.MatchString(c) {
			return KindConstraint, body, true
		}
	}
	if insteadWhyRe.MatchString(body) || replacedWithRe.MatchString(body) || nowGoesRe.MatchString(body) {
		// "housekeeping updates: consume them from the group's Kafka
		// topic instead of Opera webhooks, since …": a change with its
		// reason.
		return KindDecision, body, true
	}
	return "", "", false
}

// askLabelRe: a label that opens with a question word ("Where flows
// execute: everything on Modal …").
var askLabelRe = regexp.MustCompile(`^(?i:where|how|what|which|when|who)\b[^?:]{1,40}:\s+\S`)

// againChoiceRe: a choice made again ("savegames are binser again").
var againChoiceRe = regexp.MustCompile(`(?i)\b(?:is|are|goes|go) (?:back (?:on|to) )?([\w.@/+-]+) again\b`)

// notChoiceAgain are the states a thing is in again, not choices
// ("TestUploadResumes is flaky again").
var notChoiceAgain = map[string]bool{"flaky": true, "broken": true, "failing": true, "down": true, "up": true, "slow": true, "red": true,
	"green": true, "fine": true, "ok": true, "okay": true, "working": true, "stuck": true, "empty": true, "missing": true, "late": true,
	"live": true, "back": true, "out": true, "wrong": true, "here": true, "there": true}

// againChoice reports whether a prompt's sentence makes a choice again.
func againChoice(body string) bool {
	m := againChoiceRe.FindStringSubmatch(body)
	return m != nil && !notChoiceAgain[strings.ToLower(m[1])] && !strings.HasSuffix(strings.ToLower(m[1]), "ing")
}

// toolLabelRe: a label and the first words after it ("Asset pipeline:
// Vite with …").
var toolLabelRe = regexp.MustCompile(`^([A-Za-z][\w .-]{1,30}):\s+([\w.@/+-]+(?: [\w.@/+-]+)?)`)

// labelledTool reports whether a prompt's sentence labels a subject with
// a tool the lexicon knows, named first: a choice for it, told tersely.
// A label that is a rule's or a report's ("Rule:", "Error:") is not one.
func labelledTool(body string) bool {
	m := toolLabelRe.FindStringSubmatch(body)
	if m == nil || ruleLabelRe.MatchString(body) || standingRe.MatchString(body) || labelWords[strings.ToLower(strings.Fields(m[1])[len(strings.Fields(m[1]))-1])] || failLabelRe.MatchString(m[1]) {
		return false
	}
	return len(toolsIn(m[2])) > 0
}

// failLabelRe: a label that reports something ("Error", "Output", "Logs").
var failLabelRe = regexp.MustCompile(`(?i)\b(?:error|errors|output|logs?|trace|stack|warning|failure|crash|result|results|note|notes|question|context|fyi|update|status)$`)

// topicReturnRe: a prompt going back to a topic of the conversation, not
// to an earlier choice.
var topicReturnRe = regexp.MustCompile(`(?i)^(?:(?:let'?s )?(?:go |get )?back to|returning to) (?:the |that |this |our |my |your )?(?:[\w-]+ ){0,5}?(?:failure|failures|bug|bugs|issue|issues|problem|problems|error|errors|crash|crashes|question|task|topic|ticket|thing|discussion|point|plan|investigation|review)\b`)

var (
	// insteadWhyRe: a prompt's sentence that replaces something and says
	// why.
	insteadWhyRe = regexp.MustCompile(`(?i)\binstead of\b[^.;?]{1,80}?\b(?:since|because|as)\b`)
	// replacedWithRe: a replacement the user made, told with its reason
	// ("replaced SDL2 audio with cpal, because …"), or told from and to
	// ("switched card payments from Adyen to Mollie — …").
	replacedWithRe = regexp.MustCompile(`(?i)^(?:i |we )?(?:replaced|swapped) [^.;?]{1,50}? (?:with|for|by) [^.;?]{1,50}?\b(?:because|since|as)\b|^(?:i |we )?(?:switched|moved|migrated) [^.;?]{1,40}? from [^.;?]{1,40}? to \S`)
	// nowGoesRe: where something goes now ("Checkout now goes through
	// Stripe, since …").
	nowGoesRe = regexp.MustCompile(`(?i)^(?:the |our |all )?[\w -]{1,30}? now (?:goes|go|runs|run|lives|live|happens|sits|is handled|are handled) (?:through|via|on|in|at|by) \S`)
)

var (
	// cameFromRe: what something came from; a cause when it is past
	// (pastFromRe) or the sentence speaks of a failure.
	cameFromRe  = newCue(`(?i)\b(?:came|comes|come|stemmed|stems) from\b`, " from")
	pastFromRe  = regexp.MustCompile(`(?i)\b(?:came|stemmed) from\b`)
	whereFromRe = regexp.MustCompile(`(?i)\b(?:where|which) (?:\w+ ){0,3}?(?:came|comes|come) from\b`)
)

// guardsRe: a purpose that guards against something or leaves the user a
// way ("so it doesn't lock products during deploy", "so you can pipe it
// to psql"): a trade-off chosen, not a line of what changed.
var guardsRe = regexp.MustCompile(`(?i)\bso (?:that )?(?:it|they|we|nothing|no one|nobody|the \w+) (?:doesn'?t|don'?t|can'?t|won'?t|never|isn'?t|aren'?t|cannot|will never)\b|\bso (?:that )?you can\b`)

// ownReasonRe: a choice's own reason or what it was chosen over — not a
// purpose clause ("so the core sleeps"), which any change has.
var ownReasonRe = regexp.MustCompile(`(?i)\b(?:because|since|instead|rather than|over|in favou?r of|went with|chose|picked|opted)\b`)

// OwnReason reports whether a statement says why it was chosen or over
// what ("…, because the autosave then writes only …", "rather than
// polling").
func OwnReason(text string) bool { return ownReasonRe.MatchString(text) }

// labelLeadRe: a label a prompt's statement opens with ("outcome of the
// clinic meeting: a standard consult is half an hour now").
var labelLeadRe = regexp.MustCompile(`^[\w .'-]{2,50}:\s+`)

// planChangeRe: a statement that says it changes the plan ("new plan:",
// "change of plan —", "the logging story changed again:").
var planChangeRe = regexp.MustCompile(`(?i)^(?:ok,? |so,? )?(?:change of plan|new plan|plan change)\b|\b(?:changed|switched|moved) again\s*:`)

// imperInsteadRe: an instruction that says it takes the place of what is
// there ("send the logs to mlflow instead", "target x86-64-v3 instead").
var imperInsteadRe = regexp.MustCompile(`(?i)^(?:(?:ok|so|then|just|pls|please)[,.]?\s+)*(?:log|send|store|keep|put|run|use|write|ship|host|deploy|target|build|serve|route|push|publish|save|cache|move|point|generate|render|call|read|load|sign|encrypt|hash|queue|schedule|group|key|split|batch|sort|filter|aggregate|compute|index|partition|shard|sync|poll|fetch|pull|stream|emit|return|throw|raise|retry|wrap|map|model|track|count|sample|compile|bundle|package|install|pin|lock|vendor|structure|name|encode|parse|validate|handle|do|make|go|bump|set)\b(?:[^.;?]|\.\S){2,120}?\binstead\b(?:\s*[,.;!—–-]|\s*$)`)
