package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/embed/embedtest"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// memorySearchPath is the Memory page of memproj searching q, with more
// parameters as key, value pairs.
func memorySearchPath(q string, kv ...string) string {
	v := url.Values{"project": {"memproj"}, "q": {q}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return "/memory?" + v.Encode()
}

// TestMemoryPageSearch: the Memory page searches the project's memories
// in the state chosen (in force by default): the matches, best first,
// with their kind and state, their actions coming back to the search;
// stored markup is escaped; none found is said, with the way to every
// state; a query FTS5 refuses, a bad offset, or search by meaning while
// it is off is a 400 with the message on the page, the form kept.
func TestMemoryPageSearch(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	_, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)

	status, page, _ := memGet(t, c, srv, memorySearchPath("store"))
	if status != 200 {
		t.Fatalf("search: %d %s", status, page)
	}
	list := between(page, `id="memory-search-list"`, "</section>")
	if !strings.Contains(list, fmt.Sprintf(`id="mem-%d"`, ms[0].ID)) || !strings.Contains(list, "Use SQLite for the store") {
		t.Errorf("the decision in force matching the words is not listed:\n%s", list)
	}
	if strings.Contains(list, fmt.Sprintf(`id="mem-%d"`, ms[2].ID)) || strings.Contains(list, fmt.Sprintf(`id="mem-%d"`, ms[1].ID)) {
		t.Error("in force: a superseded memory, or one not matching, is listed")
	}
	if !strings.Contains(list, `badge-mem-decision`) {
		t.Error("the match does not show its kind")
	}
	if !strings.Contains(page, `value="store"`) || !strings.Contains(page, `id="search-mode"`) {
		t.Error("the form does not keep the query, or has no mode toggle")
	}
	if strings.Contains(page, `id="memories"`) {
		t.Error("the kinds' live lists are shown during a search")
	}
	// A row's actions come back to the search.
	next := url.QueryEscape("q") + "=store"
	if !strings.Contains(list, `name="next" value="/memory?`) || !strings.Contains(strings.ReplaceAll(between(list, `name="next" value="`, `"`), "&amp;", "&"), next) {
		t.Errorf("the row's actions do not come back to the search: %q", between(list, `name="next" value="`, `"`))
	}

	// Every state: the superseded decision too, marked so.
	_, page, _ = memGet(t, c, srv, memorySearchPath("store", "state", "all"))
	list = between(page, `id="memory-search-list"`, "</section>")
	if !strings.Contains(list, fmt.Sprintf(`id="mem-%d"`, ms[2].ID)) || !strings.Contains(list, `<span class="badge">superseded</span>`) {
		t.Errorf("every state: the superseded decision is not listed with its state:\n%s", list)
	}

	// Markup stored in a memory is text.
	_, page, _ = memGet(t, c, srv, memorySearchPath("network"))
	if strings.Contains(page, "<script>alert(1)</script>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Error("a memory's markup is not escaped")
	}
	// The query itself is escaped too.
	_, page, _ = memGet(t, c, srv, memorySearchPath(`"<b>bold</b>"`))
	if strings.Contains(page, "<b>bold</b>") {
		t.Error("the query's markup is not escaped")
	}

	// Nothing found.
	status, page, _ = memGet(t, c, srv, memorySearchPath("kubernetes"))
	if status != 200 || !strings.Contains(page, `id="memory-search-empty"`) || !strings.Contains(page, `id="memory-search-all"`) {
		t.Errorf("no match: %d, want 200 saying so with the way to every state", status)
	}

	// What cannot run: a 400 with the message, the form kept.
	for _, tc := range []struct{ path, want string }{
		{memorySearchPath(`"unbalanced`), "query"},
		{memorySearchPath("store", "offset", "-3"), "offset"},
		{memorySearchPath("store", "mode", "semantic"), "search by meaning is off"},
		{memorySearchPath("store", "mode", "fuzzy"), "mode must be"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			status, page, _ := memGet(t, c, srv, tc.path)
			msg := between(page, `id="memory-search-error"`, "</p>")
			if status != 400 || !strings.Contains(strings.ToLower(msg), tc.want) || !strings.Contains(page, `id="memory-q"`) {
				t.Errorf("%s: %d %q, want 400 saying %q with the form", tc.path, status, msg, tc.want)
			}
		})
	}

	// Without a query the page lists by kind, as before.
	_, page, _ = memGet(t, c, srv, "/memory?project=memproj&q=+")
	if !strings.Contains(page, `id="memories"`) || strings.Contains(page, `id="memory-search"`) {
		t.Error("a blank query does not list by kind")
	}
}

// TestMemoryPageSearchByMeaning: with embeddings on, the Memory
// page's search finds a memory by meaning that words alone do not
// (words and meaning, the default), says how it ran, and keeps to words
// when asked; with the endpoint down a search by meaning alone says so
// (503, the form kept) and words and meaning falls back to words with a
// notice.
func TestMemoryPageSearchByMeaning(t *testing.T) {
	fake := embedtest.New(64)
	defer fake.Close()
	srv := testutil.NewServer(t, testutil.FastEmbed)
	_, ms := memorySeed(t, srv)
	c := srv.LoggedIn(t)
	const question = "storing things in sqlite3"
	if _, page, _ := memGet(t, c, srv, memorySearchPath(question)); !strings.Contains(page, `id="memory-search-empty"`) || !strings.Contains(page, `id="search-mode-off"`) {
		t.Fatal("while off: words found the question, or the toggle's note is missing")
	}
	srv.EnableEmbeddings(t, fake.URL, "m", 64)
	row := fmt.Sprintf(`id="mem-%d"`, ms[0].ID)
	status, page, _ := memGet(t, c, srv, memorySearchPath(question))
	if list := between(page, `id="memory-search-list"`, "</section>"); status != 200 || !strings.Contains(between(list, "<article", ">"), row) {
		t.Fatalf("words and meaning: %d, the SQLite decision is not the first match:\n%s", status, page)
	}
	if !strings.Contains(page, `data-mode="hybrid"`) || !strings.Contains(page, `<option value="hybrid" selected`) {
		t.Error("the page does not say the search ran by words and meaning")
	}
	if _, page, _ := memGet(t, c, srv, memorySearchPath(question, "mode", "text")); !strings.Contains(page, `id="memory-search-empty"`) || !strings.Contains(page, `<option value="text" selected`) {
		t.Error("words only found the question, or the toggle does not show it")
	}

	fake.SetMode(embedtest.Failing)
	status, page, _ = memGet(t, c, srv, memorySearchPath(question, "mode", "semantic"))
	if status != 503 || !strings.Contains(page, `id="memory-search-error"`) || !strings.Contains(page, `id="memory-q"`) {
		t.Errorf("meaning only, endpoint down: %d, want 503 saying so on the page", status)
	}
	status, page, _ = memGet(t, c, srv, memorySearchPath("sqlite"))
	if status != 200 || !strings.Contains(page, `id="search-fellback"`) || !strings.Contains(page, row) {
		t.Errorf("words and meaning, endpoint down: %d, want word matches with a notice", status)
	}
}

// between is the part of s after the first from, up to the next to ("" when
// from is absent).
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
