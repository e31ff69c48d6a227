package capture

import (
	"github.com/mneme-dev/mneme/internal/filestate"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/models"
)

// stateTools are the tools whose files' states are recorded: those that
// read or change a file's content.
var stateTools = map[string]bool{"Read": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}

// fileStates reads the state of each file obs touched, for staleness
// checks later. It runs in the request's goroutine, before the write is
// queued, so the writer never waits on the file system; a missing file
// costs one failed stat, an unchanged one read again a stat. Nothing is read for an excluded observation (the
// privacy rule covers the file's hash too) or one without a tool_use_id
// (its states would have no key), nor for a person's event: the path names
// a file of their machine, never one of this machine to stat or hash.
func (s *Service) fileStates(ev *shape.Event, obs *models.Observation) []models.FileState {
	if !ev.OnThisMachine() {
		return nil // a person's files are on their machine
	}
	if obs == nil || obs.ToolUseID == nil || obs.ExcludedBy != "" || len(obs.Files) == 0 || !stateTools[obs.ToolName] {
		return nil
	}
	out := make([]models.FileState, 0, len(obs.Files))
	for _, f := range obs.Files {
		// A relative path is the session's cwd joined with it, and stored
		// so, as the file gate looks files up by absolute path.
		st := filestate.State{Path: f, Kind: filestate.Unknown}
		if abs := filestate.Abs(f, ev.Cwd()); abs != "" {
			st = s.hashes.Read(abs)
		}
		out = append(out, models.FileState{Path: st.Path, Kind: st.Kind, SHA256: st.SHA256, Size: st.Size, MtimeNS: st.MtimeNS})
	}
	return out
}
