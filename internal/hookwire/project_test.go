package hookwire

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestResolveProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the repository and worktree cases need it")
	}
	root := t.TempDir()
	repo := filepath.Join(root, "notes-app")
	nested := filepath.Join(repo, "src", "deep", "pkg")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "README"), []byte("x"), 0o644)
	gitCmd(t, repo, "add", "README")
	gitCmd(t, repo, "commit", "-q", "-m", "init")
	wt := filepath.Join(root, "feature-wt")
	gitCmd(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	if err := os.MkdirAll(filepath.Join(wt, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(root, "just-a-dir")
	os.MkdirAll(plain, 0o755)

	tests := []struct {
		name, cwd, project, branch string
	}{
		{"repo top", repo, "notes-app", "main"},
		{"nested dir", nested, "notes-app", "main"},
		{"trailing slash", repo + "/", "notes-app", "main"},
		{"worktree maps to main repo", wt, "notes-app", "feature"},
		{"inside a worktree", filepath.Join(wt, "sub"), "notes-app", "feature"},
		{"plain dir", plain, "just-a-dir", ""},
		{"empty cwd", "", "unknown", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ResolveProject(tt.cwd)
			if p.Name != tt.project || p.Branch != tt.branch {
				t.Errorf("ResolveProject(%q) = %q on %q, want %q on %q", tt.cwd, p.Name, p.Branch, tt.project, tt.branch)
			}
		})
	}

	// The branch is read afresh each time (the name is cached).
	gitCmd(t, repo, "checkout", "-q", "-b", "other")
	if p := ResolveProject(nested); p.Branch != "other" {
		t.Errorf("after a checkout the branch is %q, want other", p.Branch)
	}
}

// Without git installed the resolution still works from the files alone: a
// hand-made .git directory is enough.
func TestResolveProjectWithoutGitBinary(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "handmade")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/dev\n"), 0o644)
	os.MkdirAll(filepath.Join(repo, "a", "b"), 0o755)
	if p := ResolveProject(filepath.Join(repo, "a", "b")); p.Name != "handmade" || p.Branch != "dev" {
		t.Errorf("got %+v", p)
	}
	// A .git file that is not a worktree (a submodule's) names its own dir.
	sub := filepath.Join(root, "submod")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: ../handmade/.git/modules/submod\n"), 0o644)
	if p := ResolveProject(sub); p.Name != "submod" {
		t.Errorf("submodule: got %+v", p)
	}
}

// A Projects remembers at most its limit of directories, the most recently
// used: a directory resolved again after it was dropped is read from disk
// again (here it has become a repository's subdirectory meanwhile).
func TestProjectsBounded(t *testing.T) {
	root := t.TempDir()
	dirs := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		dirs[name] = filepath.Join(root, "repo-"+name, "sub")
		if err := os.MkdirAll(dirs[name], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := NewProjects(2)
	for _, name := range []string{"a", "b", "a", "c"} { // b is the least recently used when c comes
		if p := c.Resolve(dirs[name]); p.Name != "sub" {
			t.Fatalf("%s: project %q, want sub (no git yet)", name, p.Name)
		}
	}
	if c.Len() != 2 {
		t.Fatalf("remembers %d directories, want 2", c.Len())
	}
	for _, name := range []string{"a", "b", "c"} {
		if err := os.Mkdir(filepath.Join(root, "repo-"+name, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ name, want string }{{"a", "sub"}, {"c", "sub"}, {"b", "repo-b"}} {
		if p := c.Resolve(dirs[tt.name]); p.Name != tt.want {
			t.Errorf("%s: project %q, want %q", tt.name, p.Name, tt.want)
		}
	}
	if c.Len() != 2 {
		t.Errorf("remembers %d directories, want 2", c.Len())
	}
}
