package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Project is where a session runs: its name (the git top-level directory's
// base name, worktrees mapped to their main repository) and git branch.
type Project struct {
	Name   string
	Root   string
	Branch string
}

var projectCache sync.Map // cwd → Project (branch excluded: it changes)

// ResolveProject finds the project of cwd by walking up to the nearest .git,
// without running git. A worktree's .git file points into the main
// repository's .git/worktrees/<name>; the main repository names the project.
// Without git, the project is the base name of cwd.
func ResolveProject(cwd string) Project {
	if cwd == "" {
		return Project{Name: "unknown"}
	}
	cwd = filepath.Clean(cwd)
	var p Project
	if cached, ok := projectCache.Load(cwd); ok {
		p = cached.(Project)
	} else {
		p = resolveProject(cwd)
		projectCache.Store(cwd, p)
	}
	p.Branch = gitBranch(p.Root)
	return p
}

func resolveProject(cwd string) Project {
	for dir := cwd; ; {
		gitPath := filepath.Join(dir, ".git")
		if fi, err := os.Stat(gitPath); err == nil {
			if fi.IsDir() {
				return Project{Name: filepath.Base(dir), Root: dir}
			}
			if main := worktreeMain(gitPath); main != "" {
				return Project{Name: filepath.Base(main), Root: dir}
			}
			return Project{Name: filepath.Base(dir), Root: dir}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return Project{Name: filepath.Base(cwd)}
}

// worktreeMain reads a .git file ("gitdir: …/.git/worktrees/x") and returns
// the main repository's directory, or "" for anything else (submodules).
func worktreeMain(gitFile string) string {
	b, err := os.ReadFile(gitFile)
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return ""
	}
	gitdir := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(gitFile), gitdir)
	}
	common, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return ""
	}
	dir := strings.TrimSpace(string(common))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitdir, dir)
	}
	dir = filepath.Clean(dir) // …/main/.git
	if filepath.Base(dir) != ".git" {
		return ""
	}
	return filepath.Dir(dir)
}

// gitBranch reads the checked-out branch from HEAD, "" when detached or
// without git.
func gitBranch(root string) string {
	if root == "" {
		return ""
	}
	headPath := filepath.Join(root, ".git", "HEAD")
	if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && !fi.IsDir() {
		b, err := os.ReadFile(filepath.Join(root, ".git"))
		if err != nil {
			return ""
		}
		gitdir := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "gitdir:"))
		if !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(root, gitdir)
		}
		headPath = filepath.Join(gitdir, "HEAD")
	}
	b, err := os.ReadFile(headPath)
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(head, "ref: refs/heads/"); ok {
		return ref
	}
	return ""
}
