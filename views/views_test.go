package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{0, 1}, {1, 1}, {2, 2}, {3, 5}, {7, 10}, {11, 20}, {21, 50}, {99, 100}, {101, 200}, {4999, 5000}} {
		if got := niceCeil(c.in); got != c.want {
			t.Errorf("niceCeil(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestColumnChartGeometry(t *testing.T) {
	pts := []Point{{"2026-01-01", 0, 0}, {"2026-01-02", 10, 5}, {"2026-01-03", 20, 0}}
	c := NewColumnChart(pts, false, "x")
	if c.Empty || len(c.Columns) != 3 {
		t.Fatalf("chart %+v", c)
	}
	bottom := colH - colBottom
	for _, col := range c.Columns {
		if col.Y+col.H-bottom > 0.01 || col.Y+col.H-bottom < -0.01 {
			t.Errorf("%s: bar does not stand on the axis (y %.1f h %.1f)", col.Label, col.Y, col.H)
		}
		if col.X < colLeft || col.X+col.W > chartW {
			t.Errorf("%s: bar outside the plot", col.Label)
		}
	}
	if c.Columns[2].H <= c.Columns[1].H || c.Columns[1].SubH*2-c.Columns[1].H > 0.01 {
		t.Errorf("heights not proportional: %+v", c.Columns)
	}
	if !NewColumnChart([]Point{{"d", 0, 0}}, false, "").Empty {
		t.Error("all zeros should be empty")
	}
	h := NewHBarChart([]Point{{"a", 4, 1}, {"b", 2, 0}}, "")
	if h.Bars[0].W != 2*h.Bars[1].W || h.Bars[0].SubW*4 != h.Bars[0].W {
		t.Errorf("hbar widths %+v", h.Bars)
	}
}

func TestHelpers(t *testing.T) {
	cases := []struct{ got, want string }{
		{displayPath("notes-app", "/home/dev/projects/notes-app/notes.md"), "notes-app/notes.md"},
		{displayPath("notes-app", "/etc/hosts"), "/etc/hosts"},
		{displayPath("", "/a/b"), "/a/b"},
		{kindLabel("file_change"), "file change"},
		{clock(time.Date(2020, 3, 4, 5, 6, 7, 0, time.Local)), "2020-03-04 05:06"},
		{clock(time.Now()), time.Now().Format("15:04")},
		{dateTime(time.Date(2020, 3, 4, 5, 6, 7, 0, time.Local)), "2020-03-04 05:06"},
		{day(time.Date(2020, 3, 4, 5, 6, 7, 0, time.Local)), "2020-03-04"},
		{humanDuration(1500 * time.Millisecond), "2 s"},
		{humanDuration(90 * time.Minute), "1 h 30 min"},
		{humanDuration(250 * time.Millisecond), "250 ms"},
		{humanDuration(157*time.Hour + 16*time.Minute), "6 d 13 h"},
		{plural(1, "prompt", "prompts"), "1 prompt"},
		{plural(int64(3), "prompt", "prompts"), "3 prompts"},
		{FeedFilter{Project: "a b", FailuresOnly: true}.Query("offset", "50"), "failures=1&offset=50&project=a+b"},
		{resultURL(SearchResult{Type: "observation", ID: 7, SessionID: 2}), "/sessions/2#obs-7"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestSnippetEscaped: snippet text is escaped, only matches become <mark>.
func TestSnippetEscaped(t *testing.T) {
	p := SearchPage{Q: "x", Searched: true, Results: []SearchResult{{
		Type: "observation", ID: 1, SessionID: 1, Title: "<b>t</b>",
		Snippet: []SnippetPart{{Text: "<img src=x onerror=alert(1)> "}, {Text: "<script>", Match: true}},
	}}}
	var buf bytes.Buffer
	if err := Search(p).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<img", "<script>", "<b>t"} {
		if strings.Contains(out, bad) {
			t.Errorf("unescaped %q", bad)
		}
	}
	if !strings.Contains(out, "<mark>&lt;script&gt;</mark>") || !strings.Contains(out, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("snippet not rendered as escaped text with a mark")
	}
}

// TestImportCardsAgreeInNumber: the import page's cards say "1 session",
// not "1 sessions", and keep the plural for any other count.
func TestImportCardsAgreeInNumber(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []string
	}{
		{1, []string{">session</div>", ">prompt</div>", ">tool call</div>", ">session already in memory</div>"}},
		{2, []string{">sessions</div>", ">prompts</div>", ">tool calls</div>", ">sessions already in memory</div>"}},
		{0, []string{">sessions</div>", ">prompts</div>", ">tool calls</div>", ">sessions already in memory</div>"}},
	} {
		var buf bytes.Buffer
		p := ImportPage{Dir: "/x", Files: 1, Known: c.n, Total: ImportRow{Sessions: c.n, Prompts: c.n, ToolCalls: c.n}}
		if err := Import(p).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%d of each: the page lacks %q", c.n, w)
			}
		}
	}
}

// TestMemoryStateAdjective: before "memories" the state in force is
// hyphenated ("In-force memories"); the others are the filter's labels.
func TestMemoryStateAdjective(t *testing.T) {
	for state, want := range map[string]string{"current": "In-force", "superseded": "Superseded", "done": "Done", "retired": "Retired", "all": "All"} {
		if got := memoryStateAdjective(state); got != want {
			t.Errorf("%s: %q, want %q", state, got, want)
		}
	}
}

// TestAgo: how long ago, in the largest whole unit.
func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 28, 14, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"}, {59 * time.Second, "just now"}, {time.Minute, "1 min ago"}, {59 * time.Minute, "59 min ago"},
		{time.Hour, "1 h ago"}, {47 * time.Hour, "47 h ago"}, {48 * time.Hour, "2 d ago"}, {10*24*time.Hour + 5*time.Hour, "10 d ago"},
	} {
		if got := agoFrom(now.Add(-c.d), now); got != c.want {
			t.Errorf("%s before: %q, want %q", c.d, got, c.want)
		}
	}
}
