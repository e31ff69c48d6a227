package hookwire

import (
	"bytes"
	"encoding/json"
)

// AddRemoteFacts adds to the payload of an event bound for a team's worker
// (MNEME_URL) what only this machine can read, since a team worker opens
// no path a person's event names (they are this machine's paths, not its
// own): the project and git branch of the event's cwd (mneme_project,
// mneme_branch, found as a local worker finds them: ResolveProject) and,
// for a Stop without last_assistant_message, the last assistant message
// of its transcript. It runs before redaction, so what it adds is
// redacted like the rest. A payload that is not a JSON object, or to
// which nothing is added, is returned as it is.
func AddRemoteFacts(event string, payload []byte) []byte {
	var in struct {
		Cwd                  string `json:"cwd"`
		TranscriptPath       string `json:"transcript_path"`
		LastAssistantMessage string `json:"last_assistant_message"`
	}
	if json.Unmarshal(payload, &in) != nil {
		return payload
	}
	var add [][2]string
	if in.Cwd != "" {
		proj := ResolveProject(in.Cwd)
		add = append(add, [2]string{"mneme_project", proj.Name})
		if proj.Branch != "" {
			add = append(add, [2]string{"mneme_branch", proj.Branch})
		}
	}
	if event == Stop && in.LastAssistantMessage == "" && in.TranscriptPath != "" {
		if msg := ownLastAssistantMessage(in.TranscriptPath); msg != "" {
			add = append(add, [2]string{"last_assistant_message", msg})
		}
	}
	return appendFields(payload, add)
}

// appendFields adds string fields at the end of the JSON object obj, where
// they win over fields of the same name before them (encoding/json keeps
// the last).
func appendFields(obj []byte, fields [][2]string) []byte {
	trimmed := bytes.TrimSpace(obj)
	if len(fields) == 0 || len(trimmed) < 2 || trimmed[0] != '{' || trimmed[len(trimmed)-1] != '}' {
		return obj
	}
	inner := bytes.TrimSpace(trimmed[1 : len(trimmed)-1])
	out := make([]byte, 0, len(trimmed)+64)
	out = append(out, trimmed[:len(trimmed)-1]...)
	for i, f := range fields {
		if i > 0 || len(inner) > 0 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(f[0])
		v, _ := json.Marshal(f[1])
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}')
}
