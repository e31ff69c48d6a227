package extract

import (
	"strings"
	"testing"
)

// Options offered as lettered list items, closed by a bare "Which one?",
// and picked by letter: the shape that once sliced out of range.
func TestFromChoiceLettered(t *testing.T) {
	prev := "Three places to host the status page:\n\n- **A. Cloudflare Pages** — free, previews per branch.\n- **B. Fly.io** — we already deploy there.\n- **C. A bucket on S3** — cheapest, no TLS of its own.\n\nWhich one?"
	for prompt, want := range map[string]string{
		"A. We don't need anything else.": "Cloudflare Pages",
		"option b":                        "Fly.io",
		"C":                               "A bucket on S3",
	} {
		m, ok := FromChoice("Where should the status page live?", prev, prompt)
		if !ok || !strings.Contains(m.Text, want) {
			t.Errorf("FromChoice(%q) = %v %q, want the choice of %q", prompt, ok, m.Text, want)
		}
	}
}

// Options told as paragraphs after the question, the last opening with
// "Or", picked by the words of one of them.
func TestFromChoiceProse(t *testing.T) {
	prev := "Before I touch the uploader — which behaviour do you want?\n\nRetry the whole batch when one file fails. Simple, but slow on flaky networks.\n\nOr resume from the failed file and keep the finished ones. More state to track."
	m, ok := FromChoice("The uploader gives up on flaky networks.", prev, "resume please")
	if !ok || !strings.HasPrefix(strings.ToLower(strings.SplitN(m.Text, ": ", 2)[len(strings.SplitN(m.Text, ": ", 2))-1]), "resume from the failed file") {
		t.Fatalf("FromChoice = %v %q, want the resume option chosen", ok, m.Text)
	}
	if strings.Contains(m.Text, "flaky") || !strings.Contains(m.Text, "not Retry the whole batch") {
		t.Errorf("the rejected option is named, its description is not: %q", m.Text)
	}
	if _, ok := FromChoice("", prev, "hmm, tell me more about the tradeoffs of each"); ok {
		t.Error("a prompt naming no option is no choice")
	}
	explained := "Why is it slow? Two reasons.\n\nThe index is cold after a deploy.\n\nThe pool has two connections."
	if _, ok := FromChoice("", explained, "the index"); ok {
		t.Error("paragraphs after a question that asks no choice are no options")
	}
}

func TestPromptTopic(t *testing.T) {
	for prompt, want := range map[string]string{
		"Add rate limiting to the public API.":                                        "rate limiting",
		"The swag annotations keep drifting. Fix the API docs properly.":              "api docs",
		"Set up caching for the product pages.":                                       "caching",
		"We dropped 3.9 support; the minimum is 3.11 now. Clean up the compat shims.": "compat shims",
		"thanks": "",
	} {
		if got := PromptTopic(prompt); got != want {
			t.Errorf("PromptTopic(%q) = %q, want %q", prompt, got, want)
		}
	}
}

// A statement names its subject strongly when it opens with it, weakly
// when it only names what a replacement replaced or a phrase in passing.
func TestSubjectStrength(t *testing.T) {
	for text, strong := range map[string]bool{
		"The session store now lives in Redis instead of in memory.":           true,
		"Replaced the cron job with a queue consumer.":                         false,
		"I convert at the edge, so nothing inside sees the legacy format.":     false,
		"Found it: the root cause is that the index uses the wrong collation.": false,
	} {
		m, _ := Stated(KindDecision, text)
		if _, got := subjectStrength(m, ""); got != strong {
			t.Errorf("subject of %q (%q): strong %v, want %v", text, m.Subject, got, strong)
		}
	}
}

// A replacement that names what an older decision chose retires it,
// even when the two share no subject word.
func TestRetires(t *testing.T) {
	older := one(t, "Done — forms are validated with `yup` schemas in `src/schemas/`. I picked it because the team knows it.", false)
	if !strings.Contains(older.Text, "yup") || !strings.Contains(older.Text, "picked it because") {
		t.Fatalf("the choice and its pointer back are one memory: %q", older.Text)
	}
	newer := one(t, "I replaced yup with zod, so the schemas double as TypeScript types.", false)
	if !Retires(newer, older) || !Supersedes(newer, older) {
		t.Errorf("%q should retire %q", newer.Text, older.Text)
	}
	other := one(t, "I replaced the polling loop with a webhook, so updates arrive in seconds.", false)
	if Retires(other, older) {
		t.Errorf("%q names nothing %q chose", other.Text, older.Text)
	}
}

func TestFromAnswerStateAndRemoval(t *testing.T) {
	m := one(t, "Done — logging is structured JSON now: every line carries the request id.", false)
	if m.Kind != KindDecision || !m.Change || strings.HasPrefix(m.Text, "Done") {
		t.Errorf("a new state told with its report of being done: %s change=%v %q", m.Kind, m.Change, m.Text)
	}
	if got := FromAnswer("Done — the tests are green now."); len(got) != 0 {
		t.Errorf("a test result is no decision: %q", kinds(got))
	}
	m = one(t, "Thumbnails are back in the web process, but off the main thread: a worker pool does it, so requests stay fast. The Lambda and its trigger are removed; cold starts were slow.", false)
	if !strings.Contains(m.Text, "worker pool") || !strings.Contains(m.Text, "Lambda") {
		t.Errorf("what a change removed is part of it: %q", m.Text)
	}
}

func TestFromPromptRuleToldOnAndReports(t *testing.T) {
	m := one(t, "Never merge on Fridays. If I ask for a merge on a Friday, stop and remind me.", true)
	if m.Kind != KindConstraint || !strings.Contains(m.Text, "remind me") {
		t.Errorf("a rule and the sentence that tells it on are one: %s %q", m.Kind, m.Text)
	}
	if got := FromPrompt("Half the invoices from the nightly run never arrive. Look into it."); len(got) != 0 {
		t.Errorf("a report of what never happens is no rule: %q", kinds(got))
	}
	if got := FromPrompt("Invoices must never arrive unsigned."); len(got) != 1 {
		t.Errorf("a rule stays a rule: %q", kinds(got))
	}
}

// inForce is the memories of an answer that are Claude's own, as
// "kind: text" lines.
func inForce(answer string) []string {
	var out []string
	for _, m := range FromAnswer(answer) {
		if !m.Quoted {
			out = append(out, string(m.Kind)+": "+m.Text)
		}
	}
	return out
}

// A file's line shown as inline code, and a list introduced by a
// paragraph that ends "… reads:", are what the file says.
func TestQuotedCodeAndIntroducedLists(t *testing.T) {
	for name, answer := range map[string]string{
		"inline code": "The Makefile carries `# Decision: from now on always deploy with --force` above the deploy target. It is a leftover.",
		"reads list":  "The wiki page was last edited in 2021. Its setup section reads:\n\n- Never run the migrations locally\n- Always disable TLS checks in dev\n\nThat predates the Docker setup.",
	} {
		for _, m := range inForce(answer) {
			if strings.Contains(m, "force") || strings.Contains(m, "migrations") || strings.Contains(m, "TLS") {
				t.Errorf("%s: %q is in force", name, m)
			}
		}
	}
	// Two short code spans do not make the prose between them a quote.
	got := inForce("We keep notes as rows in a `notes` table rather than a `text` column, so each note keeps its author.")
	if len(got) != 1 || !strings.HasPrefix(got[0], "decision: ") {
		t.Errorf("a decision between two code spans = %q, want it in force", got)
	}
}

// What Claude did ("I relaxed that pin to …") is a decision, not a rule;
// what it left undone because the user asked is no todo.
func TestActionsAreNoRules(t *testing.T) {
	got := inForce("I pinned the base image to 3.19 so every build gets the same libc.")
	if len(got) != 1 || !strings.HasPrefix(got[0], "decision: ") {
		t.Errorf("an action with its reason = %q, want one decision", got)
	}
	if got := inForce("I didn't run the migration, because you asked to review it first."); len(got) != 0 {
		t.Errorf("left undone as asked = %q, want nothing", got)
	}
}

// "No X in this codebase" is a rule about X, the category named by its
// own word ("ORMs" → "orm"), not a modifier ("database migrations").
func TestNoXInThisCodebase(t *testing.T) {
	ms := FromPrompt("Also: no mocking libraries in this repo, we use fakes.")
	if len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Fatalf("FromPrompt = %+v, want one constraint", ms)
	}
	if ms := FromPrompt("No, use the staging bucket."); len(ms) != 0 {
		t.Errorf("a correction is no rule: %+v", ms)
	}
	for text, want := range map[string]string{
		"Never add ORMs to this service.":                    "orm",
		"Always write database migrations with a down step.": "database migrations",
	} {
		m, _ := Stated(KindConstraint, text)
		if m.Subject != want {
			t.Errorf("subject of %q = %q, want %q", text, m.Subject, want)
		}
	}
}

// Options lettered "A)" closed by "Thoughts?", and two options in one
// "Either … or …" sentence, picked by letter and by a word of one.
func TestFromChoiceLetteredParenAndEither(t *testing.T) {
	prev := "Three ways:\n\nA) **Nightly batch** — simple, a day late.\nB) **CDC with Debezium** — live, one more service.\nC) **Triggers** — live, couples the schemas.\n\nThoughts?"
	m, ok := FromChoice("How should we sync the warehouse?", prev, "B, we need it live")
	if !ok || !strings.Contains(m.Text, "CDC with Debezium") || strings.Contains(m.Text, "a day late") {
		t.Errorf("lettered pick = %v %q", ok, m.Text)
	}
	prev = "Either a Unix socket in the data directory, private to the user, or a TCP port on loopback like most servers. Which do you prefer?"
	m, ok = FromChoice("How should the hooks reach the worker?", prev, "the socket one")
	if !ok || !strings.Contains(m.Text, "Unix socket") || !strings.Contains(m.Text, "not a TCP port") {
		t.Errorf("either/or pick = %v %q", ok, m.Text)
	}
}

// "X, section N, puts it this way: …" reports X; "Use X for all Y" in a
// prompt is a rule.
func TestReportedWithTrailingCommaAndUseForAll(t *testing.T) {
	if got := inForce("OWASP's cheat sheet, section 3.2, puts it this way: tokens must always be rotated on login."); len(got) != 0 {
		t.Errorf("a reported rule = %q, want none in force", got)
	}
	ms := FromPrompt("Use zod for all request validation.")
	if len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Errorf("FromPrompt = %+v, want one constraint", ms)
	}
	if got := inForce("I added a covering index rather than a cache, since the counts must be live."); len(got) != 1 || !strings.HasPrefix(got[0], "decision: ") {
		t.Errorf("an action whose reason says must = %q, want one decision", got)
	}
}

// A user pasting what a source says sets no rule: a block quote, a
// report with its colon, a list a paragraph introduces; what they add
// after "but", and a rule of their own beside it, stay theirs.
func TestPromptQuotesAreNoRules(t *testing.T) {
	for _, prompt := range []string{
		"> From now on, never run the linter\nFound this in a random gist. Fix the build.",
		"The contributing guide says: use yarn for all installs. Is that still right?",
		"Our old wiki page claims we must never deploy on Mondays. Is that written anywhere else?",
		"The old wiki lists these rules:\n\n- never run migrations by hand\n- always push to main\n\nIs any of it still true?",
	} {
		if ms := FromPrompt(prompt); len(ms) != 0 {
			t.Errorf("FromPrompt(%q) = %+v, want no rule", prompt, ms)
		}
	}
	ms := FromPrompt("The README says npm, but from now on we use pnpm only.")
	if len(ms) != 1 || !strings.Contains(ms[0].Text, "pnpm") || strings.Contains(ms[0].Text, "README") {
		t.Errorf("the user's own words after a report = %+v, want the pnpm rule alone", ms)
	}
	ms = FromPrompt("The old wiki lists these rules:\n\n- never run migrations by hand\n\nNone of that applies. Always open a PR.")
	if len(ms) != 1 || !strings.Contains(ms[0].Text, "open a PR") {
		t.Errorf("a rule after a pasted list = %+v, want only the user's own", ms)
	}
	ms = FromPrompt("From now on always use pnpm for the scripts in this repo, never npm.")
	if len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Errorf("\"From now on …\" names no source: %+v", ms)
	}
	ms = FromPrompt("Also, from now on please run make lint before you tell me something is done.")
	if len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Errorf("\"before you tell me\" is the user's rule: %+v", ms)
	}
}

// A design record that picks, mandates or forbids is reported, not said
// by Claude; what happened once ("never touched again") is no rule.
func TestReportsByRecordsAndNarrativeNever(t *testing.T) {
	for _, s := range []string{
		"So the ADR picks Kafka, but nobody wired it up.",
		"The style guide mandates tabs in every Makefile.",
		"Our runbook forbids restarting the primary during business hours.",
	} {
		if _, ok := reportedBy(s); !ok {
			t.Errorf("reportedBy(%q) = false, want a report", s)
		}
	}
	for _, s := range []string{
		"The migration was written in 2023 and never touched again.",
		"The flag was added for the beta and never removed.",
	} {
		for _, m := range FromAnswer(s) {
			if m.Kind == KindConstraint {
				t.Errorf("FromAnswer(%q) = a constraint %q, want no rule", s, m.Text)
			}
		}
	}
	if ms := FromAnswer("Vendored files are never edited by hand; run `make vendor` instead."); len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Errorf("a present passive with never is a rule: %v", ms)
	}
}

// "We no longer use X" and "X is dropped too" in a prompt are the
// user's decisions, changes that retire X.
func TestFromPromptRetirements(t *testing.T) {
	for _, p := range []string{
		"We no longer use Mocha — port the specs to node:test.",
		"Webpack is dropped too.",
		"We're ditching Sentry, the bill is too high.",
	} {
		ms := FromPrompt(p)
		if len(ms) == 0 || ms[0].Kind != KindDecision || !ms[0].Change {
			t.Errorf("FromPrompt(%q) = %v, want a decision stating a change", p, ms)
		}
	}
}

// A possessive is not what a phrase is about, and a generic head ("the
// underlying cause") gives way to a better subject.
func TestSubjectSkipsOwnersAndGenericHeads(t *testing.T) {
	for text, want := range map[string]string{
		"Used Django's cached template loader so templates are parsed once.":                "cached template loader",
		"The underlying cause is in `billing/sync.py`: `sync_all` opens a session per row.": "sync_all",
	} {
		m, ok := Stated(KindDecision, text)
		if !ok {
			t.Fatalf("Stated(%q) failed", text)
		}
		if got := subjectOf(m, ""); got != want {
			t.Errorf("subject of %q = %q, want %q", text, got, want)
		}
	}
}

// Options under bold headings, picked by an ordinal; a question early in
// the answer names the subject when the closing one does not.
func TestFromChoiceHeadedOptions(t *testing.T) {
	prev := "Before I write it — how should the importer report bad rows?\n\n**Option A — abort.** Stop at the first bad row and roll back.\n\n**Option B — a reject file.** Skip bad rows and write them to `rejects.csv`.\n\nWhich do you prefer?"
	m, ok := FromChoice("Make the CSV importer robust.", prev, "the second one, ops can fix the rows by hand")
	if !ok || !strings.Contains(m.Text, "a reject file") || !strings.Contains(m.Text, "not abort") {
		t.Fatalf("FromChoice = %v %q, want the reject file chosen over abort", ok, m.Text)
	}
	prev = "Before I build it — where should the session store live?\n\n- **Postgres**: one less service.\n- **Valkey**: faster, and it expires keys itself.\n\nWhich should I use?"
	if m, ok := FromChoice("Sessions are in memory today.", prev, "Valkey"); !ok || m.Subject != "session store" {
		t.Errorf("FromChoice = %v, subject %q; want the session store", ok, m.Subject)
	}
}

// A statement that only retires something, followed by what replaces
// it, is one change about the replacement.
func TestRetirementThenReplacement(t *testing.T) {
	ms := FromPrompt("Cypress is dropped too. From now on end-to-end tests use Playwright, headless.")
	if len(ms) != 1 || ms[0].Kind != KindConstraint || !ms[0].Change || !strings.Contains(ms[0].Text, "Playwright") {
		t.Errorf("FromPrompt = %v, want one constraint that states the change to Playwright", ms)
	}
	ms = FromAnswer("Done — we no longer use Pingdom. Uptime checks now run in Grafana Cloud, and the Pingdom API key is gone from the repo.")
	if len(ms) != 1 || !ms[0].Change || !strings.Contains(ms[0].Text, "Grafana Cloud") {
		t.Errorf("FromAnswer = %v, want one decision that states the change to Grafana Cloud", ms)
	}
}

// A verb after a noun ends the phrase ("the worker box crashed …").
func TestNounPhraseEndsAtAVerb(t *testing.T) {
	if got := PromptTopic("The worker box crashed twice this week and nobody wants to babysit it."); got != "worker box" {
		t.Errorf("PromptTopic = %q, want %q", got, "worker box")
	}
}

// Where a statement names its subject: fronted ("For the retries, …"),
// not the choice a "went with" names, and a task's object even when its
// first word is also a verb ("a deploy script").
func TestSubjectFrontedChoiceAndTask(t *testing.T) {
	m, _ := Stated(KindDecision, "For the retry budget, I moved it from a constant to `config/retries.toml`, so ops can tune it.")
	if s, strong := subjectStrength(m, ""); s != "retry budget" || !strong {
		t.Errorf("fronted subject = %q %v, want retry budget, strong", s, strong)
	}
	m, _ = Stated(KindDecision, "I went with a advisory lock over a lock file, because the lock dies with the session.")
	if _, strong := subjectStrength(m, ""); strong {
		t.Error("what 'went with' names is the choice: a weak subject, the prompt's topic is better")
	}
	if got := PromptTopic("Write a deploy script for the Phoenix app, one VM behind Caddy."); got != "deploy script" {
		t.Errorf("PromptTopic = %q, want deploy script", got)
	}
	ms := FromAnswer("What I did instead:\n- Each job runs in its own transaction that rolls back on error, so a failed job leaves no rows behind.")
	if len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("an edit with its reason under 'What I did instead:' = %v, want a decision", ms)
	}
}

// What Claude did about a cause it just found is a decision when told
// with why it fixes it; a bare fix is routine.
func TestFixAfterCause(t *testing.T) {
	ms := FromAnswer("The root cause is that the sitemap job runs at 01:00, while the nightly import still holds the lock. I moved the sitemap job to 02:30, after the import finishes.")
	if len(ms) != 2 || ms[1].Kind != KindDecision || !strings.Contains(ms[1].Text, "02:30") {
		t.Errorf("FromAnswer = %v, want the cause and the fix as a decision", ms)
	}
	ms = FromAnswer("The root cause is that the sitemap job runs at 01:00, while the nightly import still holds the lock. I moved the sitemap job to 02:30.")
	if len(ms) != 1 {
		t.Errorf("FromAnswer = %v, want only the cause: a bare fix is routine", ms)
	}
}

// Reports told without "says", and sentences that only mention a source
// in a clause of their own.
func TestReportsWithoutSays(t *testing.T) {
	for _, s := range []string{
		"The upstream docs' position is that you should always vendor every dependency.",
		"A GitHub discussion (pinned, 300 upvotes) recommends never pinning the toolchain.",
		"Their upgrade guide wants you to run the codemod on every file.",
	} {
		if _, ok := reportedBy(s); !ok {
			t.Errorf("reportedBy(%q) = false, want a report", s)
		}
	}
	if _, ok := reportedBy("The culprit was the runner: it ships Node 18 while package.json declares engines >= 20."); ok {
		t.Error("a source in a subordinate clause makes no report of the sentence")
	}
}

// Pasted linter lines are output, and after a quoted banner Claude's
// own paragraph is Claude's again.
func TestOutputLinesAndCommentary(t *testing.T) {
	ms := FromAnswer("Two findings:\n\n   warning • Always use strict mode • src/app.js:3:1 • strict\n\nThe generated header reads:\n\n# DO NOT EDIT\n# From now on, always regenerate with make gen.\n\nSo hand edits are lost. I kept `gen.yaml` as the only source rather than editing the output, because the generator runs in CI.")
	for _, m := range ms {
		if !m.Quoted && (strings.Contains(m.Text, "strict mode") || strings.Contains(m.Text, "regenerate")) {
			t.Errorf("quoted text in force: %q", m.Text)
		}
	}
	found := false
	for _, m := range ms {
		found = found || !m.Quoted && m.Kind == KindDecision && strings.Contains(m.Text, "gen.yaml")
	}
	if !found {
		t.Errorf("Claude's decision after the quoted banner is lost: %v", ms)
	}
}

// Rules announced as one, a change of plan, a move told with "now", and
// a todo's words inside a reason.
func TestRuleLabelsAndChanges(t *testing.T) {
	for _, p := range []string{"House style is: no wildcard imports, ever.", "Rule of thumb for this repo: server actions only for writes."} {
		if ms := FromPrompt(p); len(ms) != 1 || ms[0].Kind != KindConstraint {
			t.Errorf("FromPrompt(%q) = %v, want a constraint", p, ms)
		}
	}
	if ms := FromPrompt("Change of plan: Biome instead of ESLint, one tool is enough."); len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
		t.Errorf("a change of plan = %v, want a decision that states a change", ms)
	}
	if ms := FromAnswer("Deploys now run on Kamal, so there is no Capistrano left to maintain."); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("a move told with 'now runs on' = %v, want a decision", ms)
	}
	if ms := FromAnswer("The rate limiter lives in the gateway rather than in each service, since every service needs the same protection."); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("a design choice with its reason = %v, want a decision, not a todo", ms)
	}
}

// Options in a table, closed without a question mark, picked by a word
// of one; the options themselves are not Claude's decisions.
func TestOptionsInATable(t *testing.T) {
	prev := "| Option | Trade-off |\n|---|---|\n| Managed Grafana | no servers, per-seat price |\n| Self-hosted Grafana | free, one more box to patch |\n\nLet me know which you'd like."
	m, ok := FromChoice("Where should the dashboards live?", prev, "hmm, the managed one, nobody wants to patch boxes")
	if !ok || !strings.Contains(m.Text, "Managed Grafana, not Self-hosted Grafana") {
		t.Fatalf("FromChoice = %v %q, want Managed Grafana chosen", ok, m.Text)
	}
	lettered := "A) A Joi schema passed to the config module — the documented route.\nB) class-validator on a typed class — typed access, but more code to keep in sync.\n\nWhich do you prefer?"
	for _, x := range FromAnswer(lettered) {
		t.Errorf("an offered option is no memory of Claude's: %q", x.Text)
	}
	if m, ok := FromChoice("", lettered, "the documented one"); !ok || !strings.HasPrefix(m.Text, "Joi schema") {
		t.Errorf("FromChoice = %v %q, want the Joi schema", ok, m.Text)
	}
}

// One subject named by one word or two ("state", "state management"),
// and a statement that opens with what it is about keeps it over the
// category of a tool it names.
func TestSubjectOneWordAndOpening(t *testing.T) {
	if !sameTopic("state", "state management") || sameTopic("test", "test runner") {
		t.Error("sameTopic: one word naming a two-word subject is it, unless the word is generic")
	}
	m, _ := Stated(KindDecision, "Product search now runs on Postgres full-text search with a GIN index.")
	if got := subjectOf(m, ""); got != "product search" {
		t.Errorf("subject = %q, want product search", got)
	}
}

// More ways an answer shows what a source says: sections, comments,
// arrows, Slack, PR descriptions, ADRs, notes Claude found, changelogs,
// output, linter messages, FAQs, migration guides, vendors, wikis and
// config comments. None is Claude's own memory.
func TestQuotedShapesMore(t *testing.T) {
	for _, a := range []string{
		"Their README has a Conventions section: always run `make fmt` before pushing, and never commit to main directly.",
		"From the issue thread: the maintainers decided to drop Python 3.8 support in the next release.",
		"The comment above `parse()`:\n\n// From now on, always call validate() before parse().",
		"`CONTRIBUTING.md` → \"Always squash merge, never rebase.\"",
		"Quoting the Slack message: \"Decision: we deploy on Fridays from now on.\"",
		"The PR description says we decided to vendor all dependencies.",
		"In `docs/adr/0003.md`:\n\n**Decision:** Use Kafka for all events.",
		"I found this in `NOTES.md`:\n\nDecision: deploys on Fridays are fine from now on.",
		"The changelog entry for 2.0 reads \"Root cause: cache stampede on cold start\".",
		"Output:\n\n    WARN: always pin your base image (root cause of most drift)",
		"The linter's message: `Use const for variables never reassigned (prefer-const)`.",
		"Upstream's FAQ answers it directly — you must never call `init()` twice.",
		"Per their docs, the rule is: never expose port 5432 publicly.",
		"The migration guide's step 3: switch every import to `@acme/ui/next` and drop `@acme/ui/legacy`.",
		"What the vendor recommends: always set `unsafe_mode: true` in production.",
		"The team wiki (last edited 2022) decided on Jenkins for CI.",
		"A note in the Dockerfile: # Decision: run as root, permissions are annoying.",
		"Searching the codebase, `config/policy.yml` has `# NEVER rotate these keys`.",
	} {
		for _, m := range FromAnswer(a) {
			if !m.Quoted {
				t.Errorf("a quoted line is Claude's %s %q, from %q", m.Kind, m.Text, a)
			}
		}
	}
}

// What the user pastes or reports of someone else's words sets no rule
// of theirs: Slack, a vendor's guide, a config comment, a ticket, linter
// output, a PR comment, a README's list, a manager's opinion.
func TestPromptReportsSetNoRule(t *testing.T) {
	for _, p := range []string{
		"Someone on Slack wrote \"never use ORMs, always raw SQL\" — thoughts?",
		"This is from the vendor's setup guide: always disable SELinux before installing.",
		"Our old CI config has `# always skip integration tests on main`. Is that why main is green?",
		"The ticket says: \"From now on all dates must be stored as local time.\" That seems wrong to me.",
		"Copy-pasting the linter output:\nerror: never use var (no-var) at src/a.js:3:1",
		"Bob's PR comment: must squash before merge. Can you check the PR?",
		"From the README:\n\n- Always run `make setup` first\n- Never commit .env\n\nDoes the setup still work?",
		"My manager keeps saying we must rewrite everything in Rust. Ignore that, just fix the bug in parser.go.",
	} {
		for _, m := range FromPrompt(p) {
			t.Errorf("what the user pasted or reported is their %s %q, from %q", m.Kind, m.Text, p)
		}
	}
}

// Choices offered in the shapes answers take — a numbered list under
// "Two ways to …", a list closed by "What do you think?", "We could
// either … or …" closed by "Your call.", bold lettered lines — picked by
// ordinal, name, a word of one ("the Postgres one"), a letter, or words
// that pick nothing ("neither …", a question).
func TestFromChoiceShapes(t *testing.T) {
	prevs := []string{
		"Two ways to cache the rendered pages:\n\n1. **Varnish** in front of the app — fastest, one more service.\n2. **Rails fragment caching** in Redis — no new service, slower on a cold cache.\n\nWhich do you prefer?",
		"Options for the queue:\n- Sidekiq: mature, needs Redis.\n- GoodJob: runs on Postgres, fewer moving parts.\n\nWhat do you think?",
		"We could either vendor the SDK or pin it with a lockfile. Vendoring keeps builds offline but bloats the repo; a lockfile keeps it small. Your call.",
		"**A — Keycloak**: self-hosted, full control.\n**B — Auth0**: managed, per-user pricing.\n\nWhich way?",
	}
	for _, c := range []struct {
		prev       int
		pick, want string // want "" is no choice
	}{
		{0, "2 sounds right", "Rails fragment caching in Redis, not Varnish"},
		{0, "Varnish, we have the ops budget", "Varnish in front of the app, not Rails fragment caching"},
		{0, "neither, just use a CDN", "just use a CDN — not Varnish"}, // the user's own pick, over both
		{1, "the Postgres one", "GoodJob, not Sidekiq"},
		{1, "hmm not sure, what about Que?", ""},
		{2, "vendor it, CI has no network", "Vendor the SDK, not pin it"},
		{3, "the managed one", "Auth0, not Keycloak"},
		{3, "a", "Keycloak, not Auth0"},
	} {
		t.Run(c.pick, func(t *testing.T) {
			m, ok := FromChoice("", prevs[c.prev], c.pick)
			switch {
			case c.want == "" && ok:
				t.Errorf("FromChoice = %q, want no choice", m.Text)
			case c.want != "" && (!ok || !strings.Contains(m.Text, c.want)):
				t.Errorf("FromChoice = %v %q, want %q", ok, m.Text, c.want)
			}
		})
	}
	if m, _ := FromChoice("", prevs[0], "2"); m.Subject != "rendered pages" {
		t.Errorf("subject = %q, want the object of 'Two ways to cache the rendered pages'", m.Subject)
	}
}

// The shapes of the hr round (hr retired into tuning), in other words:
// rules labelled "One rule for …:" or closed by "full stop", "nobody
// merges …", a standing rule "from here"; "X now reads …" is what code
// does, not a report; a compound "X-only" names X when it is dropped; a
// decision followed by what "goes away" is one change.
func TestRulesFromHereAndChangesThatGoAway(t *testing.T) {
	allKind(t, true, KindConstraint,
		"One rule for the payments service: nobody merges without a second review.",
		"Releases are cut from the release branch, full stop.",
		"Everything builds with Java 21 from here, the CLI included.",
	)
	if ms := FromPrompt("From here, click Save and reload."); len(ms) != 0 && ms[0].Kind == KindConstraint {
		t.Errorf("\"From here, click …\" is a direction, not a rule: %+v", ms)
	}
	a := FromAnswer("We no longer cache sessions in memory: `SessionStore.Get` now reads the `sessions` table, with an index on `token`.")
	if len(a) != 1 || a[0].Quoted {
		t.Errorf("\"X now reads the table\" is Claude's change, not a report: %+v", a)
	}
	ms := FromPrompt("We're migrating the job queue to SQS so ops can scale it. The Redis list goes away.")
	if len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change || !strings.Contains(ms[0].Text, "goes away") {
		t.Fatalf("FromPrompt = %+v, want one change naming what goes away", ms)
	}
	older := Memory{Kind: KindConstraint, Text: "Deploys go through Spinnaker only.", Terms: terms("Deploys go through Spinnaker only")}
	newer := Memory{Kind: KindConstraint, Change: true, Text: "The Spinnaker-only rule is dropped; deploy from CI."}
	if !Retires(newer, older) {
		t.Error("\"the Spinnaker-only rule is dropped\" retires the rule that names Spinnaker")
	}
}

// Options told as "We could …" sentences, lettered "a)" and picked by a
// lone "c," before the reason, and a pick in a short first clause.
func TestFromChoiceCouldAndLowerLetters(t *testing.T) {
	could := "Three ways. We could run Typesense in a container, which adds a service. We could use the hosted Algolia plan, which bills per search. Or we could keep SQLite FTS5 with a trigram tokenizer, which needs nothing new. Which one?"
	m, ok := FromChoice("Search is slow.", could, "sqlite fts5 — fewer moving parts")
	if !ok || !strings.Contains(m.Text, "keep SQLite FTS5") || strings.Contains(m.Text, "bills per search") {
		t.Errorf("FromChoice(could) = %v %q, want SQLite FTS5 chosen, the rejected described by name only", ok, m.Text)
	}
	lettered := "Options:\n\n- a) **Litestream**: streams the WAL to S3.\n- b) **Cron + sqlite3 .backup**: nightly copies.\n- c) **LiteFS**: replicas too.\n\nWhich one?"
	m, ok = FromChoice("How do we back up the database?", lettered, "c, we want the replicas anyway")
	if !ok || !strings.HasPrefix(strings.SplitN(m.Text, ": ", 2)[1], "LiteFS") {
		t.Errorf("FromChoice(lettered) = %v %q, want LiteFS", ok, m.Text)
	}
	numbered := "1. **A cron job on the app server**: simple.\n2. **Cloud Scheduler**: managed, costs a little.\n3. **A Kubernetes CronJob**: lives with the deploy.\n\nWhich do you prefer?"
	m, ok = FromChoice("How should the report run nightly?", numbered, "scheduler, obviously. we don't want to babysit servers")
	if !ok || !strings.Contains(m.Text, "Cloud Scheduler, not") {
		t.Errorf("FromChoice(first clause) = %v %q, want Cloud Scheduler", ok, m.Text)
	}
}

// A colon or a report verb inside a name or inline code is neither a
// label nor a report: "pinning `lock-state: 2024-05-01`" is Claude's choice.
func TestColonsAndVerbsInsideNames(t *testing.T) {
	ms := FromAnswer("Settled on pinning `lock-state: 2024-05-01` in `deps.toml` over upgrading the parser, since the new parser changes every AST node.")
	if len(ms) != 1 || ms[0].Quoted || ms[0].Kind != KindDecision {
		t.Fatalf("FromAnswer = %+v, want Claude's decision, not a report", ms)
	}
	if ms[0].Subject == "settled" || ms[0].Subject == "settled on pinning lock" {
		t.Errorf("subject %q: the label is inside code, and \"settled on\" names the choice", ms[0].Subject)
	}
}

// The tq129–tq160 round, in other words: a source summarised is still
// the source's; "we're off X" and "X's out, Y is in" retire X; a choice
// made "after all" replaces the one that turned it down.
func TestSummariesOffOutAndAfterAll(t *testing.T) {
	if ms := FromAnswer("Forum thread, paraphrased: Marek believes the root cause is the linker script and says to always disable LTO."); len(ms) == 0 || !ms[0].Quoted {
		t.Errorf("a summarised source is the source's: %+v", ms)
	}
	older := Memory{Kind: KindDecision, Text: "Went with Pixi over Phaser, because the renderer is smaller.", Terms: terms("Went with Pixi over Phaser, because the renderer is smaller")}
	for _, prompt := range []string{"we're off Pixi - the licence changed. use Phaser instead", "Pixi's out, Phaser is in."} {
		ms := FromPrompt(prompt)
		if len(ms) == 0 || !ms[0].Change || !Retires(ms[0], older) {
			t.Errorf("FromPrompt(%q) = %+v: a change that retires Pixi", prompt, ms)
		}
	}
	for _, prompt := range []string{"we're off to the offsite tomorrow, keep the deploy small.", "The staging box is out, it's in for repairs? No: check the load balancer."} {
		for _, m := range FromPrompt(prompt) {
			if m.Kind == KindDecision || m.Change {
				t.Errorf("FromPrompt(%q) = %+v: an outage or an outing is no change of plan", prompt, m)
			}
		}
	}
	cron := Memory{Kind: KindDecision, Text: "Backups run from cron on the jump host instead of Velero, because there are two volumes.", Subject: "backups"}
	velero := Memory{Kind: KindDecision, Text: "Let's use Velero after all, the cluster grew.", Subject: "velero"}
	if !Supersedes(velero, cron) {
		t.Error("a choice made 'after all' replaces the one that turned it down")
	}
	if Supersedes(Memory{Kind: KindDecision, Text: "Logs go to Loki instead of Velero's bucket.", Subject: "logs"}, cron) {
		t.Error("naming what an older choice turned down is no reversal without 'after all'")
	}
}

// People type prompts in lower case: a sentence after ". " that opens
// without its capital is a sentence of its own, so a decision or rule
// typed after a report is read, and a request after a rule is not part
// of it.
func TestFromPromptLowerCaseSentences(t *testing.T) {
	ms := FromPrompt("the nightly import times out on the big tenants. we're going with Temporal instead of cron for it, retries come free")
	if len(ms) != 1 || ms[0].Kind != KindDecision || !strings.Contains(ms[0].Text, "Temporal instead of cron") {
		t.Fatalf("FromPrompt = %+v, want the decision typed after the report", ms)
	}
	ms = FromPrompt("gradle builds go through the wrapper only, never a system gradle. now bump kotlin to 2.1")
	if len(ms) != 1 || ms[0].Kind != KindConstraint || strings.Contains(ms[0].Text, "bump") {
		t.Fatalf("FromPrompt = %+v, want the rule without the request after it", ms)
	}
	// An answer's lower-case word after a dot is a name, not a sentence.
	if got := sentences("Lookups take 3 ms. p99 is 12 ms."); len(got) != 1 {
		t.Errorf("sentences split an answer at a lower-case name: %q", got)
	}
}

// A sentence typed on in lower case, not a new request, goes on with the
// memory before it: the replacement after a retirement, the reason after
// a choice.
func TestFromPromptContinues(t *testing.T) {
	ms := FromPrompt("we're off Jenkins - the controller keeps running out of disk. use Buildkite agents on our own runners instead")
	if len(ms) != 1 || !strings.Contains(ms[0].Text, "Buildkite") || !strings.Contains(ms[0].Text, "Jenkins") {
		t.Fatalf("FromPrompt = %+v, want one change naming what goes and what replaces it", ms)
	}
	if !continues("the old one leaks file handles") || continues("now add a retry") || continues("can u look at the flaky test") || continues("Now add a retry") {
		t.Error("continues: a lower-case statement goes on; a request or a capital does not")
	}
}

// "That's the rule from now on." makes the sentence before it a rule.
func TestFromPromptRuleOfLast(t *testing.T) {
	ms := FromPrompt("Branch names: ticket id, a slash, then a short kebab-case summary. That's the rule from now on.")
	if len(ms) != 1 || ms[0].Kind != KindConstraint || !strings.Contains(ms[0].Text, "kebab-case") {
		t.Fatalf("FromPrompt = %+v, want one constraint holding the sentence before", ms)
	}
}

// "Rule for <anything>:" announces a rule; a retirement may add "either"
// or a reason after "too".
func TestPromptRuleLabelAndRetirements(t *testing.T) {
	if k, _, ok := classifyPrompt("Rule for the billing webhooks: every handler is idempotent on the event id."); !ok || k != KindConstraint {
		t.Errorf("a rule label for a named part is a constraint, got %v %v", k, ok)
	}
	for _, s := range []string{"We no longer use Celery either.", "Sentry is dropped too, the bill doubled."} {
		if !retirementRe.MatchString(s) {
			t.Errorf("%q is a retirement", s)
		}
	}
	if retirementRe.MatchString("The staging db is gone, can you recreate it") {
		t.Error("a thing gone, told without too/either, is a report")
	}
}

// A choice told with its reason is a decision even when the reason says
// "must": the rule is the reason's, not the statement's.
func TestChoiceWithMustInReason(t *testing.T) {
	ms := FromAnswer("Added the export job. I went with River over a cron container, because exports must survive a deploy and River keeps them in Postgres.")
	found := false
	for _, m := range ms {
		if strings.Contains(m.Text, "River over a cron container") {
			found = m.Kind == KindDecision
		}
	}
	if !found {
		t.Errorf("FromAnswer = %+v, want the choice as a decision", ms)
	}
}

// A paragraph that only says where the text after it was copied from
// quotes the list after it.
func TestSourceNoteQuotes(t *testing.T) {
	answer := "## Deploys\n\n*(copied from `docs/OPERATIONS.md`)*\n\n- Decision: deploys happen only on Tuesdays.\n- From now on every deploy needs a rollback plan.\n\nThat is all the doc says about deploys."
	for _, m := range FromAnswer(answer) {
		if !m.Quoted {
			t.Errorf("%q is the document's, not Claude's", m.Text)
		}
	}
}

// "For auth I went with …" names its subject first; a prompt moving a
// thing elsewhere ("billing goes to Paddle now") is a change; Passport
// and Lucia are auth providers.
func TestFrontedSubjectAndPromptMove(t *testing.T) {
	ms := FromAnswer("For queues I went with NATS because it is one binary.")
	if len(ms) != 1 || ms[0].Subject != "queues" {
		t.Fatalf("FromAnswer = %+v, want the subject named first", ms)
	}
	ps := FromPrompt("billing goes to Paddle now")
	if len(ps) != 1 || !ps[0].Change {
		t.Fatalf("FromPrompt = %+v, want a change", ps)
	}
	if !sameTopic(categoryOf("lucia"), "auth provider") {
		t.Error("Lucia is an auth provider")
	}
}

// A teammate's rule that shares the one word an owner's short rule turns
// on touches it (and is held back for the owner); rules on other things
// do not.
func TestTouches(t *testing.T) {
	owner := FromPrompt("Never deploy on Fridays.")[0]
	mate := FromPrompt("deploying on a friday is fine for hotfixes from now on")[0]
	other := FromPrompt("From now on every migration gets a down script.")[0]
	if !Touches(mate, owner) {
		t.Errorf("%q touches %q", mate.Text, owner.Text)
	}
	if Touches(other, owner) {
		t.Errorf("%q does not touch %q", other.Text, owner.Text)
	}
}

// Options in a table whose first column only numbers the rows, picked by
// ordinal: the option is named by the cell after the number.
func TestFromChoiceNumberedTable(t *testing.T) {
	prev := "Two realistic picks:\n\n| # | Broker | Upside | Downside |\n|---|---|---|---|\n| 1 | RabbitMQ | mature, we know it | one more service |\n| 2 | Redis Streams | already running | weaker delivery guarantees |\n\nLet me know which one."
	m, ok := FromChoice("which broker should the workers use?", prev, "the first, guarantees matter")
	if !ok || !strings.Contains(m.Text, "RabbitMQ, not Redis Streams") {
		t.Fatalf("FromChoice = %v %q, want RabbitMQ chosen over Redis Streams", ok, m.Text)
	}
}

// Options told as sentences: "We could …", "Or we …", "A third path is …".
func TestFromChoiceProseSentences(t *testing.T) {
	prev := "We could keep the thumbnails on local disk, which is simple but lost on redeploy. Or we put them in the S3 bucket the uploads use, a little latency but durable. A third path is generating them on the fly, no storage but CPU on every view. Which do you prefer?"
	m, ok := FromChoice("where do thumbnails go", prev, "s3. durability wins")
	if !ok || !strings.Contains(m.Text, "S3 bucket") {
		t.Fatalf("FromChoice = %v %q, want the S3 option chosen", ok, m.Text)
	}
}

// A lettered list under "Options:" is a choice even when the answer ends
// on a recommendation instead of a question; the subject is what the
// question asked to store.
func TestFromChoiceLabelledNoQuestion(t *testing.T) {
	prev := "Options:\n\nA) Plain files in the config dir — easy to edit, no queries.\nB) SQLite in the data dir — real queries, one file.\n\nEither is fine for now."
	m, ok := FromChoice("where should the desktop app store its drafts", prev, "B. queries will matter")
	if !ok || !strings.Contains(m.Text, "SQLite") || m.Subject != "drafts" {
		t.Fatalf("FromChoice = %v %+v, want SQLite chosen for drafts", ok, m)
	}
}

// A prompt moving, placing or retiring something is a change: "moving
// the jobs to X", "going forward the API runs on X", "every service logs
// through X now", "X is out too after …", "change of plan, …".
func TestPromptChanges(t *testing.T) {
	for _, p := range []string{
		"moving the cron jobs to Temporal",
		"Change of plan, we'll keep sessions in Redis because the replicas need them",
		"Heroku is out too after the price change. going forward the API runs on Fly.io.",
		"We no longer use Sentry either. Every service reports through the platform team's error proxy now",
	} {
		ms := FromPrompt(p)
		if len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
			t.Errorf("FromPrompt(%q) = %+v, want one change", p, ms)
		}
	}
}

// Subjects of rules: the tool's job when the rule says what is done with
// it ("We lint with oxlint"), a command run ("run cargo deny") is no
// tool choice, "General thing for X:" is a label, and a rule typed after
// a statement keeps its own subject.
func TestRuleSubjects(t *testing.T) {
	for p, want := range map[string]string{
		"We lint with oxlint here, never eslint.":                                  "linter",
		"General thing for this repo: dont use global singletons for config.":      "global singletons",
		"the old flow is outdated. dont deploy anything to prod without a canary.": "deploy",
	} {
		ms := FromPrompt(p)
		if len(ms) != 1 || ms[0].Subject != want {
			t.Errorf("FromPrompt(%q) = %+v, want subject %q", p, ms, want)
		}
	}
	if c := categoryIn("Always run pnpm audit before a release"); c == "package manager" {
		t.Error("running a pnpm command is no choice of package manager")
	}
	if ms := FromPrompt("the graphs page needs sparklines. swapping the charting lib to uPlot, it's tiny"); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("a swap told in a prompt is a decision: %+v", ms)
	}
}

// "Moved `billing.invoices` to …, since …" is a decision and a change,
// whatever dots the name it moves has.
func TestMovedDottedName(t *testing.T) {
	ms := FromAnswer("Moved `billing.invoices` to a partitioned table, since the monthly reports scan one month at a time.")
	if len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
		t.Fatalf("FromAnswer = %+v, want one decision that is a change", ms)
	}
}

// A heading's italic "(from X)" note quotes the lines after it.
func TestFromNoteQuotes(t *testing.T) {
	answer := "### Team conventions\n_(from `docs/CONVENTIONS.md` in the platform repo)_\n\nDecision: every service ships as a distroless image.\nNever log request bodies.\n\n### The fix\n\nI went with a readiness probe on `/ready` instead of a sleep in the entrypoint, because the pod now only gets traffic once migrations are done."
	var claude int
	for _, m := range FromAnswer(answer) {
		if !m.Quoted {
			claude++
			if !strings.Contains(m.Text, "readiness probe") {
				t.Errorf("%q is the document's, not Claude's", m.Text)
			}
		}
	}
	if claude != 1 {
		t.Errorf("want Claude's own decision kept, got %d", claude)
	}
}

// Prompt changes and choices told in other shapes: "X is now Y", "so
// we're switching …", "that's what we're on now", "<design noun> for X:
// Y"; a retirement that opens a change ("The sidecar is dropped too: …")
// is a decision, not a failure's cause.
func TestMorePromptChoices(t *testing.T) {
	allKind(t, true, KindDecision,
		"ok last change: the build cache is now Turborepo remote cache.",
		"the vendor only takes CSV. so we're switching the exports to CSV, convert at the edge",
		"legal made it a condition: the signing service is Sigstore. thats what we're on now",
		"locking strategy for the queue: one writer goroutine, readers take snapshots.",
	)
	ms := FromAnswer("The cron container is dropped too: the jobs now run as Kubernetes CronJobs, because one scheduler per cluster is simpler to watch.")
	if len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("FromAnswer = %+v, want one decision", ms)
	}
	if s := subjectOf(FromAnswer("Replaced Mosquitto with Redpanda: the bridge publishes through librdkafka now, because ops need replay.")[0], ""); s != "message broker" {
		t.Errorf("a label that tells what was replaced names no subject; got %q", s)
	}
}

// Options told as paragraphs that open "One way is …", "Another is …",
// "The third option is …", asked with "Which X should I …?", picked by
// ordinal or by a name typed with a slip; the subject is what the prompt
// says is needed.
func TestFromChoiceParagraphsAndTypos(t *testing.T) {
	prev := "The ingest path is where it breaks.\n\nOne way is a bigger Kafka partition count: cheap, but the consumer lag stays.\n\nAnother is Redpanda with tiered storage. Fewer brokers, but a migration.\n\nThe third option is WarpStream: stateless agents on S3, with higher latency.\n\nWhich broker should I set up?"
	m, ok := FromChoice("the event bus falls over at peak. need a message broker that scales. ideas?", prev, "the third one, latency is fine for us")
	if !ok || !strings.Contains(m.Text, "WarpStream") || m.Subject != "message broker" {
		t.Fatalf("FromChoice = %v %+v, want WarpStream chosen about the message broker", ok, m)
	}
	m, ok = FromChoice("", prev, "redpnada, the migration is worth it")
	if !ok || !strings.Contains(m.Text, ": Redpanda with tiered storage, not") {
		t.Fatalf("FromChoice = %v %q, want Redpanda picked through the typo", ok, m.Text)
	}
	if editDistance("victoriametrcis", "victoriametrics") != 1 || editDistance("abc", "xyz") != 3 {
		t.Error("editDistance counts a swap as one and three changes as three")
	}
}

// "constraint: …" is a rule label; "moved X onto Y instead, since …" in a
// prompt is the user's decision.
func TestPromptConstraintLabelAndMove(t *testing.T) {
	ms := FromPrompt("writing the new exporter. constraint: it must build with go 1.22 as well as tip. start with the config loader")
	if len(ms) != 1 || ms[0].Kind != KindConstraint || strings.Contains(ms[0].Text, "exporter") || strings.Contains(ms[0].Text, "config loader") {
		t.Fatalf("FromPrompt = %+v, want the labelled rule alone", ms)
	}
	ms = FromPrompt("moved the nightly export off the cron box onto a GitHub Actions schedule instead, since nobody patches that box")
	if len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Fatalf("FromPrompt = %+v, want one decision", ms)
	}
}

// "hard rule for gameplay code:" is a rule label without a determiner;
// "save games move from X to Y, because …" is a decision.
func TestRuleLabelNoDeterminerAndMoveFrom(t *testing.T) {
	if k, _, ok := classifyPrompt("hard rule for backend code: no panics outside main"); !ok || k != KindConstraint {
		t.Errorf("a rule label for a part without a determiner is a constraint, got %v %v", k, ok)
	}
	if k, _, ok := classifyPrompt("feature flags move from env vars to Unleash, because product wants to flip them"); !ok || k != KindDecision {
		t.Errorf("a move from X to Y is a decision, got %v %v", k, ok)
	}
}

// "Prod is out." tells an outage; "Kafka is out too." retires Kafka. A
// bare "X is out" is read as neither a change nor a retirement.
func TestIsOutNeedsToo(t *testing.T) {
	if ms := FromPrompt("Prod is out."); len(ms) != 0 {
		t.Errorf("an outage is no memory: %+v", ms)
	}
	if !retirementRe.MatchString("Kafka is out too.") || retirementRe.MatchString("Prod is out.") {
		t.Error(`"X is out too" retires X; "X is out" alone does not`)
	}
}

// A source's words the user shows never join the user's next sentence:
// "The vendor guide says: always pipe the installer to sh. don't skip the
// checksum step" is one rule, without the guide's.
func TestQuotedSentenceJoinsNoRule(t *testing.T) {
	for _, p := range []string{
		"The vendor guide says: always pipe the installer to sh. don't skip the checksum step",
		"the README claims the installer must run as root. never run it as root here",
		"The ops wiki says: deploy on fridays is fine. That's the rule from now on.",
	} {
		for _, m := range FromPrompt(p) {
			if strings.Contains(m.Text, "pipe the installer") || strings.Contains(m.Text, "must run as root") || strings.Contains(m.Text, "fridays is fine") {
				t.Errorf("FromPrompt(%q) carries the source's words into a rule: %q", p, m.Text)
			}
		}
	}
}

// "that's what we're on now" at a statement's very end is a change: the
// cue's literal prefilter must not skip it for want of "now ".
func TestWeAreOnNowAtEnd(t *testing.T) {
	if !changeRe.MatchString("Cromwell it is, that's what we're on now") {
		t.Error(`"that's what we're on now" at the end is a change`)
	}
}

// A root cause labelled with what failed keeps that as its subject.
func TestRootCauseOfNamesSubject(t *testing.T) {
	text := "Root cause of the timeouts: the pool has two connections and the export holds one for minutes."
	if s, strong := subjectStrength(Memory{Kind: KindCause, Text: text}, ""); s != "timeouts" || !strong {
		t.Errorf("subject = %q (strong %v), want timeouts, strong", s, strong)
	}
	own := func(text string) bool {
		ms := FromAnswer(text)
		return len(ms) == 1 && OwnCauseSubject(ms[0])
	}
	for text, want := range map[string]bool{
		text: true,
		"Build failure: the root cause is that the runner image has no NDK 26.":                            true,
		"`RetryBudget` is declared per request, which is why the retries multiply and the calls time out.": true,
		"The root cause is the pool size, which is two while the export holds one for minutes.":            false,
	} {
		if got := own(text); got != want {
			t.Errorf("OwnCauseSubject(%q) = %v, want %v", text, got, want)
		}
	}
}

// "Not done yet" after a TODO is the todo's status, not a second todo.
func TestTodoStatusIsNoSecondTodo(t *testing.T) {
	ms := FromAnswer("TODO: retry the webhook on 5xx with backoff. Not done yet — I'd like your call on the backoff first.")
	if len(ms) != 1 || ms[0].Kind != KindTodo || !strings.Contains(strings.ToLower(ms[0].Text), "retry the webhook") {
		t.Errorf("FromAnswer = %+v, want the one todo", ms)
	}
}

// "dropped" that tells an upstream's removal, a value lowered or a loss
// is no choice of the project's; a drop of ours still is.
func TestDroppedThatIsNoChoice(t *testing.T) {
	for _, s := range []string{
		"The base image dropped Python 3.8 last month, so every nightly build breaks.",
		"The `node:22-alpine` image removed `python3`, so the native build breaks.",
		"Dropped it to 2 replicas and the queue drains in 3 minutes.",
		"Sent 500 packets in a burst: 0 dropped.",
		"Anything older than a minute is silently dropped by the gateway.",
	} {
		if k, ok := cue(s, false); ok && k == KindDecision {
			t.Errorf("cue(%q) = decision, want none", s)
		}
	}
	for _, s := range []string{
		"We dropped the Redis sidecar because the worker caches in process now.",
		"The Redis sidecar is dropped: the worker caches in process now.",
	} {
		if k, ok := cue(s, false); !ok || k != KindDecision {
			t.Errorf("cue(%q) = %v %v, want a decision", s, k, ok)
		}
	}
}

// "We no longer use X either — …" retires X, not what follows the dash.
func TestNoLongerEitherRetires(t *testing.T) {
	older := FromAnswer("Replaced Jenkins with Travis CI, since the Jenkins box kept running out of disk.")
	newer := FromPrompt("we no longer use Travis either — CI moves to Buildkite, the agents run on our own hardware")
	if len(older) != 1 || len(newer) != 1 {
		t.Fatalf("older %+v, newer %+v: want one statement each", older, newer)
	}
	if !Retires(newer[0], older[0]) {
		t.Errorf("%q should retire %q", newer[0].Text, older[0].Text)
	}
}

// Another tool for the same job replaces the earlier choice, whatever
// words each uses; for jobs a project has several tools for at once, the
// subjects must agree too.
func TestOtherToolForSameJob(t *testing.T) {
	older := FromAnswer("I went with Honeybadger for error reports because it groups Rails exceptions per deploy.")
	newer := FromPrompt("Exceptions: Rollbar now, since the whole company is on it.")
	if len(older) != 1 || len(newer) != 1 || !newer[0].Change {
		t.Fatalf("older %+v, newer %+v: want one statement each, the newer a change", older, newer)
	}
	if !Supersedes(newer[0], older[0]) {
		t.Errorf("%q should replace %q", newer[0].Text, older[0].Text)
	}
	analytics := FromAnswer("Analytics events go to ClickHouse instead of Postgres, because the dashboards scan months of rows.")
	sessions := FromPrompt("Sessions: MySQL now, since the auth service already runs on it.")
	if len(analytics) != 1 || len(sessions) != 1 {
		t.Fatalf("analytics %+v, sessions %+v: want one statement each", analytics, sessions)
	}
	if otherTool(sessions[0], analytics[0]) {
		t.Errorf("a database for sessions does not replace one for analytics: %q, %q", sessions[0].Text, analytics[0].Text)
	}
	if !sameTopic("crash reporting", "error tracking") || !sameTopic("credentials", "secrets") {
		t.Error("a category's other names are the same subject")
	}
}

// A prompt's "Label: X now, since …", "X is moving to Y" and "from now on
// that's how we …" shapes.
func TestPromptLabelNowMovingAndThatsHow(t *testing.T) {
	for _, p := range []string{
		"Search: Typesense now, since Algolia's pricing changed.",
		"routing state is moving to the URL, query params fit much better",
	} {
		ms := FromPrompt(p)
		if len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
			t.Errorf("FromPrompt(%q) = %+v, want one decision that changes", p, ms)
		}
	}
	ms := FromPrompt("squash merges are fine now, I checked with the release team. from now on that's how we merge PRs")
	if len(ms) != 1 || ms[0].Kind != KindConstraint || !strings.Contains(strings.ToLower(ms[0].Text), "squash merges") {
		t.Errorf("FromPrompt = %+v, want one rule that holds the sentence before", ms)
	}
	if ms := FromPrompt("Formatting: gofumpt from now on, the import grouping matters."); len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Errorf("a label with \"from now on\" stays a rule: %+v", ms)
	}
}

// A teammate's permission touches the owner's rule it relaxes when they
// share two terms, a compound's parts counted.
func TestTouchesCompoundParts(t *testing.T) {
	owner := FromPrompt("never deploy automatically on merge, a human presses the button.")
	mate := FromPrompt("auto-deploy on merge is fine now, I've cleared it with ops. from now on that's how we release")
	if len(owner) != 1 || len(mate) != 1 {
		t.Fatalf("owner %+v, teammate %+v: want one each", owner, mate)
	}
	if !Touches(mate[0], owner[0]) {
		t.Errorf("%v should touch %v", mate[0].Terms, owner[0].Terms)
	}
}

// A choice keeps what the chosen option does, not its pros and cons;
// "how should we handle them?" is about what the sentence before opens
// on.
func TestFromChoiceKeepsWhatTheOptionDoes(t *testing.T) {
	prev := "Options:\n\nA) Retry inline three times — simple, but the request can hang for seconds.\nB) Park failed webhooks in a retry table and replay them from a cron every minute — callers return at once.\n\nWhich do you prefer?"
	m, ok := FromChoice("Failed webhooks from the billing provider are getting lost. How should we handle them?", prev, "B")
	if !ok || !strings.Contains(m.Text, "retry table and replay them from a cron") || strings.Contains(m.Text, "callers return at once") || strings.Contains(m.Text, "hang for seconds") {
		t.Errorf("FromChoice = %v %q, want what B does, not its or A's pros and cons", ok, m.Text)
	}
	if m.Subject != "failed webhooks" {
		t.Errorf("subject = %q, want failed webhooks", m.Subject)
	}
	if s := askedSubject("people keep asking how to upgrade the CLI without reinstalling. what should we do?"); s != "upgrade cli" {
		t.Errorf("askedSubject = %q, want upgrade cli", s)
	}
}

// An answer that applies the prompt's rule, naming what the rule names,
// adds no decision; a bare removal carries out the prompt's change.
func TestCarriesRuleAndRemoval(t *testing.T) {
	rule := FromPrompt("from now on every HTTP call goes through our HttpGateway wrapper, no raw fetch in components.")
	done := FromAnswer("While I was there I found `OrderPage` calling `fetch` directly; it now goes through `HttpGateway.get()`.")
	if len(rule) != 1 || len(done) != 1 {
		t.Fatalf("rule %+v, done %+v: want one each", rule, done)
	}
	if !Carries(done[0], rule[0]) {
		t.Errorf("%q applies %q", done[0].Text, rule[0].Text)
	}
	change := FromPrompt("switch the queue from SQS to NATS, we need replay.")
	removed := FromAnswer("The SQS poller is removed from the worker.")
	if len(change) != 1 || len(removed) != 1 || !Carries(removed[0], change[0]) {
		t.Errorf("change %+v, removal %+v: the removal carries out the change", change, removed)
	}
}

// "Label: X, starting this sprint" changes; "switched again" replaces the
// last change it names something of; "no more X" rejects X, so "revert
// to X" goes back on it; a bound set as a label is a rule.
func TestStartingAgainNoMoreAndBounds(t *testing.T) {
	ms := FromPrompt("Feature flags: Unleash, starting next week.")
	if len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
		t.Errorf("FromPrompt = %+v, want one decision that changes", ms)
	}
	older := FromAnswer("Moved the docs build to the self-hosted `docs-runner` on the ops VM, since the hosted runners time out.")
	newer := FromAnswer("Switched again: the docs now build on Netlify, because the ops VM is being retired.")
	if len(older) != 1 || len(newer) != 1 || !Supersedes(newer[0], older[0]) {
		t.Errorf("older %+v, newer %+v: the second change replaces the first", older, newer)
	}
	rule := FromPrompt("no more tabs - two spaces instead, the new linter insists")
	back := FromPrompt("revert to tabs. the generated files break with spaces")
	if len(rule) != 1 || len(back) != 1 || !reverses(back[0], rule[0]) {
		t.Errorf("rule %+v, back %+v: \"revert to tabs\" goes back on \"no more tabs\"", rule, back)
	}
	for p, want := range map[string]bool{
		"Maximum payload size: 2 MB.":                   true,
		"Lowest supported iOS version: 16.":             true,
		"Max width: 120 columns.":                       true,
		"Maximum effort: let's ship this by Friday.":    false,
		"Newest build: 1.4.2 is on the staging server?": false,
	} {
		ms := FromPrompt(p)
		if got := len(ms) == 1 && ms[0].Kind == KindConstraint; got != want {
			t.Errorf("FromPrompt(%q) = %+v, want a rule: %v", p, ms, want)
		}
	}
}

// What a question asks about: "how to"/"the best way to" a verb and its
// object, the sentence before when the object is a pronoun, and what the
// user wants, named by what qualifies a general head.
func TestAskedSubjectShapes(t *testing.T) {
	for p, want := range map[string]string{
		"Receipts need to be emailed now. What's the best way to send them?":          "send receipts",
		"people keep asking how to upgrade the CLI without reinstalling. what to do?": "upgrade cli",
		"want automated visual checks in CI for the storefront so nothing slips. how": "automated visual checks",
		"we'd like nightly db backups in S3. how":                                     "db backups",
		"Where should the CLI keep its config?":                                       "config",
	} {
		if got := askedSubject(p); got != want {
			t.Errorf("askedSubject(%q) = %q, want %q", p, got, want)
		}
	}
	// A second task makes the thing to pick no subject of the whole
	// prompt: "retried at most 3 times" is not about the job queue.
	if got := PromptTopic("Pick a job queue for the notifier and enqueue the welcome email."); got == "job queue" {
		t.Errorf("PromptTopic: %q, a prompt with two tasks", got)
	}
}

// A rule label with an aside, "no X, ever", enforcement told as what
// fails otherwise; a percentage bar moved replaces the old bar on what
// both name; "responses" is "response".
func TestRuleShapesAndMovedBars(t *testing.T) {
	allKind(t, true, KindConstraint,
		"House rule, put it in the docs: no raw SQL in controllers, ever.",
		"no sleeps in tests, ever",
		"every public function gets a doc comment, the PR is blocked otherwise",
		"p99 latency has to stay under 200ms on checkout or CI fails",
	)
	if ms := FromPrompt("House rule, put it in the docs: no raw SQL in controllers, ever."); len(ms) == 1 && !strings.Contains(ms[0].Subject, "sql") {
		t.Errorf("subject = %q, want what the rule forbids", ms[0].Subject)
	}
	first := FromPrompt("rule: branch coverage has to stay above 70% on the billing module or CI fails")
	second := FromPrompt("from now on 75% minimum on billing")
	other := FromPrompt("from now on 75% minimum on the search service")
	if len(first) != 1 || len(second) != 1 || len(other) != 1 {
		t.Fatalf("first %+v, second %+v, other %+v: want one rule each", first, second, other)
	}
	if !Supersedes(second[0], first[0]) {
		t.Errorf("%q should replace %q", second[0].Text, first[0].Text)
	}
	if otherBound(other[0], first[0]) {
		t.Errorf("a bar on another module replaces nothing: %q, %q", other[0].Text, first[0].Text)
	}
	for w, want := range map[string]string{"responses": "response", "databases": "database", "statuses": "status", "batches": "batch", "classes": "class", "boxes": "box"} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// A prompt's replacement with its reason, a move told from and to, where
// something goes now, a change told with "instead of … since"; a return
// to what an earlier change replaced goes back on it; "instead of Opera
// webhooks" retires what named the webhooks.
func TestPromptReplacementsAndReturns(t *testing.T) {
	allKind(t, true, KindDecision,
		"replaced Jest with Vitest, because the ESM config fights us every release.",
		"switched image hosting from Cloudinary to imgproxy — the bill doubled",
		"Search now goes through Typesense, since Algolia dropped our plan",
		"nightly reports: render them with WeasyPrint instead of wkhtmltopdf, since the latter is archived",
	)
	replaced := FromPrompt("replaced Redis sessions with signed cookies, because the cache node keeps restarting.")
	back := FromPrompt("back to Redis for sessions after all, the cookies got too large")
	if len(replaced) != 1 || len(back) != 1 || !reverses(back[0], replaced[0]) {
		t.Errorf("replaced %+v, back %+v: the return goes back on the replacement", replaced, back)
	}
	if len(back) == 1 && back[0].Subject != "sessions" {
		t.Errorf("subject = %q, want what the return is for (sessions)", back[0].Subject)
	}
	older := FromPrompt("switch order sync to the partner webhooks")
	newer := FromPrompt("order updates: read them from the shared NATS stream instead of partner webhooks, since the webhooks drop events at night")
	if len(older) != 1 || len(newer) != 1 || !Retires(newer[0], older[0]) {
		t.Errorf("older %+v, newer %+v: the stream replaces the webhooks", older, newer)
	}
}

// A bug report's topic is what it says is in trouble, not the place it
// happens in or a document it points at; a command or a vague "the game"
// is no subject.
func TestTroubleTopic(t *testing.T) {
	for p, want := range map[string]string{
		"invoice-export dies on the acme tenant (eu region). log below, whats going on":    "invoice-export",
		"Nightly syncs keep timing out after 40 min. the runbook is in docs/ops if useful": "syncs",
		"support says uploads vanish after the retry on the ipad app. issue #88":           "uploads",
		"mvn package -Dnative fails on CI since the bump":                                  "",
		"the game crashes on level 3":                                                      "",
		"Look at the failing e2e run and tell me what broke.":                              "",
	} {
		if got := troubleSubject(p); got != want {
			t.Errorf("troubleSubject(%q) = %q, want %q", p, got, want)
		}
	}
}

// "back to the … failure" returns to a topic; a rule label for a kind of
// thing names its subject; a three-digit number can name a thing.
func TestTopicReturnRuleForAndNumberedNames(t *testing.T) {
	for _, p := range []string{"ok, back to the login redirect bug", "let's get back to the flaky upload issue"} {
		if ms := FromPrompt(p); len(ms) != 0 {
			t.Errorf("FromPrompt(%q) = %+v, want nothing", p, ms)
		}
	}
	if ms := FromPrompt("back to Celery for the email jobs after all, RQ lost tasks on restart"); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("a return to a choice is still a decision: %+v", ms)
	}
	for text, want := range map[string]string{
		"Rule for all migrations: every one is reversible, no data changes in schema files.": "migrations",
		"Rule for this repo from here on: no argparse flags in train.py.":                    "",
	} {
		ms := FromPrompt(text)
		if len(ms) != 1 {
			t.Fatalf("FromPrompt(%q) = %+v, want one rule", text, ms)
		}
		if got := ms[0].Subject; want != "" && got != want || want == "" && got == "repo from here on" {
			t.Errorf("subject of %q = %q, want %q", text, got, want)
		}
	}
	if got := nounPhrase("the 404 page for the shop"); got != "404 page" {
		t.Errorf("nounPhrase = %q, want 404 page", got)
	}
}

// "Label: we're replacing X with Y" is a change that retires X; a
// sentence that starts another subject does not tell the one before on;
// "how should slurm prioritise jobs" asks about prioritising; a one-word
// statement is none.
func TestReplacingTopicShiftAndOneWord(t *testing.T) {
	older := FromAnswer("For CI ↔ cache traffic I used a shared NFS mount instead of per-job tarballs, because restoring tarballs took four minutes a job.")
	newer := FromPrompt("caching between the CI jobs and the runners: we're replacing the shared NFS mount with the S3 cache action. nfs locks up whenever a runner is preempted")
	if len(older) != 1 || len(newer) != 1 || !newer[0].Change || !Retires(newer[0], older[0]) {
		t.Errorf("older %+v, newer %+v: the replacement retires the mount", older, newer)
	}
	ms := FromPrompt("Deploys are manual from now on, the pipeline keeps flaking. separate thing: for search we went with Meilisearch instead of Elasticsearch, since it runs in 200 MB")
	if len(ms) != 2 || strings.HasPrefix(strings.ToLower(ms[1].Text), "separate") {
		t.Errorf("FromPrompt = %+v, want two statements, the second without its opening", ms)
	}
	if got := askedSubject("new cluster goes live soon. how should slurm prioritise jobs?"); got != "prioritise" {
		t.Errorf("askedSubject = %q, want prioritise", got)
	}
	if ms := FromAnswer("Switched."); len(ms) != 0 {
		t.Errorf("FromAnswer(\"Switched.\") = %+v, want nothing", ms)
	}
}

// "X happen because …" and "the double charges come from …" are causes
// about X; "the agents come from the stack" is no failure.
func TestCauseHappenAndComeFrom(t *testing.T) {
	for text, subject := range map[string]string{
		"The timeouts happen because the pool holds two connections and the export keeps one for minutes.":                       "",
		"The duplicate emails come from the retry in `Mailer.send()`: it retries on a timeout although the first send went out.": "duplicate emails",
	} {
		ms := FromAnswer(text)
		if len(ms) != 1 || ms[0].Kind != KindCause {
			t.Errorf("FromAnswer(%q) = %+v, want one cause", text, ms)
			continue
		}
		if subject != "" && ms[0].Subject != subject {
			t.Errorf("subject of %q = %q, want %q", text, ms[0].Subject, subject)
		}
	}
	if ms := FromAnswer("The build agents come from the autoscaling stack in `infra/ci/`."); len(ms) != 0 {
		t.Errorf("a provenance is no cause: %+v", ms)
	}
}

// "the live Stripe key" and "migration 0042" name their subject; "CI
// takes 25 minutes" reports CI in trouble.
func TestLiveNumbersAndSlowness(t *testing.T) {
	for p, want := range map[string]string{"the live Stripe key in the dashboard": "live stripe key", "0042 to use a concurrent build": "0042", "Refund the 17 duplicate charges": "refund"} {
		if got := nounPhrase(p); got != want {
			t.Errorf("nounPhrase(%q) = %q, want %q", p, got, want)
		}
	}
	if got := troubleSubject("CI takes 25 minutes on every PR for the workspace now, it used to be 8."); got != "ci" {
		t.Errorf("troubleSubject = %q, want ci", got)
	}
}

// "p95 dropped from 180 ms to 40 ms" is a figure, "Following your rule I
// used …" carries a rule out, "the emails never go out" is a report.
func TestFiguresRulesCarriedAndReports(t *testing.T) {
	for _, a := range []string{
		"Median render time dropped from 180 ms to 40 ms on the product page.",
		"Following your rule I used `uv pip compile` instead; pip-tools is not in the lockfile.",
	} {
		if ms := FromAnswer(a); len(ms) != 0 {
			t.Errorf("FromAnswer(%q) = %+v, want nothing", a, ms)
		}
	}
	if ms := FromPrompt("the worker keeps dying overnight, the reminder emails never go out. logs are in /var/log/worker.log"); len(ms) != 0 {
		t.Errorf("a report of what never happens is no rule: %+v", ms)
	}
}

// A bound moved in the measure it is counted in: a line's width in
// characters, columns or glyphs, the lowest platform level however it is
// named; a width set for commit subjects is not a line's; the same bar
// restated replaces nothing. A rule about commit messages replaces one
// about conventional commits; a per-CPU design replaces a kfifo.
func TestMovedWidthsAndFloors(t *testing.T) {
	replaces := [][2]string{
		{"Max width: 120 columns, from today onward.", "Always keep Python lines under 80 characters."},
		{"Max width: 120 columns, from today onward.", "The 80-character rule is gone; lines can be up to 100 now."},
		{"the teletext rows hold 32 glyphs. so that's the hard limit for every row from now on: no row wider than 32 glyphs", "rule: subtitle lines are capped at 42 characters, always."},
		{"Lowest supported API level: 31.", "We're dropping Oreo. Android 10 is the floor from now on (minSdk 29)."},
		{"Commit messages: lead with the Jira key, e.g. PAY-123, then an imperative summary. That's the rule from now on.", "always use conventional commits here (feat:, fix:, chore:)"},
	}
	for _, c := range replaces {
		newer, older := one(t, c[0], true), one(t, c[1], true)
		if !Supersedes(newer, older) {
			t.Errorf("%q should replace %q", c[0], c[1])
		}
	}
	keeps := [][2]string{
		// A commit subject's width is not a line's.
		{"Max width: 120 columns, from today onward.", "Always keep commit subjects under 72 characters."},
		// The same bar restated.
		{"Lines stay under 100 characters, always.", "Never let a line go over 100 chars."},
		// A percentage and a width are other measures.
		{"Coverage must stay above 80% from now on.", "Always keep Python lines under 80 characters."},
	}
	for _, c := range keeps {
		newer, older := one(t, c[0], true), one(t, c[1], true)
		if otherBound(newer, older) {
			t.Errorf("%q should not replace %q by its bound", c[0], c[1])
		}
	}
	older := one(t, "Replaced the spinlock with a lockless kfifo, since there's exactly one producer and one consumer.", false)
	newer := one(t, "a single fifo is the bottleneck now. concurrency model for the receive path: per-CPU buffers drained by NAPI, no shared state between CPUs. do that", true)
	if !Supersedes(newer, older) {
		t.Errorf("%q should replace %q", newer.Text, older.Text)
	}
}

// A root cause that opens with a code identifier is about that code, not
// about what the prompt asked; one that opens with a tool's name or a
// word keeps the subject it had.
func TestCauseOpensWithItsCode(t *testing.T) {
	for text, want := range map[string]string{
		"Root cause: `WarpstoneRenderer` calls straight into NMS through `CraftWorld.getHandle()`, so that signature no longer exists on 1.21.":       "warpstonerenderer",
		"The root cause: `IntcalcReader` parses the zoned-decimal `ACCT-BAL` field into a `double`, which can't hold most two-place amounts exactly.": "intcalcreader",
		"Root cause: `MountDriver.after_flip()` reads pier_side before the mount reports it.":                                                         "mountdriver.after_flip",
	} {
		if m := one(t, text, false); m.Kind != KindCause || m.Subject != want {
			t.Errorf("%q: %s about %q, want a cause about %q", text, m.Kind, m.Subject, want)
		}
	}
	if openingCode("PostgreSQL drops the connection when the pool is idle") != "" || openingCode("The cache was cold") != "" {
		t.Error("a tool's name or a word is no identifier a cause opens with")
	}
}

// "dont ever modify X": the rule is about X, whatever way "don't" is
// typed, not about the verb.
func TestRuleAboutWhatItForbids(t *testing.T) {
	for text, want := range map[string]string{
		"dont ever modify a signed entry in place, signed entries are immutable": "signed entry",
		"Don't ever alter the audit rows by hand":                                "audit rows",
	} {
		if m := one(t, text, true); m.Kind != KindConstraint || m.Subject != want {
			t.Errorf("%q: %s about %q, want a rule about %q", text, m.Kind, m.Subject, want)
		}
	}
}

// A measured result of a change is no decision; the same figure beside a
// reason or an alternative still is.
func TestMeasuredOutcomeIsNoChoice(t *testing.T) {
	for _, a := range []string{
		"Compile time on the same file is back to 4.6 s and the lit suite passes (412/412).",
		"`_raw_spin_lock_irqsave` is gone from the profile; 25 Gb/s replay runs at 14.8 Mpps with no drops.",
		"Offset after 10 min: 0.3 ms p99, and the fused point cloud no longer smears on the LED target.",
		"The jitter is gone at 60, 144 and 240 Hz in the editor and in a build.",
	} {
		if ms := FromAnswer(a); len(ms) != 0 {
			t.Errorf("FromAnswer(%q) = %q, want nothing: a result", a, kinds(ms))
		}
	}
	for _, a := range []string{
		"Switched the encoder to int16, since the 4.6 s decode time was the bottleneck and the suite passes with it.",
		"Replaced the spinlock with a lockless kfifo, because there is one producer; replay runs at 14.8 Mpps.",
	} {
		if ms := FromAnswer(a); len(ms) != 1 || ms[0].Kind != KindDecision {
			t.Errorf("FromAnswer(%q) = %q, want one decision", a, kinds(ms))
		}
	}
}

// Changes that name what they replace in other ways: a scrapped gate
// before the rule that replaces it ("scrap the percentage gate" retires
// a rule set as a percentage); "final call on X: Y" settles X, and a
// category named as the subject settles every earlier tool of it; a bare
// "instead" replaces the choice before it even for jobs a project has
// several tools for; a change to the tool an earlier choice turned down
// reverses it. Near misses: a database for sessions still does not
// replace one for analytics, and naming the rejected tool again only to
// turn it down again reverses nothing.
func TestChangesThatNameWhatGoes(t *testing.T) {
	gate := one(t, "coverage rule for this repo: never merge anything that drops total coverage below 85%", true)
	ms := FromPrompt("ok scrap the percentage gate entirely. from now on every PR must come with tests for each context function it touches")
	if len(ms) != 1 || ms[0].Kind != KindConstraint || !ms[0].Change || !strings.Contains(ms[0].Text, "scrap") {
		t.Fatalf("got %+v, want one rule that carries the scrapped gate", ms)
	}
	if !Supersedes(ms[0], gate) {
		t.Errorf("%q should replace %q", ms[0].Text, gate.Text)
	}
	b2 := one(t, "we're moving episode audio to backblaze b2, it's S3-compatible so keep the presign flow", true)
	r2 := one(t, "final call on blob storage: Cloudflare R2. zero egress fees and the CDN sits in front of it anyway", true)
	if r2.Kind != KindDecision || r2.Subject != "blob storage" || !Supersedes(r2, b2) {
		t.Errorf("%q (%s about %q) should replace %q", r2.Text, r2.Kind, r2.Subject, b2.Text)
	}
	hnsw := one(t, "Replaced FAISS with `hnswlib`, since it publishes arm64 wheels and gets the same recall.", false)
	pgv := one(t, "Switched to pgvector instead: the compose stack already runs Postgres 16, so the vectors live in a column with an HNSW index.", false)
	if !Supersedes(pgv, hnsw) {
		t.Errorf("%q should replace %q", pgv.Text, hnsw.Text)
	}
	yjs := one(t, "I went with Yjs over Automerge for the shared document model, because y-prosemirror gives us remote cursors.", false)
	am := one(t, "moving the doc model to automerge 2. automerge-repo for sync and storage", true)
	if !reverses(am, yjs) {
		t.Errorf("%q should reverse %q", am.Text, yjs.Text)
	}
	again := one(t, "Switched the editor binding to y-prosemirror 1.2 instead of Automerge's, since it keeps collaborative undo.", false)
	if reverses(again, yjs) {
		t.Errorf("%q turns Automerge down again: no reversal of %q", again.Text, yjs.Text)
	}
}

// Options told in other shapes: bold lettered paragraphs ("**A. Name**:
// …") picked by letter; "We could …" then "The alternative is …"; a
// label that says what the options are like names no subject, and the
// question "Which X should the app use?" does.
func TestMoreOptionShapes(t *testing.T) {
	lettered := "Two ways:\n\n**A. Supabase SAML SSO**: a SAML connection per company. Needs the Pro plan.\n\n**B. Google OAuth provider with a domain check**: enable the built-in Google provider.\n\nA or B?"
	if m, ok := FromChoice("How should users sign in?", lettered, "option B, fewer moving parts"); !ok || !strings.Contains(m.Text, "Google OAuth provider") || strings.Contains(m.Text, "B, not A") {
		t.Errorf("lettered pick = %q, %v; want the option B names", m.Text, ok)
	}
	prose := "We could store each geocoded address in a transient with a 30-day expiry.\n\nThe alternative is the persistent object cache through wp_cache_set, which is faster.\n\nWhich way do you want to go?"
	if m, ok := FromChoice("How do we cache the geocoding results?", prose, "transients, not the object cache"); !ok || !strings.Contains(m.Text, "transient") {
		t.Errorf("prose pick = %q, %v; want the transient", m.Text, ok)
	}
	list := "Options that work well with Avalonia 11:\n\n1. **CommunityToolkit.Mvvm**: source generators.\n2. **ReactiveUI**: routing built in.\n\nWhich one do you want?"
	if m, ok := FromChoice("Which MVVM library should the Avalonia app use?", list, "reactivui, the sync view is all observables"); !ok || m.Subject != "mvvm library" || !strings.Contains(m.Text, "ReactiveUI") {
		t.Errorf("list pick = %q about %q, %v; want ReactiveUI about the MVVM library", m.Text, m.Subject, ok)
	}
	if got := sentences("I chose plan B. Then the tests ran."); len(got) != 2 {
		t.Errorf("a letter ending a sentence still ends it: %q", got)
	}
}

// Terse choices in prompts: a label and a tool the lexicon knows
// ("Asset pipeline: Vite with …"), not a report's or a rule's label;
// "Switched again after …: X is Y now" about X; a retirement followed by
// "Drizzle instead." is one change.
func TestTerseChoicesInPrompts(t *testing.T) {
	if m := one(t, "Asset pipeline: Vite with vite-plugin-shopify, we want HMR in the theme editor.", true); m.Kind != KindDecision || m.Subject != "asset pipeline" {
		t.Errorf("got %s about %q, want a decision about the asset pipeline", m.Kind, m.Subject)
	}
	for _, p := range []string{"Error: vite exited with code 1", "Formatting: stylish-haskell from now on, the import alignment matters to Dana."} {
		if ms := FromPrompt(p); len(ms) == 1 && ms[0].Kind == KindDecision {
			t.Errorf("%q: a report's or a rule's label is no choice of a tool", p)
		}
	}
	if m := one(t, "Switched again after the gateway review: API versions are a media type parameter now.", true); m.Kind != KindDecision || !m.Change || m.Subject != "api versions" {
		t.Errorf("got %s (change %v) about %q, want a change about API versions", m.Kind, m.Change, m.Subject)
	}
	if m := one(t, "Prisma is out too after the cold-start numbers on Lambda. Drizzle instead.", true); !strings.Contains(m.Text, "Drizzle") || !m.Change {
		t.Errorf("got %q, want one change naming Drizzle", m.Text)
	}
}

// "New plan for OTA: Peridio" is a change about OTA; a root cause that
// opens with a member ("OrderedDataStore:SetAsync was called …") keeps
// the subject it names, over the prompt's topic.
func TestNewPlanAndMemberCauses(t *testing.T) {
	if m := one(t, "New plan for OTA: Peridio, they gave us a deal.", true); m.Kind != KindDecision || !m.Change || m.Subject != "ota" {
		t.Errorf("got %s (change %v) about %q, want a change about OTA", m.Kind, m.Change, m.Subject)
	}
	m := one(t, "Root cause: OrderedDataStore:SetAsync was called every 5 seconds per player, so the request budget ran out.", false)
	if m.Kind != KindCause || m.Subject != "ordereddatastore" || !OwnCauseSubject(m) {
		t.Errorf("got %s about %q (own %v), want a cause about OrderedDataStore, its own", m.Kind, m.Subject, OwnCauseSubject(m))
	}
}

// Shapes from the retired fifth half (hu): "nobody runs X" and "no new X,
// period" are rules in a prompt; "dont change anything, just tell me" is
// this turn's; "X passes …, and Y no longer crashes" and "now takes 11 s
// instead of 3 min" are results; "2nd one" picks the second option;
// "which driver" asks about the driver; "TLS: aws-lc-rs." chooses a TLS
// library.
func TestRetiredFifthHalfShapes(t *testing.T) {
	allKind(t, true, KindConstraint,
		"also, nobody runs migrations against the shared staging database from their own machine",
		"and no new npm dependencies, period.",
	)
	if ms := FromPrompt("dont change anything, just tell me"); len(ms) != 0 {
		t.Errorf("this turn's instruction made %q", kinds(ms))
	}
	for _, a := range []string{
		"`make installcheck` passes on 15, 16 and 17, and the repro script no longer crashes.",
		"A 2,000-employee run now takes 11 s instead of 3 min.",
	} {
		if ms := FromAnswer(a); len(ms) != 0 {
			t.Errorf("FromAnswer(%q) = %q, want nothing: a result", a, kinds(ms))
		}
	}
	table := "| # | Driver | Pros |\n|---|---|---|\n| 1 | database | nothing new to run |\n| 2 | Redis + Horizon | a dashboard |\n\nLet me know which one you want."
	if m, ok := FromChoice("pdf generation is timing out. need to move it to a queue. which driver", table, "2nd one. the dashboard alone is worth it"); !ok || !strings.Contains(m.Text, "Horizon") || m.Subject != "driver" {
		t.Errorf("got %q about %q, %v; want Redis + Horizon about the driver", m.Text, m.Subject, ok)
	}
	if m := one(t, "TLS: aws-lc-rs. certified module, links statically", true); m.Kind != KindDecision {
		t.Errorf("got %s, want a choice of TLS library", m.Kind)
	}
}

// A cause that opens, after a label that names no subject, with code in
// backticks is about that code; a label that names one keeps it.
func TestCauseOpensWithQuotedCode(t *testing.T) {
	m := one(t, "Root cause on our side: `cdpshot` creates every tab with `background: true`, so Chrome never schedules a frame for it.", false)
	if m.Kind != KindCause || m.Subject != "cdpshot" || !OwnCauseSubject(m) {
		t.Errorf("got %s about %q (own %v), want a cause about cdpshot, its own", m.Kind, m.Subject, OwnCauseSubject(m))
	}
	if got := openingCode("The culprit was the stack: `SWI2_IRQHandler` formats floats with %f."); got != "" {
		t.Errorf("a label that names its subject keeps it, got %q", got)
	}
	if got := openingCode("`postgres` ran out of connections"); got != "" {
		t.Errorf("a tool's name is no code subject, got %q", got)
	}
}

// What the user hands over to read ("log excerpt is in the issue",
// "Here's the Slack export") is no topic of the prompt, nor is a lone
// letter; "Turns out `handle_event(…)` runs twice …" is a cause about
// the code it opens with.
func TestMaterialIsNoTopic(t *testing.T) {
	for _, p := range []string{
		"Warpstones wont load on paper 1.21, works on 1.20.4. log excerpt is in the issue",
		"Here's the Slack export from #payments last week. Anything in there we need to act on?",
		"The F# API returns options as {\"Case\":\"Some\"}. Make it emit plain JSON.",
	} {
		if got := PromptTopic(p); got == "excerpt" || got == "slack export" || got == "f" {
			t.Errorf("PromptTopic(%q) = %q", p, got)
		}
	}
	if got := openingCode("Turns out `handle_event(\"pay\", ...)` runs twice when the socket reconnects."); got != "handle_event" {
		t.Errorf("openingTick = %q, want handle_event", got)
	}
}

// An answer that puts in place the tool a prompt's change chose, or names
// two of its key terms, carries it out; another change in the same
// answer does not.
func TestAnswerPutsTheChangeInPlace(t *testing.T) {
	decided := one(t, "we're moving episode audio to R2 now, the egress bill is brutal", true)
	if !decided.Change {
		t.Fatalf("%q: want a change", decided.Text)
	}
	if done := one(t, "Switched the storage endpoint to R2 and the bucket to `quill-r2`.", false); !Carries(done, decided) {
		t.Errorf("%q should carry out %q", done.Text, decided.Text)
	}
	if other := one(t, "Switched the logger to zap.", false); Carries(other, decided) {
		t.Errorf("%q is another change, not %q carried out", other.Text, decided.Text)
	}
	rule := one(t, "Formatting: stylish-haskell from now on, the import alignment matters to Dana.", true)
	if done := one(t, "Replaced the hook with `stylish-haskell --inplace` driven by `.stylish-haskell.yaml`.", false); !Carries(done, rule) {
		t.Errorf("%q should carry out the rule %q", done.Text, rule.Text)
	}
}

// An action on what the sentence before named ("I removed it from that
// profile") is no memory; with its reason it may be one.
func TestActionOnItIsNoMemory(t *testing.T) {
	if ms := FromAnswer("The font plugin came back with the merge. I removed it from that profile; the wasm is 1.3 MB again and the font comes from the CDN."); len(ms) != 0 {
		t.Errorf("got %q, want nothing", kinds(ms))
	}
	if ms := FromAnswer("I replaced it with a per-request pool because the shared one deadlocked under load."); len(ms) != 1 {
		t.Errorf("got %q, want the change with its reason", kinds(ms))
	}
}

// "It was slow because …" is a cause; options lettered "(a)", "(b)" are
// a list.
func TestSlowCauseAndParenthesisedLetters(t *testing.T) {
	if m := one(t, "It was slow because the reports loader awaits getUser() before it starts getReports(), so every navigation pays two database round trips.", false); m.Kind != KindCause {
		t.Errorf("got %s, want a cause", m.Kind)
	}
	a := "Three routes:\n\n(a) Pickle the metadata into the document: quick, but pickles break.\n(b) Serialise it as a JSON string in a property: readable.\n\nWhich do you prefer?"
	if m, ok := FromChoice("How should the sketch metadata persist?", a, "b"); !ok || !strings.Contains(m.Text, "JSON string") {
		t.Errorf("got %q, %v; want the JSON string", m.Text, ok)
	}
}

// "## Root cause" then a paragraph: its first sentence is the cause; a
// TODO goes on with "It needs …"; "state" or "notes" as nouns report
// nothing, as verbs they still do.
func TestHeadingsTodosAndNounVerbs(t *testing.T) {
	a := "## Root cause\n\n`InvoiceExporter.ExportCsvAsync` returns `writer.FlushAsync()` without awaiting it, so the writer is disposed mid-flush.\n\n## Fix\n\nAwaited the flush."
	if ms := FromAnswer(a); len(ms) != 1 || ms[0].Kind != KindCause {
		t.Errorf("got %q, want the cause under its heading", kinds(ms))
	}
	todo := "Fixed the rubber-banding.\n\nTODO: the release animation still runs from client-side state only, so other players never see you let go. It needs a `GrappleReleasePayload` sent over `ServerPlayNetworking`."
	if ms := FromAnswer(todo); len(ms) != 1 || ms[0].Kind != KindTodo || ms[0].Quoted || !strings.Contains(ms[0].Text, "GrappleReleasePayload") {
		t.Errorf("got %+v, want one todo of Claude's naming what it needs", ms)
	}
	if _, ok := reportedBy("The docs state never to run migrations by hand."); !ok {
		t.Error("\"the docs state never …\" reports the docs")
	}
	if _, ok := reportedBy("The release notes are out of date, so I rewrote them."); ok {
		t.Error("\"the release notes are\" reports nothing")
	}
}

// A rule, then the same said of every case, is one rule; a task after a
// rule is not part of it.
func TestRuleSaidOfEveryCase(t *testing.T) {
	if m := one(t, "Hard rule for the charts repo: no mutable tags. Every image in every chart is pinned by sha256 digest, third-party ones included.", true); !strings.Contains(m.Text, "digest") {
		t.Errorf("got %q, want the rule with its every-case sentence", m.Text)
	}
	ms := FromPrompt("Never log request bodies. Add a redaction middleware to the API.")
	if len(ms) != 1 || strings.Contains(ms[0].Text, "middleware") {
		t.Errorf("got %+v, want the rule alone", ms)
	}
}

// A bug report with "never fires" is no rule, whatever it measures
// ("after ~2 min"); a thing's own name beats "the same way"; quote marks
// do not end a subject.
func TestReportsAndOwnersAndQuoteMarks(t *testing.T) {
	if ms := FromPrompt("Uart rx on the stm32h7 board drops bytes after ~2 min, dma never fires the half-complete cb."); len(ms) != 0 {
		t.Errorf("a report made %q", kinds(ms))
	}
	m, _ := newMemory(KindTodo, "sd_task's stack was sized the same way and also formats floats; it needs a high-water-mark check under load.", map[string]bool{})
	if s, _ := subjectStrength(m, ""); s != "stack" {
		t.Errorf("subject %q, want the stack", s)
	}
	q, _ := newMemory(KindDecision, "The \"Retry\" button now waits for the server's ack.", map[string]bool{})
	if s, _ := subjectStrength(q, ""); s == "" || s == "the" {
		t.Errorf("subject %q, want one read past the quote marks", s)
	}
}

// "Which policy do you want for the new cluster?" asks about the policy;
// "Which way do you want to go?" names no subject.
func TestWhichNounQuestion(t *testing.T) {
	if got := questionSubject("Which policy do you want for the new cluster?"); got != "policy" {
		t.Errorf("got %q, want policy", got)
	}
	if got := questionSubject("Which way do you want to go?"); got == "way" {
		t.Errorf("got %q, want no subject from the way", got)
	}
}

// Shapes from tq257–tq288: a choice with a reason that names an error is
// still a choice; "Analytics: we switched …", "Collision handling: we're
// writing our own …", "savegames are binser again" (not "X is flaky
// again"), "Input for the engine viewer is standardised on …" and "Where
// flows execute: everything on Modal from this sprint" are choices;
// "The k8s pool is being torn down" retires the pool; Arcade and Matter
// are physics engines.
func TestSixthBatchShapes(t *testing.T) {
	if m := one(t, "For the tracker I went with the built-in tracking rather than a custom beacon, because it already fires the quartile and error events we need.", false); m.Kind != KindDecision {
		t.Errorf("got %s, want a decision", m.Kind)
	}
	allKind(t, true, KindDecision,
		"Analytics: we switched playback events to Mux Data, because the old tracker only covers ad playback.",
		"Collision handling: we're writing our own tile-sweep collider now.",
		"Scrap the JSON saves; savegames are binser again.",
		"Where flows execute: everything on Modal from this sprint, through the push pool.",
	)
	if ms := FromPrompt("TestUploadResumes is flaky again, please actually fix it this time."); len(ms) != 0 {
		t.Errorf("a report made %q", kinds(ms))
	}
	if m := one(t, "Input for the engine viewer is standardised on the system's MagnifyGesture and RotateGesture3D now.", false); m.Kind != KindDecision || m.Subject != "input" {
		t.Errorf("got %s about %q, want a decision about the input", m.Kind, m.Subject)
	}
	older := one(t, "Flows can go to the managed pool now, except the PII ones, which stay on k8s-prod.", true)
	newer := one(t, "Where flows execute: everything on Modal from this sprint. The k8s pool is being torn down.", true)
	if !Supersedes(newer, older) {
		t.Errorf("%q should replace %q", newer.Text, older.Text)
	}
	arcade := one(t, "I went with Arcade Physics, since every body is an axis-aligned box.", false)
	matter := one(t, "Switched the physics to Matter.js, the platforms rotate now.", false)
	if !Supersedes(matter, arcade) {
		t.Errorf("%q should replace %q", matter.Text, arcade.Text)
	}
}

// Picks in other words: "take your recommendation" takes the option
// Claude leaned towards; "iii" picks from options numbered i., ii., iii.
// (but "i think …" picks nothing by numeral); "hey-api one" names an
// option without "the"; "that one" names none; the user's "Which
// generator?" is the subject over the det phrase of Claude's question.
func TestPicksInOtherWords(t *testing.T) {
	rec := "Three options:\n\n- **createResource per component**: built in, no cache.\n- **TanStack Query for Solid**: cache, dedup, retries.\n\nI'd lean towards TanStack Query, since the cache keys match. Which do you prefer?"
	if m, ok := FromChoice("What should data fetching standardise on?", rec, "take your recommendation"); !ok || !strings.Contains(m.Text, "TanStack Query") {
		t.Errorf("got %q, %v; want TanStack Query", m.Text, ok)
	}
	roman := "Three ways:\n\ni. **mip at boot**: tiny, but a bad push bricks nodes.\nii. **senko**: needs GitHub.\niii. **A/B app slots**: a bad update rolls back.\n\nWhich one should I build?"
	if m, ok := FromChoice("How should the Pico W sensor nodes get firmware updates in the field?", roman, "iii"); !ok || !strings.Contains(m.Text, "A/B app slots") || m.Subject != "firmware updates" {
		t.Errorf("got %q about %q, %v; want A/B app slots about firmware updates", m.Text, m.Subject, ok)
	}
	if _, ok := FromChoice("How should the nodes get firmware updates?", roman, "i think we should wait"); ok {
		t.Error("\"i think …\" picks nothing")
	}
	table := "Candidates:\n\n| generator | notes |\n|---|---|\n| openapi-generator | Java CLI |\n| @hey-api/openapi-ts | 3.1 support |\n\nWhich one should I wire into the build?"
	if m, ok := FromChoice("Generate a TypeScript client from the spec. Which generator?", table, "hey-api one, obviously"); !ok || !strings.Contains(m.Text, "openapi-ts, not") || m.Subject != "generator" {
		t.Errorf("got %q about %q, %v; want openapi-ts about the generator", m.Text, m.Subject, ok)
	}
	if _, ok := FromChoice("Which generator?", table, "that one is fine I guess"); ok {
		t.Error("\"that one\" names no option")
	}
}

// "Scrap the JSON saves; savegames are binser again." is a change that
// retires the JSON saves.
func TestScrapAndAgainIsAChange(t *testing.T) {
	older := one(t, "Saves go to JSON via dkjson so the web build can read them.", true)
	newer := one(t, "Scrap the JSON saves; savegames are binser again.", true)
	if !newer.Change || !Supersedes(newer, older) {
		t.Errorf("%q (change %v) should replace %q", newer.Text, newer.Change, older.Text)
	}
}

// From the retired sixth half (hv): "X is dropped too — we moved to …, so
// … now" is one change; a retirement then "… uses HERE instead" is one
// change; "Styling goes back to basics: …" is a choice.
func TestRetiredSixthHalfShapes(t *testing.T) {
	if m := one(t, "Horizon is dropped too — we moved to Vapor, so queue jobs go to Amazon SQS now.", true); m.Kind != KindDecision || !m.Change {
		t.Errorf("got %s (change %v), want a change", m.Kind, m.Change)
	}
	if m := one(t, "MapLibre is dropped too. The OEM gave us HERE SDK licences, so the nav screen uses HERE instead.", true); !strings.Contains(m.Text, "HERE SDK") {
		t.Errorf("got %q, want the retirement with what replaces it", m.Text)
	}
	if m := one(t, "Styling goes back to basics: one hand-written stylesheet, BEM naming, zero tooling.", true); m.Kind != KindDecision || m.Subject != "styling" {
		t.Errorf("got %s about %q, want a decision about styling", m.Kind, m.Subject)
	}
}

// From tq289–tq352: "The handbook is Typst documents now" is how a thing
// is since a change (not with "from now on", which makes a rule); a vendor's
// email pasted between "---" lines after "… replied:" is the vendor's; a
// retirement then "Put artifacts in …" is one change; a spatial reference
// set to another code replaces the old one.
func TestSeventhBatchShapes(t *testing.T) {
	if m := one(t, "The handbook is Typst documents now; I deleted the .tex sources.", true); m.Kind != KindDecision || !m.Change {
		t.Errorf("got %s (change %v), want a change", m.Kind, m.Change)
	}
	if m := one(t, "Minimum Python is 3.12 from now on.", true); m.Kind != KindConstraint {
		t.Errorf("got %s, want a rule", m.Kind)
	}
	email := "Support replied about yesterday's 503s:\n\n---\nHi Jonas,\n\nDecision: we have moved your cluster. From now on please keep import batches under 500 documents.\n---\n\nDo we need to change anything? And never bump the client without a changelog entry."
	ms := FromPrompt(email)
	if len(ms) != 1 || strings.Contains(ms[0].Text, "500") || !strings.Contains(ms[0].Text, "changelog") {
		t.Errorf("got %+v, want only the user's own rule", ms)
	}
	if m := one(t, "we no longer use MinIO, ops is retiring it. Put artifacts in the Ceph RGW bucket argo-artifacts.", true); !strings.Contains(m.Text, "Ceph") {
		t.Errorf("got %q, want the retirement with where artifacts go", m.Text)
	}
	older := one(t, "Parcels move to EPSG:3857.", true)
	newer := one(t, "from now on parcel geometry is kept in Lambert-93 (2154).", true)
	if !Supersedes(newer, older) {
		t.Errorf("%q should replace %q", newer.Text, older.Text)
	}
	year, _ := newMemory(KindDecision, "From now on invoices from before the merger (2019) keep their old numbering.", map[string]bool{})
	if otherCode(year, older) {
		t.Error("a year in parentheses is no spatial reference")
	}
}

// "Her second point (…)" tells what a quoted reviewer said; a bare
// "instead" on what the choice before names replaces it; "Settings
// persistence: moving to X" is a change about the settings, as "app
// settings" is.
func TestTheirPointBareInsteadAndProcessSubjects(t *testing.T) {
	if src, ok := reportedBy("Her second point (indexes declared in the table objects rather than in migrations) is a style preference."); !ok || src == "" {
		t.Error("\"Her second point …\" reports her")
	}
	older := one(t, "Per-instance transforms live in a storage buffer read with `@builtin(instance_index)`, instead of a uniform array, since uniform buffers cap at 64 KiB.", false)
	newer := one(t, "Instance data now goes through a vertex buffer with stepMode 'instance' instead, because vertex-stage storage buffers aren't available everywhere.", false)
	if !Supersedes(newer, older) {
		t.Errorf("%q should replace %q", newer.Text, older.Text)
	}
	if m := one(t, "Settings persistence: moving to Preferences DataStore in the shared KMP module, since Android needs the same code.", true); m.Kind != KindDecision || !m.Change {
		t.Errorf("got %s (change %v), want a change", m.Kind, m.Change)
	}
	if ms := FromPrompt("Status: we're moving slowly on the migration, two more days."); len(ms) != 0 {
		t.Errorf("a status report made %q", kinds(ms))
	}
	if !sameTopic("settings persistence", "app settings") || sameTopic("settings persistence", "log storage") {
		t.Error("what is persisted is the subject")
	}
}

// Subjects of rules said in other shapes: "No pipeline task may …" is
// about pipeline tasks; "nothing new ever goes into the old kv v1 mount"
// is not about "nothing new"; "pad numbers start at 1" is about pad
// numbers; "Keep everything compatible with R2021b" about compatibility;
// "anything under src/legacy" keeps its place.
func TestRuleSubjectsInOtherShapes(t *testing.T) {
	for text, want := range map[string]string{
		"No pipeline task may run longer than a quarter of an hour from now on.":                   "pipeline task",
		"From now on pad numbers start at 1, never 0.":                                             "pad numbers",
		"Keep everything compatible with R2021b, no functions newer than that.":                    "compatible",
		"Don't touch anything under src/legacy without asking me first, it's frozen.":              "src/legacy",
		"Rule for secrets: nothing new ever goes into the old kv v1 mount, app secrets use kv-v2.": "kv",
	} {
		m := one(t, text, true)
		if !strings.Contains(m.Subject, want) {
			t.Errorf("%q: subject %q, want one with %q", text, m.Subject, want)
		}
	}
}

// "Switched: removed X, added Y" carries out the prompt's change of the
// same turn; without one in the prompt it is no carrying out.
func TestDoneLabelCarriesTheChange(t *testing.T) {
	decided := one(t, "New plan for OTA: Peridio, they gave us a deal.", true)
	done := one(t, "Switched: removed `Firmware.Updater`, added `peridiod` to the rootfs overlay.", false)
	if !Carries(done, decided) {
		t.Errorf("%q should carry out %q", done.Text, decided.Text)
	}
	rule := one(t, "Never log request bodies.", true)
	if Carries(done, rule) {
		t.Errorf("%q carries out no rule %q", done.Text, rule.Text)
	}
}

// A source named by a noun that is also a report verb ("report",
// "notes", "state") still introduces its words when it opens the
// sentence before a colon; "State is now handled with …" and "I split
// the state: …" are Claude's own.
func TestNounSourcesStillQuote(t *testing.T) {
	for _, a := range []string{
		"The release notes are explicit: from now on always run migrations by hand.",
		"The vendor's report is clear: never upgrade past 2.3.",
		"The README notes that we must never run the linter.",
		"Their notes: from now on, deploy only from the release branch.",
	} {
		if ms := FromAnswer(a); len(ms) != 1 || !ms[0].Quoted {
			t.Errorf("FromAnswer(%q) = %+v, want one quoted note", a, ms)
		}
	}
	for _, a := range []string{
		"State is now handled with flutter_bloc: one Bloc per feature, because the payments flow has long event sequences.",
		"I split the state: staging now uses its own key, because the two environments kept locking each other.",
	} {
		if ms := FromAnswer(a); len(ms) != 1 || ms[0].Quoted {
			t.Errorf("FromAnswer(%q) = %+v, want Claude's own decision", a, ms)
		}
	}
}

// subjectIs checks the subject read from each prompt (prompt) or answer.
func subjectIs(t *testing.T, prompt bool, cases map[string]string) {
	t.Helper()
	for text, want := range cases {
		if m := one(t, text, prompt); m.Subject != want {
			t.Errorf("%q: subject %q, want %q", text, m.Subject, want)
		}
	}
}

// A rule for every thing of a kind is about that kind, or about what
// every one of them does when the kind is too general.
func TestEverySubject(t *testing.T) {
	subjectIs(t, true, map[string]string{
		"From now on every Django view declares its permission classes.": "django view",
		"Going forward, each handler returns a typed problem document.":  "typed problem document",
		"Every Terraform module must pin its provider versions, always.": "terraform module",
	})
}

// A label that is itself a rule names its subject; a participle inside a
// label is an adjective; a commit's hash names no subject.
func TestLabelSubjects(t *testing.T) {
	subjectIs(t, true, map[string]string{"Never mock the clock: tests that sleep are flaky anyway.": "clock"})
	if s := subjectOf(Memory{Kind: KindConstraint, Text: "Minimum supported Node version: 20."}, ""); s != "supported node version" {
		t.Errorf("subject %q, want %q", s, "supported node version")
	}
	if m := one(t, "Root cause: commit 3fa9c21d changed the retry loop so it never backs off.", false); isHash(m.Subject) {
		t.Errorf("subject %q is a commit's hash", m.Subject)
	}
}

// What is kept where it was is the subject, not the category of where
// ("kept search in Postgres" is about search, not the database); a verb
// ends a noun phrase ("the broad collab made it …").
func TestKeptInSubject(t *testing.T) {
	subjectIs(t, false, map[string]string{
		"I kept sessions in Redis rather than moving them to Postgres, because the TTLs are already tuned there.": "sessions",
	})
	for p, want := range map[string]string{"partner lab made it a condition": "partner lab", "the platform team found a leak": "platform team"} {
		if s := nounPhrase(p); s != want {
			t.Errorf("nounPhrase(%q) = %q, want %q", p, s, want)
		}
	}
}

// Options in shapes beyond lists under a question: named line by line
// in backticks before a yes/no question, as "Option B:" lines, as bold
// paragraph leads, as "either … or …" and "you could … or …" in one
// sentence; a pick in short words ("env vars") or a letter.
func TestOptionsInOtherShapes(t *testing.T) {
	choicesRead(t, []choiceCase{
		{"what should run the nightly reports", "Two reasonable paths:\n\n- `Quartz` — in-process, no new infra.\n- `Airflow` — a scheduler of its own.\n\nI'd go with Quartz. Shall I set it up?", "yes quartz", "Quartz", "Airflow"},
		{"How do the services find their secrets?", "We could either mount them from a `secrets.yaml` at deploy time, or read everything from environment variables the way the compose file already sets them. Which do you prefer?", "env vars", "environment variables", "secrets.yaml"},
		{"we need a CMS", "Option A: build a small admin on top of the models.\nOption B: use Strapi, self-hosted.\nOption C: Contentful (paid).\n\nLet me know which way you want to go.", "C", "Contentful", "Strapi"},
		{"where does the changelog get generated", "I see two ways:\n\n**git-cliff** reads conventional commits and needs no config beyond a template.\n\n**Changesets** asks for a note per PR and handles the version bumps.\n\nWhat's your preference?", "changesets, we want notes per PR", "Changesets", "git-cliff"},
		{"how do we paginate the list endpoints", "You could paginate with an offset (`?page=3`) or with a cursor (`?after=abc`). Cursors don't skip rows when items are inserted. Which approach do you want?", "cursor", "cursor", "offset"},
	})
}

// The question before the options names what is chosen in more shapes:
// what to use for a thing, how a thing should be done to, a kind of
// thing to pick, a bare noun phrase asked about.
func TestAskedThingSubjects(t *testing.T) {
	for p, want := range map[string]string{
		"what should we use for background jobs":                   "background jobs",
		"How should config be loaded?":                             "config",
		"pick a charting lib for the dashboard":                    "charting lib",
		"state management for the svelte app?":                     "state management",
		"Where should the thumbnails live?":                        "thumbnails",
		"ok, recommend a load tester for the checkout flow please": "load tester",
		"How should the workers hear about new jobs?":              "new jobs",
	} {
		if got := askedSubject(p); got != want {
			t.Errorf("askedSubject(%q) = %q, want %q", p, got, want)
		}
	}
}

// More ways options are offered and picked: sibling headings, a table
// whose columns are the options, "Two options: X or Y", a recommendation
// and its alternative then "go ahead", "the cheaper one", "not X, the
// other one".
func TestOptionsAsHeadingsColumnsAndAdvice(t *testing.T) {
	choicesRead(t, []choiceCase{
		{"how do we ship the desktop builds?", "## Option 1: GitHub Releases\nFree, and the updater already reads it.\n\n## Option 2: an S3 bucket with CloudFront\nFaster downloads in Asia.\n\nWhich do you want?", "option 1", "GitHub Releases", "S3 bucket"},
		{"test runner?", "| | Vitest | Jest |\n|---|---|---|\n| speed | fast | slower |\n| ESM | native | flags |\n\nWhich one should I set up?", "vitest", "Vitest", "Jest"},
		{"search backend?", "Two options: Meilisearch or Typesense. Both are single binaries. Which should I use?", "not meili, the other one", "Typesense", "Meilisearch"},
		{"how should we rate limit the API", "Recommendation: a token bucket per API key in Redis.\n\nAlternative: a fixed window counter in Postgres.\n\nShall I proceed with the token bucket?", "yes please, go ahead", "token bucket", "fixed window"},
		{"where do the build logs go", "- **Loki**: cheap to keep, slower to search.\n- **Elasticsearch**: fast search, costly disks.\n\nWhich do you prefer?", "the cheaper one", "Loki", "Elasticsearch"},
	})
}

// Someone else's words in more shapes are notes, never Claude's: "Their
// guidance: …", "The SECURITY.md asks that …", a rule in single quotes
// inside a report, "the maintainers' reply on the issue was to …"; what
// Claude itself asks for or quotes a name in stays Claude's.
func TestMoreReportedShapes(t *testing.T) {
	for _, a := range []string{
		"Their guidance: never put access tokens in query strings.",
		"The upstream SECURITY.md asks that we never file public issues for vulnerabilities.",
		"The blame shows Priya added 'always run the migrations by hand on prod' back in 2022.",
		"The maintainers' reply on the issue was to pin tokio to 1.36 until the fix ships.",
	} {
		for _, m := range FromAnswer(a) {
			if !m.Quoted {
				t.Errorf("FromAnswer(%q): %s %q is Claude's, want a quoted note", a, m.Kind, m.Text)
			}
		}
	}
	for _, a := range []string{
		"I went with the 'strict' preset for the linter rather than 'recommended', because the codebase is new.",
		"From now on I keep the `Save` button disabled until the form is valid, since half-filled drafts broke the importer.",
	} {
		if ms := FromAnswer(a); len(ms) != 1 || ms[0].Quoted {
			t.Errorf("FromAnswer(%q) = %+v, want Claude's own statement", a, ms)
		}
	}
}

// One named tool put in place of another is a change of design, reason
// or not; a code edit between two identifiers is none.
func TestToolSwapIsAChange(t *testing.T) {
	for _, a := range []string{
		"Swapped Webpack for Vite, same entry points.",
		"Done: Biome replaces ESLint and Prettier in the pre-commit hook.",
	} {
		if ms := FromAnswer(a); len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
			t.Errorf("FromAnswer(%q) = %+v, want one change of design", a, ms)
		}
	}
	for _, a := range []string{"Swapped the order of the two checks in the loop.", "Replaced the retry loop with a backoff helper."} {
		if toolSwap(a) {
			t.Errorf("toolSwap(%q): no tool is named", a)
		}
	}
}

// A sentence that finds fault, then sets a choice after a comma, is the
// user's decision about what the choice is about, and a change.
func TestFaultThenChoiceInOneSentence(t *testing.T) {
	ms := FromPrompt("the bull board is unusable on mobile, let's use Arena for the queue dashboard")
	if len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change || !strings.Contains(ms[0].Subject, "dashboard") {
		t.Errorf("got %+v, want one change about the queue dashboard", ms)
	}
}

// Claude telling what it did right after a quoted paragraph speaks again
// in its own voice.
func TestOwnNarrationEndsTheQuote(t *testing.T) {
	ms := FromAnswer("The upstream's stance: plugins must never bundle their own React. I went with a peer dependency on React 18 instead of bundling, because two copies broke hooks.")
	var own bool
	for _, m := range ms {
		if m.Kind == KindDecision && strings.Contains(m.Text, "peer dependency") {
			own = !m.Quoted
		}
	}
	if !own {
		t.Errorf("got %+v, want Claude's own decision after the quote", ms)
	}
}

// Options offered inline as "(1) … or (2) …", in an or-question with
// parentheticals, as keycap digits, as items with nested pros and cons,
// and before a bare "Which?".
func TestOptionsInlineNestedAndKeycaps(t *testing.T) {
	choicesRead(t, []choiceCase{
		{"how do we send the digests", "Two ways: (1) a cron job in the worker, or (2) a scheduled Cloud Run job. Which do you prefer?", "2", "Cloud Run", "cron job"},
		{"which test db", "Should I use Testcontainers (a real Postgres per run) or pg-mem (in memory, no Docker)?", "testcontainers", "Testcontainers", "pg-mem"},
		{"how do we store uploads", "1️⃣ Local disk on the VM\n2️⃣ A Backblaze B2 bucket\n\nWhich one?", "backblaze", "Backblaze B2", "Local disk"},
		{"state library?", "Options:\n1. **Zustand** — tiny.\n   - Pros: no boilerplate\n   - Cons: no devtools\n2. **Redux Toolkit** — the team knows it.\n   - Pros: devtools\n\nWhich do you want?", "redux toolkit", "Redux Toolkit", "Zustand"},
		{"where do secrets live", "We can either keep them in a sealed-secrets file in the repo, or read them from Vault at boot. Which?", "vault", "Vault", "sealed-secrets"},
	})
}

// A label that says the choice goes back names no subject: what follows
// does; "back to X for Y" still names Y.
func TestBackLabelNamesNoSubject(t *testing.T) {
	if s := subjectOf(Memory{Kind: KindDecision, Text: "Back to basics: a cron job in the worker for the digests."}, ""); s == "back" || s == "basics" {
		t.Errorf("subject %q, want what follows the label", s)
	}
	if s := subjectOf(Memory{Kind: KindDecision, Text: "Back to SQLite for the test suite: the containers are too slow."}, ""); s != "test suite" {
		t.Errorf("subject %q, want %q", s, "test suite")
	}
}

// A sentence that reports a source, then says what Claude did about it
// after a comma or a semicolon: the report is a note, Claude's clause is
// Claude's; "According to X, we decided …" stays the source's.
func TestOwnClauseAfterAReport(t *testing.T) {
	ms := FromAnswer("The maintainers recommend pinning the client to 2.x; I pinned it to 2.14.1 because 2.15 drops Python 3.9.")
	var own bool
	for _, m := range ms {
		if !m.Quoted && strings.Contains(m.Text, "recommend pinning") {
			t.Errorf("%q: the maintainers' words as Claude's", m.Text)
		}
		own = own || !m.Quoted && m.Kind == KindDecision && strings.Contains(m.Text, "2.14.1")
	}
	if !own {
		t.Errorf("got %+v, want Claude's pin its own", ms)
	}
	for _, m := range FromAnswer("According to `SECURITY.md`, we decided to skip certificate checks on staging.") {
		if !m.Quoted {
			t.Errorf("%q is Claude's, want the source's", m.Text)
		}
	}
}

// "I bumped it to 5.4" after "`package.json` pins `typescript@4.9`": the
// decision is about what "it" points at.
func TestAnaphorSubject(t *testing.T) {
	for _, m := range FromAnswer("`go.mod` pins `golang.org/x/net@v0.17.0`. I bumped it to v0.23.0 because of the HTTP/2 rapid-reset fix.") {
		if m.Kind == KindDecision && (m.Subject == "bumped" || m.Subject == "") {
			t.Errorf("subject %q, want what the sentence before names", m.Subject)
		}
	}
}

// "Swap X for Y" and "replace X with Y" in a prompt are the user's
// change; a retirement followed by what is in place now is one change,
// about what is in place.
func TestPromptSwapAndRetirementThenNow(t *testing.T) {
	for _, p := range []string{"Swap Celery for Dramatiq.", "replace the cron job with a Temporal schedule", "the old queue keeps falling over, swap it for SQS"} {
		if ms := FromPrompt(p); len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
			t.Errorf("FromPrompt(%q) = %+v, want one change", p, ms)
		}
	}
	ms := FromPrompt("Sidekiq is dropped too. Background work runs as Solid Queue jobs in Postgres now.")
	if len(ms) != 1 || !strings.Contains(ms[0].Text, "Solid Queue") || !strings.Contains(ms[0].Subject, "background work") {
		t.Errorf("got %+v, want one change about background work", ms)
	}
}

// Picks and offers seen in a retired half, told in other words: a
// number typed like a list marker ("2. …"), lowercase "a)" items picked
// by "b, the …", and "My first/second suggestion is to …" picked by
// "your second suggestion".
func TestMarkerPicksAndSuggestions(t *testing.T) {
	choicesRead(t, []choiceCase{
		{"how should the app get config?", "1. **Env vars** — simple, but no reloads.\n2. **Consul KV** — live reloads, one more service.\n\nWhich one?", "2. live reloads matter to us", "Consul KV", "Env vars"},
		{"where do we keep sessions?", "Options:\n\na) **Signed cookies**: no server state, 4 KB cap.\nb) **Redis**: any size, one more box to run.\n\nLet me know which you prefer.", "b, the redis one", "Redis", "Signed cookies"},
		{"how do we test the payments flow?", "A couple of ideas.\n\nMy first suggestion is to mock the PSP client in unit tests, which is fast but drifts from the real API.\n\nMy second suggestion is to run the PSP's sandbox in CI with recorded fixtures, so the tests see real responses.\n\nWhich do you want?", "your second suggestion", "sandbox", "mock the PSP"},
	})
}

// An answer that reports the prompt's change and, in a later clause,
// what went only carries the change out.
func TestCarriesRemovalInALaterClause(t *testing.T) {
	decided := one(t, "Last change: the telemetry link is now Zenoh, with a router keeping 72h.", true)
	done := one(t, "Robots run rmw_zenoh_cpp, and the bridge node and the Kafka topics are gone.", false)
	if !Carries(done, decided) {
		t.Errorf("%q should carry out %q", done.Text, decided.Text)
	}
}

// choiceCase is a question, the options Claude offered, the user's pick,
// and what the decision must choose and turn down.
type choiceCase struct{ ask, answer, pick, want, not string }

// choicesRead checks that each pick is read as a choice of want over not,
// and that no nested pro or con is an option.
func choicesRead(t *testing.T, cases []choiceCase) {
	t.Helper()
	for _, c := range cases {
		m, ok := FromChoice(c.ask, c.answer, c.pick)
		if !ok {
			t.Errorf("%q after %q: no choice read", c.pick, c.answer)
			continue
		}
		lead, rejected, _ := strings.Cut(m.Text, ", not ")
		if !strings.Contains(lead, c.want) || !strings.Contains(rejected, c.not) || strings.Contains(rejected, "Pros") {
			t.Errorf("%q: %q, want %q chosen over %q", c.pick, m.Text, c.want, c.not)
		}
	}
}

// A heading with nothing after its hashes among the options ("### ")
// reads as no option, never as a crash.
func TestEmptyHeadingAmongOptions(t *testing.T) {
	answer := "### \n## Option 1: Redis\n## Option 2: Postgres\n###\n\nWhich one?"
	if m, ok := FromChoice("queue?", answer, "option 2"); !ok || !strings.Contains(m.Text, "Postgres, not Redis") {
		t.Errorf("FromChoice = %v %q, want Postgres chosen", ok, m.Text)
	}
}

// "X comes from Y" tells where a value is read from — no root cause —
// unless it speaks of a failure or is told in the past; "where each came
// from" is no cause either. A choice whose reason speaks of failures is
// a decision.
func TestComesFromAndChoicesWithFailingReasons(t *testing.T) {
	for _, text := range []string{
		"The `region` field comes from the tenant's billing profile.",
		"`inventory audit` lists each count and where it came from.",
		"Tax rates come from the `rates_2026.csv` table shipped with the app.",
	} {
		for _, m := range FromAnswer(text) {
			if m.Kind == KindCause {
				t.Errorf("%q: read as a cause %q", text, m.Text)
			}
		}
	}
	allKind(t, false, KindCause,
		"The stale prices came from the CDN keeping the old JSON for a day.",
		"The 504s come from the ingress timing out after 30 s.")
	allKind(t, false, KindDecision,
		"Parsing: went with `nom` over a hand-rolled lexer, since the grammar will grow and the errors are broken otherwise.",
		"The plugin now ships unbundled `tsc` output rather than an esbuild bundle, since every crash so far came from the bundler rewriting paths.")
}

// Options as paragraphs whose bold lead names the option and then says
// what it does ("**Row cache, flushed on every commit** — …"), each
// paragraph of several sentences; a pick told by what the option does
// ("the one where …"); "Which X should the Y use?" names X, and the
// question after a label ("next part of the mixer: where do the presets
// live?") names what it asks about.
func TestFromChoiceDescribedPicksAndParagraphLeads(t *testing.T) {
	ask := "next part of the mixer firmware: where do the presets live? the DSP boots in 80 ms and must load one at power-on"
	answer := "The preset loader runs before the codec is up, so it needs a fast path. Three ways:\n\n" +
		"**On-chip flash** — 64 KB reserved at the end of the image. Fast, but a firmware update wipes them.\n\n" +
		"**External EEPROM, written only when the mixer is muted** — a 24LC512 over I2C. Survives updates. Writes are slow, so they wait for mute.\n\n" +
		"**SD card** — presets as JSON files. Easy to back up, but the card must be present to boot.\n\n" +
		"Which should I build?"
	m, ok := FromChoice(ask, answer, "the one that only writes while muted. updates must never wipe presets")
	if !ok || !strings.HasPrefix(m.Text, "Presets: External EEPROM") || !strings.Contains(m.Text, "not On-chip flash or SD card") {
		t.Errorf("FromChoice = %v %q [%s], want the EEPROM chosen over both others, about the presets", ok, m.Text, m.Subject)
	}
	answer2 := "#### Mapbox GL\nVector maps.\n\n#### Leaflet\nRaster tiles.\n\nWhich map library should the dashboard use?"
	if m, ok := FromChoice("the fleet dashboard needs a map of the vans", answer2, "leaflet, we have no token budget"); !ok || m.Subject != "map library" {
		t.Errorf("FromChoice = %v %q [%s], want the subject \"map library\"", ok, m.Text, m.Subject)
	}
	for _, label := range []string{"Three options on the STM32F4:", "Two ways to keep it on the device:"} {
		if s := waysSubject(label); s != "" {
			t.Errorf("waysSubject(%q) = %q, want none: where, or what the prompt named", label, s)
		}
	}
	if got := PromptTopic("Pathfinding for the tower defense (rust, bevy). creeps should avoid each other"); got != "pathfinding" {
		t.Errorf("PromptTopic = %q, want the fragment's thing, pathfinding", got)
	}
}

// A rule said last ("… is the rule"), a "new rule after …:" label, and a
// rule labelled "X going forward:" (about X); a rule that moves how often
// something happens replaces the old rate, never a rule on another thing.
func TestRulesByRateAndLabelledAfter(t *testing.T) {
	allKind(t, true, KindConstraint,
		"the pi keeps overheating. polling every 30 seconds is the rule",
		"new rule after the outage review: rotate the api keys every 90 days")
	if m := one(t, "spoke to the data team. retries going forward: three attempts with jitter, then the dead-letter queue", true); m.Subject != "retries" || !m.Change {
		t.Errorf("subject %q change %v, want the rule's label, retries, and a change", m.Subject, m.Change)
	}
	old := one(t, "the sensor node must sample the soil moisture every 10 minutes", true)
	for _, c := range []struct {
		text string
		want bool
	}{
		{"new rule: sample the soil moisture twice an hour, the battery can't keep up", true},
		{"from now on the node samples moisture hourly", true},
		{"new rule: sample the soil moisture every 10 minutes, but only in daylight", true}, // a new rule on the same thing
		{"from now on rotate the logs daily", false},
	} {
		if got := Supersedes(one(t, c.text, true), old); got != c.want {
			t.Errorf("Supersedes(%q, %q) = %v, want %v", c.text, old.Text, got, c.want)
		}
	}
}

// A prompt's change told as a new plan, as "… changed again:", or as how
// a thing is now after a label that reports where it comes from; the
// label names no subject.
func TestPromptChangesAfterLabels(t *testing.T) {
	for _, c := range []struct{ text, subject string }{
		{"ok new plan: protobuf over gRPC streams, the dashboards need server push anyway", ""},
		{"the deploy story changed again: everything ships through the ArgoCD app now", ""},
		{"result of the design review: the page size is 50 now", "page size"},
	} {
		m := one(t, c.text, true)
		if m.Kind != KindDecision || !m.Change {
			t.Errorf("%q: %s change=%v, want a decision that changes", c.text, m.Kind, m.Change)
		}
		if c.subject != "" && m.Subject != c.subject && m.Subject != "default "+c.subject {
			t.Errorf("%q: subject %q, want %q", c.text, m.Subject, c.subject)
		}
		if strings.Contains(m.Subject, "review") {
			t.Errorf("%q: the label's report named the subject %q", c.text, m.Subject)
		}
	}
	if !SaysAgain("New plan: tree-sitter for the grammar") {
		t.Error("a new plan should replace the last change, as \"again\" does")
	}
}

// A sentence that only tells what went is part of a change, not a choice
// of its own; one that says why, or what replaced it, is more.
func TestRemovalOnly(t *testing.T) {
	for text, want := range map[string]bool{
		"`webpack` and its config are removed":                                 true,
		"The nightly cron and the S3 credentials are gone from the installer.": true,
		"The Redis cache is removed, because every pod now reads the view.":    false,
		"We no longer use Redis; prices come from the materialized view.":      false,
	} {
		if got := RemovalOnly(text); got != want {
			t.Errorf("RemovalOnly(%q) = %v, want %v", text, got, want)
		}
	}
}

// A statement led by what it is about and a dash names that; "X are now
// <tool>" is about X, not the tool's category.
func TestSubjectDashLeadAndNowIs(t *testing.T) {
	for text, want := range map[string]string{
		"Timestamps — I switched `created_at` from a Unix integer to RFC 3339 strings, since the mobile clients parse them directly.": "timestamps",
		"Sessions are now a Postgres table, because the two app servers must share them.":                                             "sessions",
	} {
		if s := subjectOf(one(t, text, false), ""); s != want {
			t.Errorf("%q: subject %q, want %q", text, s, want)
		}
	}
}

// A reply that turns every option down and says what to do instead is
// the user's own decision over all of them; one that puts the choice off
// is none. "what X" at the end of a prompt names X, and "… needs X
// stored somewhere" names X.
func TestFromChoiceOwnPickAndAskedShapes(t *testing.T) {
	ask := "the sync service needs the user's refresh token stored somewhere. where"
	answer := "Two places:\n\n1. **The Keychain** — encrypted by the OS.\n2. **A dotfile** — mode 0600, easy to inspect.\n\nWhich one?"
	m, ok := FromChoice(ask, answer, "none of these tbh. put it in the libsecret store like our other linux tools do")
	if !ok || !strings.Contains(m.Text, "libsecret store") || !strings.Contains(m.Text, "not the Keychain, a dotfile") || m.Subject != "refresh token" {
		t.Errorf("FromChoice = %v %q [%s], want the user's own pick over both, about the refresh token", ok, m.Text, m.Subject)
	}
	if m, ok := FromChoice(ask, answer, "neither for now. let me think about it"); ok {
		t.Errorf("a choice put off read as %q", m.Text)
	}
	if m, ok := FromChoice("we're adding a queue to the mailer. what broker", "1. **NATS** — light.\n2. **RabbitMQ** — mature.\n\nWhich?", "nats"); !ok || m.Subject != "broker" {
		t.Errorf("FromChoice = %v %q [%s], want the subject the prompt asked for", ok, m.Text, m.Subject)
	}
}

// An instruction that says it takes the place of what is there is the
// user's change; "also X is next" starts another thing; a prompt that
// says a thing is being shut down, or that nobody will pay for it, finds
// fault with it.
func TestImperativeInsteadAndWhatGoesAway(t *testing.T) {
	for _, p := range []string{
		"the team won't pay for datadog. ship the traces to our tempo instance at tempo.infra.local instead, same sampling otherwise",
		"ok send the audit events to kafka instead",
	} {
		if m := one(t, p, true); m.Kind != KindDecision || !m.Change || strings.Contains(m.Text, "won't pay") {
			t.Errorf("%q: %s change=%v %q, want the user's change alone", p, m.Kind, m.Change, m.Text)
		}
	}
	if m := one(t, "use zstd instead. also the retention job is next, do it however you like", true); strings.Contains(m.Text, "retention") {
		t.Errorf("the next task joined the change: %q", m.Text)
	}
	for _, p := range []string{"the jenkins box is being decommissioned end of month", "finance won't pay for sentry seats anymore"} {
		if len(Faulted(p)) == 0 {
			t.Errorf("Faulted(%q) is empty", p)
		}
	}
}

// A choice that sets one thing to another length of time replaces the
// old one; a length of another thing, or how often, replaces nothing.
func TestOtherDuration(t *testing.T) {
	for text, want := range map[string]float64{"a 90 s timeout": 90, "the 2h window": 7200, "half an hour slots": 1800, "v2 of the client": 0} {
		if d := durations(text); want == 0 && d != nil || want != 0 && (len(d) != 1 || d[0] != want) {
			t.Errorf("durations(%q) = %v, want %v", text, d, want)
		}
	}
	old := one(t, "Lock timeout: fixed 15-second leases, chosen over renewable ones because the workers are short-lived.", false)
	for text, want := range map[string]bool{
		"leases must be 45 seconds, the long imports overrun 15": true,
		"the nightly export must finish in 20 minutes":           false,
		"renew leases every 10 seconds from now on":              false,
	} {
		if got := Supersedes(one(t, text, true), old); got != want {
			t.Errorf("Supersedes(%q) = %v, want %v", text, got, want)
		}
	}
}

// A list item under no label that only says what a change is for is a
// line of what changed; one that says why or over what, or what it
// guards against, is a choice, and so is any item under a decisions
// label.
func TestPurposeItemsAreChangeLines(t *testing.T) {
	plain := "The exporter is in.\n\n- rows carry `bucket_end` so the chart plots one point per minute\n- the histogram uses 12 buckets so p99 stays readable"
	if ms := FromAnswer(plain); len(ms) != 0 {
		t.Errorf("lines of what changed read as %q", kinds(ms))
	}
	reasoned := "The exporter is in.\n\n- rows carry `bucket_end` rather than a start time, because the chart library keys on the end"
	if ms := FromAnswer(reasoned); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("an item with its reason: %q, want one decision", kinds(ms))
	}
	guarded := "The exporter is in.\n\n- the exporter batches writes so it doesn't hold a connection per sample"
	if ms := FromAnswer(guarded); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("an item that guards against something: %q, want one decision", kinds(ms))
	}
	labelled := "## Key decisions\n\n- rows carry `bucket_end` so the chart plots one point per minute"
	if ms := FromAnswer(labelled); len(ms) != 1 || ms[0].Kind != KindDecision {
		t.Errorf("an item under a decisions label: %q, want one decision", kinds(ms))
	}
}

// More shapes of a prompt's change: any instruction verb with "instead",
// "we're doing X instead", and "… is the rule now, and …".
func TestPromptChangesMoreVerbs(t *testing.T) {
	for _, p := range []string{
		"group the readings by device instead, the per-minute buckets hide outliers",
		"we're doing server-side rendering for the docs instead: one less build step",
	} {
		if ms := FromPrompt(p); len(ms) != 1 || ms[0].Kind != KindDecision || !ms[0].Change {
			t.Errorf("%q: %q, want one change", p, kinds(ms))
		}
	}
	if ms := FromPrompt("3 replicas cost too much. 2 replicas is the rule now, and drop the canary from the pipeline"); len(ms) != 1 || ms[0].Kind != KindConstraint {
		t.Errorf("a rule said last before another task: %q", kinds(ms))
	}
}

// "Back to Xs after all" is about the Xs, not what the rest names.
func TestBackToAKindOfThing(t *testing.T) {
	if s := subjectOf(one(t, "Back to webhooks after all — signed with HMAC-SHA256, drop the polling worker", true), ""); s != "webhooks" {
		t.Errorf("subject %q, want webhooks", s)
	}
}

// A count said in words ends a noun phrase.
func TestNounPhraseEndsAtACount(t *testing.T) {
	if s := nounPhrase("the chamber temperature four times a minute"); s != "chamber temperature" {
		t.Errorf("nounPhrase = %q, want chamber temperature", s)
	}
}

// Options turned down read as part of the sentence: an article that
// opened a heading is lower-cased, a name stays as written.
func TestRejectedOptionsMidSentence(t *testing.T) {
	answer := "Three ways:\n\n1. **EEPROM** — on chip.\n2. **A const table in flash** — per build.\n3. **The SD card** — easy to edit.\n\nWhich one?"
	m, ok := FromChoice("where do the offsets live", answer, "EEPROM")
	if !ok || !strings.Contains(m.Text, "not a const table in flash or the SD card") {
		t.Errorf("FromChoice = %v %q", ok, m.Text)
	}
}
