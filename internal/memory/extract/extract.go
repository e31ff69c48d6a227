// Package extract finds memories — decisions, constraints, root causes and
// todos — in what Claude answers and what the user asks. It is pure: text in,
// statements out, no store and no models, so it can run anywhere (live
// capture, import, tests) and be measured on its own (testdata/ holds the
// hand-labelled benchmark, split into a held-out and a tuning half).
//
// It reads the shapes Claude Code's answers really take: markdown headings,
// bold labels, plain label lines ending in a colon followed by a list,
// numbered lists, inline statements ("went with X over Y", "root cause: …")
// and sentences wrapped over several lines. Every pattern is a Go (RE2)
// regular expression, so matching is linear in the input, and input past
// MaxInput bytes is ignored.
package extract

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Kind is what a memory records.
type Kind string

// The kinds of memory.
const (
	KindDecision   Kind = "decision"   // what was chosen, over what
	KindConstraint Kind = "constraint" // a rule the user or the project set
	KindCause      Kind = "cause"      // the root cause of a failure
	KindTodo       Kind = "todo"       // a next step left open
)

// Limits on input and output.
const (
	MaxInput     = 64 << 10 // bytes of an answer or prompt that are read
	MaxText      = 400      // runes of a memory's text
	MaxPerAnswer = 8        // memories kept from one answer
	MaxPerPrompt = 4        // memories kept from one prompt
	MaxQuoted    = 4        // quoted statements kept from one answer, as notes
)

// Memory is one statement worth carrying forward.
type Memory struct {
	Kind   Kind
	Text   string   // the statement, cleaned of markdown (bullets, bold), whole sentence(s), ≤ MaxText runes
	Files  []string // file paths it names
	Idents []string // identifiers/code terms it names (backticked, CamelCase, snake_case, pkg.Func)
	Terms  []string // key subject terms (lowercased, stopwords removed) used for supersession
	Change bool     // it states a change of an earlier choice ("instead", "no longer", "switched from", …)
	// Subject is what the statement is about ("cache", "config format"),
	// "" when it names none clearly.
	Subject string
	// WeakSubject: the statement names its subject only in passing (see
	// subjectStrength); the topic of the prompt it answers is a better one.
	WeakSubject bool
	// Quoted: the statement is what a document or command says, quoted
	// or reported by Claude (QuotedFrom names it), not Claude's own.
	Quoted     bool
	QuotedFrom string
	// UsersChoice: Claude's answer says the statement carries out what
	// the user chose ("…, as you chose"): the choice is the user's.
	UsersChoice bool
	// Evidence is the span the statement was read from, as written.
	Evidence string
}

// FromAnswer extracts the memories of an assistant turn's final message
// (Stop's last_assistant_message): at most MaxPerAnswer, in reading order.
func FromAnswer(answer string) []Memory {
	var out, notes []Memory
	seen := map[string]bool{}
	answer = bound(answer)
	us := units(answer)
	offeredText := map[string]bool{} // the options an answer offers and asks to choose among
	if asksToChoose(answer) {
		_, opts := offered(answer, us) // the units read once
		for _, o := range opts {
			offeredText[o.text] = true
		}
	}
	last := -2 // index in us of the unit behind out's last memory
	for i, u := range us {
		if offeredText[u.text] {
			continue // "B) class-validator … — typed access, but …": an option, not a choice
		}
		if u.quoted {
			// What a source says: a note of it, never a memory of
			// Claude's, and nothing to join a statement of Claude's to.
			if len(notes) < MaxQuoted {
				if m, ok := quotedMemory(u, seen); ok {
					notes = append(notes, m)
				}
			}
			continue
		}
		if lead := doneLeadRe.FindString(u.text); lead != "" && len(lead) < len(u.text) {
			// "Done — styling is Tailwind now": the report of a finished
			// task, then the statement.
			u.text = u.text[len(lead):]
		}
		if followsRuleRe.MatchString(cleanInline(u.text)) {
			continue // "Following your rule I used ruff …": the rule carried out, no memory of its own
		}
		k, ok := classifyAnswer(u)
		if !ok && i+1 < len(us) && nowThenRe.MatchString(u.text) && !u.item &&
			us[i+1].para == u.para && previouslyRe.MatchString(us[i+1].text) {
			// "Files now go straight to S3. Previously every byte went
			// through the API": a change of design, told as before/after.
			k, ok = KindDecision, true
		}
		if !ok && !u.item && i-last <= 2 && len(out) > 0 && out[len(out)-1].Kind == KindCause {
			// "… so pg_dump can't get a slot. I moved the backup's cron to
			// 03:30": what Claude did about the cause just found.
			if t := strings.TrimSpace(cleanInline(u.text)); fixActRe.MatchString(t) && (rationaleRe.MatchString(t) || fixWhyRe.MatchString(t)) &&
				!actNotChoiceRe.MatchString(t) && !testOnlyRe.MatchString(t) {
				k, ok = KindDecision, true
			}
		}
		if n := len(out); !ok && !u.item && n > 0 && last == i-1 && us[last].para == u.para && out[n-1].Kind == KindTodo &&
			todoGoesOnRe.MatchString(cleanInline(u.text)) {
			// "TODO: the release animation runs client-side only. It needs
			// a GrappleReleasePayload …": what the todo needs, told on.
			k, ok = KindTodo, true
		}
		if !ok {
			continue
		}
		if n := len(out); k == KindTodo && n > 0 && last == i-1 && us[last].para == u.para &&
			out[n-1].Kind == k && notYetLeadRe.MatchString(cleanInline(u.text)) {
			// "TODO: cache each bot's path … Not done yet — I want to
			// check …": the todo's own status, not a second one.
			last = i
			continue
		}
		if n := len(out); n > 0 && last == i-1 && !u.item && us[last].para == u.para &&
			out[n-1].Kind == k && anaphoraRe.MatchString(u.text) {
			// "… That's worth revisiting": one statement told in two sentences.
			if m, ok := newMemory(k, out[n-1].Text+" "+u.text, map[string]bool{}); ok && !strings.HasSuffix(m.Text, "…") {
				m.Evidence = out[n-1].Evidence + " " + u.raw
				m.Subject, m.WeakSubject = subjectStrength(m, u.label)
				m.WeakSubject = !m.WeakSubject
				out[n-1] = m
			}
			last = i
			continue
		}
		if n := len(out); k == KindDecision && n > 0 && last == i-1 && !u.item && us[last].para == u.para &&
			out[n-1].Kind == k && removalRe.MatchString(cleanInline(u.text)) {
			// "… a piscina pool does it. The Lambda and its S3 trigger are
			// removed": what the change took away is part of it.
			if m, ok := newMemory(k, out[n-1].Text+" "+u.text, map[string]bool{}); ok && !strings.HasSuffix(m.Text, "…") {
				m.Evidence = out[n-1].Evidence + " " + u.raw
				m.Subject = out[n-1].Subject
				out[n-1] = m
			}
			last = i
			continue
		}
		if n := len(out); k == KindDecision && n > 0 && last == i-1 && !u.item && us[last].para == u.para &&
			out[n-1].Kind == k && retirementRe.MatchString(out[n-1].Text) && !retirementRe.MatchString(cleanInline(u.text)) {
			// "We no longer use MLflow. Runs log to W&B.": one change,
			// what goes and what replaces it, about what replaces it.
			if m, ok := newMemory(k, out[n-1].Text+" "+u.text, map[string]bool{}); ok && !strings.HasSuffix(m.Text, "…") {
				own, _ := newMemory(k, u.text, map[string]bool{})
				m.Evidence = out[n-1].Evidence + " " + u.raw
				m.Subject, m.WeakSubject = subjectStrength(own, u.label)
				m.WeakSubject = !m.WeakSubject
				m.Change = true
				out[n-1] = m
			}
			last = i
			continue
		}
		text := u.text
		if i > 0 && pickedItRe.MatchString(cleanInline(u.text)) && !us[i-1].quoted && us[i-1].para == u.para && last != i-1 {
			// "Components are styled with styled-components. I picked it
			// because …": the choice is the sentence before.
			text = strings.TrimPrefix(us[i-1].text, doneLeadRe.FindString(us[i-1].text)) + " " + u.text
		}
		if m, ok := newMemory(k, text, seen); ok {
			m.Evidence = u.raw
			m.Subject, m.WeakSubject = subjectStrength(m, u.label)
			m.WeakSubject = !m.WeakSubject
			if i > 0 && pronounObjectRe.MatchString(cleanInline(u.text)) && !strings.Contains(m.Subject, " ") && clauseVerbRe.MatchString(m.Subject+" ") {
				// "`package.json` pins `typescript@4.9`. I bumped it to
				// 5.4 …": what "it" is, the sentence before names.
				if s := anaphorSubject(us[i-1].text); s != "" {
					m.Subject, m.WeakSubject = s, true
				}
			}
			m.UsersChoice = k == KindDecision && asYouChoseRe.MatchString(u.text)
			out = append(out, m)
			last = i
			if len(out) == MaxPerAnswer {
				break
			}
		}
	}
	return append(out, notes...)
}

// pronounObjectRe: an action on what the sentence before named ("I
// bumped it to 5.4", "we moved them to S3").
var pronounObjectRe = regexp.MustCompile(`(?i)^(?:so |then |and )?(?:i|we)(?:'ve| have)? (?:also |just )?[a-z]+ (?:it|them|that|this|those)\b`)

// anaphorSubject is what a sentence names that a pronoun after it points
// at: the last code it names ("pins `typescript@4.9`" → "typescript"),
// else its subject.
func anaphorSubject(prev string) string {
	if ms := codeSpanRe.FindAllString(prev, -1); len(ms) > 0 {
		c := strings.Trim(ms[len(ms)-1], "`")
		c, _, _ = strings.Cut(c, "@") // "typescript@4.9"
		if c != "" && !strings.ContainsAny(c, " /") && len(c) <= 40 {
			return strings.ToLower(c)
		}
	}
	return subjectOf(Memory{Kind: KindDecision, Text: prev}, "")
}

// todoGoesOnRe: a sentence that says what the thing just named needs.
var todoGoesOnRe = regexp.MustCompile(`(?i)^(?:it|this|that|they|the fix) (?:still )?(?:needs?|requires?|should (?:get|use|send|have)|has to|have to|must)\b`)

// asksToChoose is a cheap first look at whether answer ends by asking to
// choose, before offered reads it again.
func asksToChoose(answer string) bool {
	tail := answer[max(0, len(answer)-400):]
	return strings.Contains(tail, "?") || strings.Contains(strings.ToLower(tail), "which")
}

// quotedMemory is a note of what unit u quotes, when it reads as a
// memory: its kind as the words say, flagged quoted with its source.
func quotedMemory(u unit, seen map[string]bool) (Memory, bool) {
	k, ok := classifyAnswer(u)
	if !ok {
		k, ok = cue(strings.TrimSpace(cleanInline(u.text)), true)
	}
	if !ok {
		return Memory{}, false
	}
	m, ok := newMemory(k, u.text, seen)
	if !ok {
		return Memory{}, false
	}
	m.Quoted, m.QuotedFrom, m.Evidence = true, u.from, u.raw
	m.Subject = subjectOf(m, "")
	return m, true
}

var (
	nowThenRe    = regexp.MustCompile(`(?i)\bnow\b`)
	previouslyRe = regexp.MustCompile(`(?i)^(?:previously|before this( change)?|before,|until now|formerly|it used to)\b`)
	// removalRe: a sentence that only says what is gone.
	removalRe = regexp.MustCompile(`(?i)^(?:the |our |its |\S+ )?[^.;,:]{0,60}? (?:is|are|was|were) (?:now )?(?:gone|removed|dropped|deleted|retired)\b`)
	// pickedItRe: a choice told by pointing back ("I picked it because").
	pickedItRe = regexp.MustCompile(`(?i)^(?:i|we)(?:'ve)? (?:picked|chose|went with|prefer(?:red)?|kept) (?:it|this|that|them|these|those)\b`)
	// doneLeadRe: "Done — …", "Done: …" opening a statement.
	doneLeadRe = regexp.MustCompile(`(?i)^\s*(?:all )?done\s*(?:[—–:]|--?)\s*`)
	// fixActRe: what Claude did, told as an act ("I moved …", "I bump
	// …", "We now sort …").
	fixActRe = regexp.MustCompile(`(?i)^(?:so |then |instead, )?(?:i|we)(?:'ve| have)? (?:also |now |then |just )?(?:\w+ed|sort|set|put|made|make|gave|took|rebuilt|built|kept|wrote|split|bump|pin|move|switch|cap|raise|lower|drop)\b`)
	// fixWhyRe: a fix told with why it fixes ("…, which has the patched
	// openssl", "…, after the reporting job finishes"); a bare fix is
	// routine.
	fixWhyRe = regexp.MustCompile(`(?i), (?:which (?:has|is|fixes|avoids|keeps|includes|ships|contains|doesn'?t|does not)|after (?:the|it|its|every|each))\b`)
	// asYouChoseRe: an answer's statement that carries out the user's
	// choice ("Inventories now live in the Postgres JSONB column, as you
	// chose.").
	asYouChoseRe = regexp.MustCompile(`(?i)\b(?:as you (?:chose|picked|decided|asked|wanted|said|suggested)|(?:per|following|going with) your (?:choice|pick|decision|call))\b`)
	// followsRuleRe: what Claude did because of a rule the user set.
	followsRuleRe = regexp.MustCompile(`(?i)^(?:(?:following|per|as per|in line with|obeying|respecting) your (?:rule|convention|instruction|constraint|policy)|as your rule (?:says|requires))\b`)
	// notYetLeadRe: a sentence that only says the todo before is open.
	notYetLeadRe = regexp.MustCompile(`(?i)^(?:(?:it'?s |this is |that'?s )?not (?:done|started|implemented|fixed|there) yet|(?:i )?(?:haven'?t|have not) (?:done|started|touched|tried) (?:it|this|that) yet)\b`)
	anaphoraRe   = regexp.MustCompile(`(?i)^(?:that|this|it|which)(?:'s|\b)`)
)

// FromPrompt extracts the memories of a user prompt: corrections and standing
// instructions ("no, use X", "don't …", "never …", "always …", "from now on
// …") as constraints, and choices the user makes ("let's go with X") as
// decisions. Questions and ordinary task requests yield nothing.
func FromPrompt(prompt string) []Memory {
	var out []Memory
	seen := map[string]bool{}
	for _, p := range promptParagraphs(withoutPasted(bound(prompt))) {
		prev := -1 // index in out of the previous sentence's memory
		last := "" // the previous sentence
		for _, s := range promptSentences(p) {
			before := last
			if _, reported := reportedBy(s); reported || quotesOnly(s) {
				// "The contributing guide says: use yarn for all
				// installs.": the user shows what a source says; only
				// what they add after "but" is theirs.
				s = ownTail(s)
			}
			// What the sentence before said in the user's own words: a
			// source's words never join the next sentence's rule.
			if last = s; s == "" {
				prev = -1
				continue
			}
			// told is the previous sentence's memory, when this sentence
			// may tell it on.
			var told *Memory
			if n := len(out); n > 0 && prev == n-1 {
				told = &out[n-1]
			}
			if told != nil && told.Kind == KindDecision && retirementRe.MatchString(strings.TrimSpace(s)) {
				// "We're moving feature flags to Unleash. The YAML file
				// goes away.": one change, what replaces and what goes.
				if m, ok := toldOn(KindDecision, *told, strings.TrimSpace(s), s); ok {
					m.Change = true
					*told = m
					continue
				}
			}
			if before != "" && ruleOfLastRe.MatchString(strings.TrimSpace(s)) {
				// "Commit messages: lead with the Jira key. That's the rule
				// from now on.": the sentence before is the rule.
				var m Memory
				var ok bool
				if told != nil {
					m, ok = toldOn(KindConstraint, *told, strings.TrimSpace(s), s)
				} else if m, ok = newMemory(KindConstraint, before+" "+s, seen); ok {
					m.Evidence = before + " " + s
					m.Subject = subjectOf(m, "")
				}
				if ok {
					if told != nil {
						*told = m
					} else {
						out = append(out, m)
						prev = len(out) - 1
					}
					continue
				}
			}
			if told != nil && told.Kind == KindConstraint && universalLeadRe.MatchString(strings.TrimSpace(s)) {
				// "Hard rule for the charts repo: no mutable tags. Every image
				// in every chart is pinned by sha256 digest": the rule, said
				// for every case.
				if m, ok := toldOn(told.Kind, *told, strings.TrimSpace(s), s); ok {
					m.Change = told.Change
					*told = m
					continue
				}
			}
			if told != nil && told.Change && (bareReplacementRe.MatchString(strings.TrimSpace(s)) ||
				retirementRe.MatchString(told.Text) && (bareInsteadRe.MatchString(s) || putThereRe.MatchString(strings.TrimSpace(s)) || nowInPlaceRe.MatchString(s) && !standingRe.MatchString(s))) {
				// "Prisma is out too after the cold-start numbers. Drizzle
				// instead.": what replaces it, named.
				if m, ok := toldOn(told.Kind, *told, strings.TrimSpace(s), s); ok {
					m.Change = true
					if nowInPlaceRe.MatchString(s) {
						// "… Background jobs run as Broadway pipelines … now":
						// about what is in place now.
						if sub := copulaSubject(strings.TrimSpace(s)); sub != "" && (!genericHeads[head(sub)] || strings.Contains(sub, " ")) {
							m.Subject = sub
						}
					}
					*told = m
					continue
				}
			}
			k, text, ok := classifyPrompt(s)
			clauseSubject, faultFirst := "", false
			if loc := directiveClauseRe.FindStringIndex(s); !ok && loc != nil {
				// "moment is deprecated and huge, let's use Luxon": what is
				// wrong, then the choice, in one sentence — about what the
				// choice is about, a change when what comes first finds
				// fault.
				if k2, text2, ok2 := classifyPrompt(s[loc[0]+1:]); ok2 && k2 == KindDecision {
					if m2, ok3 := newMemory(k2, text2, map[string]bool{}); ok3 {
						clauseSubject = subjectOf(m2, "")
					}
					faultFirst = complaintRe.MatchString(s[:loc[0]])
					k, text, ok = k2, capitalize(strings.TrimSpace(cleanInline(s))), true
				}
			}
			if told != nil && told.Change && replacesItRe.MatchString(strings.TrimSpace(s)) {
				// "we no longer use float32 for reflectivity, the store is
				// 4x too big. store it as uint8 with 0.5 dBZ steps": what
				// replaces it, asked for, is part of the change.
				if m, ok := toldOn(told.Kind, *told, strings.TrimSpace(s), s); ok {
					m.Change = true
					*told = m
					continue
				}
			}
			if told != nil && continues(s) && (!ok || k == told.Kind || told.Change) {
				// "we're off Box2D - the licence review flagged it. use
				// Rapier instead": a sentence typed on without a capital,
				// not a new task, tells the one before on.
				t := strings.TrimSpace(s)
				if m, ok := toldOn(told.Kind, *told, t, s); ok {
					m.Change = m.Change || told.Change || changeRe.MatchString(t)
					*told = m
					continue
				}
			}
			if !ok {
				prev = -1
				continue
			}
			if told != nil && retirementRe.MatchString(told.Text) && !retirementRe.MatchString(text) {
				// "Vitest is dropped too. From now on tests use node --test.":
				// one change, what goes and what replaces it, about what
				// replaces it when that names a subject.
				if m, ok := toldOn(k, *told, text, s); ok {
					m.Change = true
					if sub, _ := bareSubject(k, text); sub != "" {
						m.Subject = sub
					} else if sub := subjectOf(m, ""); sub != "" {
						m.Subject = sub
					}
					*told = m
					continue
				}
			}
			if told != nil && told.Kind == k && k == KindConstraint && overlap(terms(text), told.Terms, false) > 0 {
				// "Never deploy on Fridays. If I ask for a deploy on a
				// Friday, remind me and stop.": one rule, told on.
				if m, ok := toldOn(k, *told, text, s); ok {
					m.Change = told.Change
					*told = m
					continue
				}
			}
			evidence, own, scrapped := s, "", false
			if told == nil && before != "" && scrapRe.MatchString(strings.TrimSpace(before)) && !retirementRe.MatchString(strings.TrimSpace(s)) {
				// "ok scrap the percentage gate entirely. from now on every
				// PR must come with tests …": one change, what goes and what
				// replaces it, about what replaces it.
				if m0, ok0 := newMemory(k, text, map[string]bool{}); ok0 {
					own = subjectOf(m0, "")
				}
				text, evidence, scrapped = strings.TrimSpace(before)+" "+text, before+" "+s, true
			}
			if told == nil && !scrapped && continues(s) && !standingLeadRe.MatchString(strings.TrimSpace(s)) && !ruleLabelRe.MatchString(strings.TrimSpace(s)) && saysWhatAbout(before) {
				// "we ship iOS releases only through Codemagic. don't
				// ever run flutter build ipa locally": when the rule names
				// no subject of its own, the sentence before says what it
				// is about.
				if sub, strong := bareSubject(k, text); !strong {
					own = sub
					text, evidence = strings.TrimSpace(before)+" "+text, before+" "+s
				}
			}
			if m, ok := newMemory(k, text, seen); ok {
				m.Change = m.Change || scrapped || callOnRe.MatchString(text) || correctionRe.MatchString(strings.TrimSpace(s)) || retirementRe.MatchString(strings.TrimSpace(s)) || labelNowRe.MatchString(text) && !standingRe.MatchString(text)
				m.Evidence = evidence
				m.Subject = subjectOf(m, "")
				if own != "" {
					m.Subject = own // what the rule names, however weakly, before what the sentence before it does
				}
				if clauseSubject != "" {
					m.Subject = clauseSubject
				}
				m.Change = m.Change || faultFirst
				out = append(out, m)
				prev = len(out) - 1
				if len(out) == MaxPerPrompt {
					return out
				}
			}
		}
	}
	return out
}

// directiveClauseRe: a clause that sets a choice after a comma ("…, let's
// use Luxon", "…, switch the jobs to RQ", "…, move CI to Buildkite").
var directiveClauseRe = regexp.MustCompile(`(?i),\s+(?:so\s+)?(?:let'?s|switch|swap|move|migrate|use|go with|we'?ll|we'?re (?:moving|switching|going)|drop|ditch|replace)\b`)

// toldOn is the memory last, told on by the next sentence s (text its
// words as classified), as one memory of kind k with last's subject and
// both sentences as its evidence; false when the two are too long to be
// one.
func toldOn(k Kind, last Memory, text, s string) (Memory, bool) {
	m, ok := newMemory(k, last.Text+" "+text, map[string]bool{})
	if !ok || strings.HasSuffix(m.Text, "…") {
		return Memory{}, false
	}
	m.Evidence = last.Evidence + " " + s
	m.Subject = last.Subject
	return m, true
}

// continues reports whether a prompt's sentence s goes on with the one
// before: typed without its capital letter, and not a new request ("now
// add a /healthz route", "fix the typo too").
func continues(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || t[0] < 'a' || t[0] > 'z' || topicShiftRe.MatchString(t) {
		return false
	}
	return !isRequest(t) && !isQuestion(t)
}

// topicShiftRe: a sentence that says it starts another subject
// ("separate thing: …", "unrelated, but …").
var topicShiftRe = regexp.MustCompile(`(?i)^(?:(?:a |one )?separate (?:thing|note|topic)|unrelated|another thing|different (?:thing|topic)|on another note|side note|also unrelated)\b|^(?:also|and|plus),?\s+(?:[\w-]+ ){1,4}(?:is|are) (?:next|up next|also needed)\b`)

// isRequest reports whether a prompt's sentence asks for work ("now add
// …", "can u look at …", "bump kotlin").
func isRequest(s string) bool {
	t := taskOf(requestLeadRe.ReplaceAllString(strings.TrimSpace(s), ""))
	return taskVerbRe.MatchString(t) || moreTaskVerbRe.MatchString(t)
}

// requestLeadRe: the words that open a request before its verb, besides
// those taskOf drops ("now add …", "next, bump …").
var requestLeadRe = regexp.MustCompile(`(?i)^(?:(?:now|then|plz|next|first|after that)[,:]?\s+)+`)

// moreTaskVerbRe: requests besides taskVerbRe's, which also names the
// topic a prompt sets.
var moreTaskVerbRe = regexp.MustCompile(`(?i)^(?:bump|start|begin|run|look|check|remove|delete|install|try|investigate|debug|review|open|rerun|regenerate|format|lint|test|profile|measure|explain|show|tell)\b`)

// saysWhatAbout reports whether a prompt's sentence, which is no memory
// itself, may say what the next sentence's rule is about: a statement of
// a few words, not a question, a request or an acknowledgement ("ok.").
func saysWhatAbout(s string) bool {
	t := strings.TrimSpace(s)
	return len(strings.Fields(t)) >= 3 && !isQuestion(t) && !isRequest(t)
}

// bareSubject is the subject text names as a memory of kind k on its own,
// before it is joined to another sentence, and whether it names it
// strongly (see subjectStrength).
func bareSubject(k Kind, text string) (string, bool) {
	return subjectStrength(Memory{Kind: k, Text: text, Terms: terms(text)}, "")
}

// replacesItRe: a request that says what to do with the thing a change
// just named ("store it as uint8", "use them from the CDN instead").
var replacesItRe = regexp.MustCompile(`(?i)^(?:(?:just|now|then|so|and) )?(?:store|keep|write|encode|save|put|send|run|host|deploy|use|serve|cache|log|ship|build|publish|route|load|read) (?:it|them|those|these)\b`)

// ruleOfLastRe: a sentence that makes the one before it a standing rule
// ("That's the rule from now on.", "This is our convention going
// forward.", "from now on that's how we ship schema changes").
var ruleOfLastRe = regexp.MustCompile(`(?i)^(?:that'?s|that is|this is) (?:the|our|a|my) (?:new |house |standing )?(?:rule|convention|policy|standard)(?: (?:from now on|going forward|here|for this (?:repo|project|codebase)|from here on))?\s*[.!]?$|^(?:(?:from now on|going forward|from here on),? )?(?:that'?s|that is|this is) (?:how|what) we \w+(?: [\w-]+){0,4}?(?: from now on| going forward| from here on)?\s*[.!]?$`)

// retirementRe: a statement that only retires something ("Vitest is
// dropped too.", "We no longer use Jest.").
var retirementRe = regexp.MustCompile(`(?i)^(?:we (?:no longer|don'?t) use|we(?:'re| are) (?:dropping|ditching|done with)|(?:we )?(?:dropped|ditched|removed)) [\w.@/ -]{1,30}?(?: either)?(?:,[^.;]{1,60})?[.!]?$|^(?:the |our )?[\w.@/-]+(?: [\w.@/-]+)? (?:` + gone + `|(?:goes|go|is going|are going) away(?:` + alsoGone + `)?)[.!]?$`)

// universalLeadRe: a sentence said of every case ("Every image …", "All
// migrations …", "Each service …"), told on after a rule.
var universalLeadRe = regexp.MustCompile(`(?i)^(?:every|all|each|any) [\w-]+(?: [\w-]+){0,5}? (?:is|are|goes|go|gets?|must|has|have|stays?|uses?|needs?)\b`)

// labelMoveRe: a labelled change ("Settings persistence: moving to …",
// "Analytics: we switched …").
var labelMoveRe = regexp.MustCompile(`(?i)^[\w .-]{2,50}:\s*(?:we(?:'re| are|'ve)? )?(?:moving|switching|migrating|moved|switched|migrated|replaced|swapped)\s(?:[^.;:]{0,50}?\s)?(?:to|onto|with|from|off)\s\S`)

// putThereRe: where something goes instead, asked right after what it
// replaces was retired ("Put artifacts in the Ceph RGW bucket …").
// nowInPlaceRe: what is in place now, told after a retirement ("Exq is
// dropped too. Background jobs run as Broadway pipelines fed from SQS
// now").
var nowInPlaceRe = regexp.MustCompile(`(?i)\b(?:run|runs|go|goes|live|lives|ship|ships|use|uses|is|are|sit|sits)\b[^.?]{0,80}\bnow\b|\bnow (?:run|runs|go|goes|live|lives|ship|ships|use|uses)\b`)

var putThereRe = regexp.MustCompile(`(?i)^(?:please )?(?:put|store|keep|send|move|write|push|host|run|serve) (?:the |our |all |them |it )?(?:[\w-]+ )?(?:in|on|to|into|through|via|with|from) \S`)

// bareReplacementRe: a sentence that only names what replaces
// something ("Drizzle instead.", "use Skunk instead").
var bareReplacementRe = regexp.MustCompile(`(?i)^(?:(?:let'?s |we'?ll |we will )?(?:use|go with|going with|pick|take|switch to|move to) )?[\w.@/+-]+(?: [\w.@/+-]+){0,2} instead[.!]?$`)

// pastedIntroRe: a line that says what someone else sent, before it is
// pasted ("Typesense Cloud support replied about yesterday's 503s:").
var pastedIntroRe = regexp.MustCompile(`(?i)\b(?:replied|wrote|answered|responded|said|says|sent|posted|commented|forwarded|emailed|messaged)\b[^\n]*:\s*$`)

// delimiterRe: a line that opens or closes a pasted block.
var delimiterRe = regexp.MustCompile(`^\s*(?:-{3,}|_{3,}|\*{3,}|={3,})\s*$`)

// withoutPasted is prompt without the blocks it pastes from someone else
// between delimiter lines after a line that introduces them ("… replied:
// --- … ---"): their "From now on …" is the sender's, never the user's.
func withoutPasted(prompt string) string {
	if !strings.Contains(prompt, "---") && !strings.Contains(prompt, "___") && !strings.Contains(prompt, "***") && !strings.Contains(prompt, "===") {
		return prompt
	}
	lines := strings.Split(prompt, "\n")
	out := lines[:0:0]
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if !pastedIntroRe.MatchString(lines[i]) {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) || !delimiterRe.MatchString(lines[j]) {
			continue
		}
		k := j + 1
		for k < len(lines) && !delimiterRe.MatchString(lines[k]) {
			k++
		}
		if k >= len(lines) {
			continue // no closing line: not a block this reads as pasted
		}
		i = k // the block, its delimiters included, left out
	}
	return strings.Join(out, "\n")
}

// scrapRe: a sentence that only tells to get rid of something ("ok scrap
// the percentage gate entirely", "drop the nightly job").
var scrapRe = regexp.MustCompile(`(?i)^(?:(?:ok(?:ay)?|so|alright|right|fine)[,]?\s+)?(?:let'?s\s+)?(?:scrap|drop|ditch|kill|forget(?: about)?|get rid of)\s+(?:the |our |that |this )?[\w.@/%-]+(?: [\w.@/%-]+){0,3}?(?:\s+(?:entirely|completely|altogether|for good))?[.!]?$`)

// Stated is text, stated as a memory of kind k by something other than
// the extractor (an LLM summarizer's structured output), cleaned and named
// as extracted memories are; false when too short to be one.
func Stated(k Kind, text string) (Memory, bool) {
	m, ok := newMemory(k, text, map[string]bool{})
	m.Subject = subjectOf(m, "")
	return m, ok
}

// newMemory cleans text into a Memory of kind k, unless it is empty or
// already seen.
func newMemory(k Kind, text string, seen map[string]bool) (Memory, bool) {
	text = capitalize(clip(cleanInline(text), MaxText))
	key := strings.ToLower(text)
	if utf8.RuneCountInString(text) < 8 || len(strings.Fields(text)) < 2 || seen[key] {
		return Memory{}, false
	}
	seen[key] = true
	// "From now on …" sets a rule where another held: a change too.
	m := Memory{Kind: k, Text: text, Change: changeRe.MatchString(text) || standingRe.MatchString(text) || planChangeRe.MatchString(text) || k == KindDecision && (movedToRe.MatchString(text) || againChoice(text) || labelMoveRe.MatchString(text) || toolSwap(text)) ||
		nowStateRe.MatchString(text) && !nowResultRe.MatchString(text)}
	m.Files, m.Idents = names(text)
	m.Terms = terms(withoutFiles(text, m.Files))
	return m, true
}

// bound cuts s to MaxInput bytes and drops invalid UTF-8.
func bound(s string) string {
	return strings.ToValidUTF8(cutBytes(s, MaxInput), "")
}

// cutBytes cuts s to at most n bytes without splitting a rune.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:max(n, 0)]
	if s == "" {
		return s
	}
	// Back to the start of the last rune; drop it if the cut split it.
	i := len(s) - 1
	for i > 0 && i > len(s)-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	if r, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
		s = s[:i]
	}
	return s
}

// clip cuts s to max runes, at the last sentence end or word boundary that
// fits, and marks the cut with an ellipsis.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	cut := string(r)
	if i := strings.LastIndexAny(cut, ".;"); i > len(cut)/2 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:—–-") + "…"
}

// capitalize upper-cases a statement's first letter ("we moved …" after
// its "Decision:" label was cut), unless it starts with code or a name
// that is lower-case on purpose (`pnpm`, go.mod, iOS).
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	w := s
	if i := strings.IndexAny(s, " \t"); i > 0 {
		w = s[:i]
	}
	w = strings.TrimRight(w, ",;:")
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r == '\'' || r == '-') {
			return s // code or a name: `x`, go.mod, snake_case, v2
		}
	}
	if _, tool := categories[w]; tool {
		return s // a name lower-case on purpose: pnpm, npm
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
