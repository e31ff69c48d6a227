package extract

import "testing"

// one extracts exactly one memory from an answer (or a prompt).
func one(t *testing.T, text string, prompt bool) Memory {
	t.Helper()
	var got []Memory
	if prompt {
		got = FromPrompt(text)
	} else {
		got = FromAnswer(text)
	}
	if len(got) != 1 {
		t.Fatalf("%q: got %q, want one memory", text, kinds(got))
	}
	return got[0]
}

// allKind checks that each text makes exactly one memory, of kind k.
func allKind(t *testing.T, prompt bool, k Kind, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if m := one(t, text, prompt); m.Kind != k {
			t.Errorf("%q: %s, want %s", text, m.Kind, k)
		}
	}
}

// A decision made in session 1, an unrelated one in session 2, and in
// session 3 the first replaced on the same subject.
func TestSupersedesAcrossSessions(t *testing.T) {
	s1 := one(t, "Key decisions:\n- Went with Asynq for the job queue, since it was the quickest to set up with our Redis.", false)
	s2 := one(t, "Key decisions:\n- Went with Tailwind for the admin UI rather than hand-written CSS.", false)
	s3 := one(t, "I switched the job queue from Asynq to River, so jobs are enqueued in the same transaction as the order insert.", false)

	if !Supersedes(s3, s1) {
		t.Errorf("the switch to River should supersede %q (terms %q / %q)", s1.Text, s3.Terms, s1.Terms)
	}
	if Supersedes(s3, s2) || Supersedes(s2, s1) {
		t.Error("unrelated decisions must not supersede each other")
	}
	if Supersedes(s1, s1) {
		t.Error("a memory does not supersede itself")
	}
}

func TestSupersedesNeedsAChangeOrAContradiction(t *testing.T) {
	older := one(t, "Key decisions:\n- Cache sessions in `SessionCache`, keyed by user id.", false)
	// Same subject, more detail, no change: both stay in force.
	more := one(t, "Key decisions:\n- `SessionCache` entries expire after 15 minutes, so a revoked token stops working quickly.", false)
	if Supersedes(more, older) {
		t.Error("a further decision on the same subject is not a replacement")
	}
	// A user's correction contradicts Claude's earlier rule on the same tool.
	npm := one(t, "Note: this project must use npm; the lockfile is package-lock.json.", false)
	pnpm := one(t, "no, never use npm here, the lockfile is pnpm-lock.yaml", true)
	if npm.Kind != KindConstraint || pnpm.Kind != KindConstraint {
		t.Fatalf("kinds %s, %s", npm.Kind, pnpm.Kind)
	}
	if !Supersedes(pnpm, npm) {
		t.Error("never use npm contradicts must use npm")
	}
}

func TestSupersedesKindFamilies(t *testing.T) {
	cause := one(t, "Root cause: the job queue dropped jobs when Redis restarted.", false)
	todo := one(t, "Next steps:\n- Move the job queue off Redis.", false)
	dec := one(t, "I switched the job queue from Redis to Postgres instead.", false)
	if Supersedes(dec, cause) || Supersedes(dec, todo) || Supersedes(todo, dec) {
		t.Error("a decision replaces decisions and constraints only")
	}
}

func TestCompletes(t *testing.T) {
	todo := one(t, "### Open items\n\n1. Translations for the new error messages (`locales/de.json`, `locales/fr.json`) are not done.", false)
	if todo.Kind != KindTodo {
		t.Fatalf("kind %s", todo.Kind)
	}
	cases := []struct {
		later string
		want  bool
	}{
		{"Added the German and French translations for the new error messages in `locales/de.json` and `locales/fr.json`.", true},
		{"Done: the error messages are translated now — `locales/de.json` updated, French too.", true},
		{"The translations in `locales/de.json` are still not done; French is missing too.", false},
		{"Fixed the login redirect loop in `auth/session.go`.", false},
		{"Updated the README.", false},
		{"Status:\n- [x] Translations for the new error messages\n- [ ] Screenshots", true},
		{"Status:\n- [ ] Translations for the new error messages", false},
	}
	for _, c := range cases {
		if got := Completes(c.later, todo); got != c.want {
			t.Errorf("Completes(%q) = %v, want %v (todo terms %q)", c.later, got, c.want, todo.Terms)
		}
	}
	dec := one(t, "I went with River over Asynq for the queue.", false)
	if Completes("Went with River over Asynq, done.", dec) {
		t.Error("only a todo can be completed")
	}
}

// One file holds many subjects: naming it is not enough.
func TestSupersedesOneFileTwoSubjects(t *testing.T) {
	auth := one(t, "Key decisions:\n- In `web/src/api/client.ts` the auth headers are set once, in the request interceptor.", false)
	http := one(t, "I switched `web/src/api/client.ts` from axios to the native fetch API.", false)
	if Supersedes(http, auth) {
		t.Error("a change of HTTP library does not replace where auth headers are set")
	}
	again := one(t, "Auth headers are no longer set in `web/src/api/client.ts`; each call passes its token.", false)
	if !Supersedes(again, auth) {
		t.Errorf("a change of where auth headers are set replaces it (terms %q / %q)", again.Terms, auth.Terms)
	}
}

// "no, …" overrules an earlier choice: a change.
func TestPromptCorrectionIsAChange(t *testing.T) {
	older := one(t, "use npm for the scripts, not yarn", true)
	newer := one(t, "no, use pnpm for the scripts, not npm", true)
	if older.Change || !newer.Change {
		t.Fatalf("change flags %v, %v", older.Change, newer.Change)
	}
	if !Supersedes(newer, older) {
		t.Errorf("the correction replaces the older rule (terms %q / %q)", newer.Terms, older.Terms)
	}
}
