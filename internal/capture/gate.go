package capture

import (
	"context"
	"encoding/json"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// FileRecaller answers the file gate: what mneme remembers of a file
// Claude is about to read or edit.
type FileRecaller interface {
	FileContext(ctx context.Context, req FileRequest) (string, error)
}

// FileRequest is one PreToolUse of the gate.
type FileRequest struct {
	Project         string
	SessionID       int64  // the session's database id, 0 when it is not stored yet
	ClaudeSessionID string // who was answered what is remembered by this
	Cwd             string
	Path            string // absolute: the tool's path joined with cwd
}

// preToolUse answers the file gate. It writes nothing: no session is
// created, nothing waits for the writer. Any problem gives the neutral
// answer, as the tool must never wait on mneme.
func (s *Service) preToolUse(ctx context.Context, ev *shape.Event) shape.Output {
	if s.Files == nil || !ev.OnThisMachine() {
		// A person's file is on their machine: the gate, which compares
		// memories with the file as it is now, has nothing to compare.
		return shape.Continue()
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if input := ev.ToolInput(); len(input) > 0 && json.Unmarshal(input, &in) != nil {
		return shape.Continue()
	}
	path := filestate.Abs(firstNonEmpty(in.FilePath, in.NotebookPath), ev.Cwd())
	if path == "" {
		return shape.Continue()
	}
	req := FileRequest{ClaudeSessionID: ev.SessionID(), Cwd: ev.Cwd(), Path: path}
	if ref, ok := s.sessions.Load(ev.SessionID()); ok {
		req.SessionID, req.Project = ref.(models.SessionRef).ID, ref.(models.SessionRef).Project
	} else if sess, err := s.Store.SessionByClaudeID(ctx, ev.SessionID()); err == nil {
		req.SessionID, req.Project = sess.ID, sess.Project
	} else {
		req.Project = ev.Project().Name
	}
	text, err := s.Files.FileContext(ctx, req)
	if err != nil {
		s.log.Warn("file gate", "project", req.Project, "err", err)
		return shape.Continue()
	}
	return shape.WithContext(hookwire.PreToolUse, text)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
