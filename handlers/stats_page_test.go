package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil"
)

// statsCall is a PostToolUse payload of tool in /home/dev/projects/api.
func statsCall(id, tool string, input map[string]any) map[string]any {
	return map[string]any{
		"session_id": "stats-paths", "transcript_path": "", "cwd": "/home/dev/projects/api",
		"hook_event_name": "PostToolUse", "tool_name": tool, "tool_use_id": id, "tool_input": input,
		"tool_response": map[string]any{"filePath": input["file_path"], "numFiles": 3, "filenames": []string{"a.go"}},
	}
}

// TestStatsTopFiles: the stats page's "most touched files" names files
// from their project's directory (without it when the page is about that
// project), and a Grep's directory is not counted as a file; /api/stats
// says which project each file is of.
func TestStatsTopFiles(t *testing.T) {
	t.Parallel()
	srv := testutil.NewServer(t)
	const file = "/home/dev/projects/api/internal/auth/jwt.go"
	const dir = "/home/dev/projects/api/internal"
	srv.Hook(t, "post-tool-use", statsCall("t1", "Edit", map[string]any{"file_path": file, "old_string": "a", "new_string": "b"}))
	srv.Hook(t, "post-tool-use", statsCall("t2", "Read", map[string]any{"file_path": file}))
	srv.Hook(t, "post-tool-use", statsCall("t3", "Grep", map[string]any{"pattern": "Middleware", "path": dir}))
	srv.Hook(t, "post-tool-use", statsCall("t4", "Grep", map[string]any{"pattern": "Token", "path": dir}))

	var st struct {
		Files []struct {
			Name, Project string
			Count         int
		} `json:"files"`
	}
	srv.GetJSON(t, "/api/stats", &st)
	if len(st.Files) != 1 || st.Files[0].Name != file || st.Files[0].Project != "api" || st.Files[0].Count != 2 {
		t.Errorf("/api/stats files = %+v, want %s (api) twice and no directory", st.Files, file)
	}

	chart := func(body string) string {
		i := strings.Index(body, `id="chart-files"`)
		if i < 0 {
			t.Fatalf("no files chart in %s", body)
		}
		return body[i : i+strings.Index(body[i:], "</section>")]
	}
	for _, tc := range []struct{ path, want string }{
		{"/stats", ">api/internal/auth/jwt.go<"},
		{"/stats?project=api", ">internal/auth/jwt.go<"},
	} {
		status, body := srv.Do(t, http.MethodGet, tc.path, nil, htmlAccept)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", tc.path, status)
		}
		c := chart(string(body))
		if !strings.Contains(c, tc.want) {
			t.Errorf("%s: the files chart lacks %s:\n%s", tc.path, tc.want, c)
		}
		if strings.Contains(c, "/home/dev") || strings.Contains(c, ">api/internal<") || strings.Contains(c, ">internal<") {
			t.Errorf("%s: the files chart shows an absolute path or the Grep directory:\n%s", tc.path, c)
		}
	}
}
