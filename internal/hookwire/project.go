package hookwire

import (
	"container/list"
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

// ResolveProject finds the project of cwd by walking up to the nearest .git,
// without running git. A worktree's .git file points into the main
// repository's .git/worktrees/<name>; the main repository names the project.
// Without git, the project is the base name of cwd. Nothing is remembered:
// a service that resolves many events' directories uses a Projects.
func ResolveProject(cwd string) Project {
	if cwd == "" {
		return Project{Name: "unknown"}
	}
	p := resolveProject(filepath.Clean(cwd))
	p.Branch = gitBranch(p.Root)
	return p
}

// Projects is ResolveProject with a bounded memory: it remembers the
// project (not the branch, which changes) of the last max directories it
// resolved, dropping the least recently used. It is safe for concurrent
// use.
type Projects struct {
	mu    sync.Mutex
	max   int
	byCwd map[string]*list.Element // of order; values are projectEntry
	order *list.List               // most recently used first
}

type projectEntry struct {
	cwd string
	p   Project
}

// DefaultProjects is how many directories a service's Projects remembers.
const DefaultProjects = 1024

// NewProjects returns a Projects that remembers at most limit directories
// (at least one).
func NewProjects(limit int) *Projects {
	return &Projects{max: max(limit, 1), byCwd: map[string]*list.Element{}, order: list.New()}
}

// Resolve is ResolveProject(cwd), from memory when cwd was resolved lately.
func (c *Projects) Resolve(cwd string) Project {
	if cwd == "" {
		return Project{Name: "unknown"}
	}
	cwd = filepath.Clean(cwd)
	c.mu.Lock()
	e, ok := c.byCwd[cwd]
	if ok {
		c.order.MoveToFront(e)
	}
	c.mu.Unlock()
	var p Project
	if ok {
		p = e.Value.(projectEntry).p
	} else {
		p = resolveProject(cwd)
		c.remember(cwd, p)
	}
	p.Branch = gitBranch(p.Root)
	return p
}

func (c *Projects) remember(cwd string, p Project) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byCwd[cwd]; ok {
		return // resolved meanwhile by another event
	}
	c.byCwd[cwd] = c.order.PushFront(projectEntry{cwd, p})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byCwd, last.Value.(projectEntry).cwd)
	}
}

// Len is how many directories c remembers.
func (c *Projects) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
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
