package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/hooks"
)

// hookSpec is one hook mneme installs into Claude Code.
type hookSpec struct {
	Event   string
	Slug    string
	Matcher string
	Timeout int
}

var mnemeHooks = []hookSpec{
	{"SessionStart", "session-start", "startup|resume|clear|compact", 10},
	{"UserPromptSubmit", "user-prompt-submit", "", 5},
	{"PostToolUse", "post-tool-use", "*", 5},
	{"PostToolUseFailure", "post-tool-use-failure", "*", 5},
	// The file gate: read-only, answered within hooks.GateBudget.
	{"PreToolUse", "pre-tool-use", "Read|Edit|Write|MultiEdit", 2},
	{"Stop", "stop", "", 5},
	{"SessionEnd", "session-end", "", 2},
}

func installCmd(g *globals, uninstall bool) *cobra.Command {
	var project bool
	var settingsPath, bin string
	use, short := "install", "Wire mneme into Claude Code: hooks (~/.claude/settings.json), MCP server (~/.claude.json), /mem-search"
	if uninstall {
		use, short = "uninstall", "Remove mneme's hooks, MCP server and /mem-search from Claude Code"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := os.UserHomeDir()
			if project {
				base, err = os.Getwd()
			}
			if err != nil {
				return err
			}
			path := settingsPath
			if path == "" {
				path = filepath.Join(base, ".claude", "settings.json")
			}
			// The MCP server and /mem-search go where Claude Code reads them
			// for the same scope: beside a --settings file only when it is
			// some <dir>/.claude/settings.json.
			extras, withExtras := claudeTargetsFor(base, project), true
			if settingsPath != "" {
				extras, withExtras = claudeTargetsBeside(settingsPath, project)
			}
			say := func(format string, a ...any) { fmt.Fprintf(cmd.OutOrStdout(), format, a...) }
			if uninstall {
				changed, err := uninstallHooks(path)
				if err != nil {
					return err
				}
				if changed {
					say("Removed mneme's hooks from %s\n", path)
				} else {
					say("No mneme hooks in %s; nothing to do\n", path)
				}
				if withExtras {
					if err := uninstallExtras(say, extras); err != nil {
						return err
					}
				}
				if dir := filepath.Dir(path); filepath.Base(dir) == ".claude" {
					os.Remove(dir) // only when empty: what install created
				}
				return nil
			}
			if bin == "" {
				exe, err := os.Executable()
				if err != nil {
					return err
				}
				if bin, err = filepath.EvalSymlinks(exe); err != nil {
					return err
				}
			}
			changed, backup, err := installHooks(path, hookCommand(g, bin))
			if err != nil {
				return err
			}
			if withExtras {
				installExtras(say, extras, mcpServerEntry(g, bin))
			} else {
				say("The MCP server and /mem-search were not installed: %s is not in a .claude directory (register the server with `claude mcp add mneme -- %s mcp`)\n", path, shellQuote(bin))
			}
			out := cmd.OutOrStdout()
			if !changed {
				fmt.Fprintf(out, "mneme's hooks are already installed in %s\n", path)
				return nil
			}
			fmt.Fprintf(out, "Installed mneme's hooks in %s\n", path)
			if backup != "" {
				fmt.Fprintf(out, "Backup of the previous file: %s\n", backup)
			}
			fmt.Fprintf(out, "The worker starts by itself on the first hook; the viewer is at %s (`mneme open` logs you in)\n", g.viewerURL())
			return nil
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "write the project's .claude/settings.json, .mcp.json and .claude/commands instead of the user's")
	cmd.Flags().StringVar(&settingsPath, "settings", "", "path of the settings file to edit")
	if !uninstall {
		cmd.Flags().StringVar(&bin, "bin", "", "path of the mneme binary the hooks run (default: this binary); mneme-hook beside it runs instead when present")
	}
	return cmd
}

// hookBinName is the small hook binary make build puts beside mneme.
const hookBinName = "mneme-hook"

// hookCommand is the command line of every installed hook, up to the event
// slug: "<dir>/mneme-hook [flags] " when mneme-hook sits beside bin (it
// starts in a fraction of mneme's time), else "<bin> [flags] hook ".
// Non-default ports and data directories are carried as flags.
func hookCommand(g *globals, bin string) string {
	sub := " hook "
	if isHookBin(bin) {
		sub = " "
	} else if sibling := filepath.Join(filepath.Dir(bin), hooks.ExecutableName(hookBinName)); hooks.IsExecutable(sibling) {
		bin, sub = sibling, " "
	}
	cmd := commandWord(runtime.GOOS, bin)
	if g.port != DefaultPort {
		cmd += " --port " + strconv.Itoa(g.port)
	}
	if g.dataDir != defaultDataDir() {
		cmd += " --data-dir " + commandWord(runtime.GOOS, g.dataDir)
	}
	return cmd + sub
}

// commandWord is a path as one word of a hook's command line, which Claude
// Code runs with a shell: bash (Git Bash on Windows). Quoted when it has
// spaces or other special characters; on Windows with forward slashes
// (C:/Users/…/mneme-hook.exe), which bash leaves alone where it would eat
// the backslashes.
func commandWord(goos, path string) string {
	if goos == "windows" {
		path = strings.ReplaceAll(path, `\`, "/")
	}
	return shellQuote(path)
}

func isHookBin(path string) bool {
	return strings.TrimSuffix(filepath.Base(path), ".exe") == hookBinName
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isMnemeHook recognises a hook command mneme installed, whatever binary
// path it used: "<…/mneme-hook> [flags] <event>", or "<…/mneme> [flags] hook
// <event>" as installs before mneme-hook wrote it.
func isMnemeHook(command string) bool {
	fields := shellFields(command)
	if len(fields) < 2 {
		return false
	}
	if isHookBin(fields[0]) {
		_, ok := hookwire.EventName(fields[len(fields)-1])
		return ok
	}
	return len(fields) >= 3 && fields[len(fields)-2] == "hook" &&
		strings.TrimSuffix(filepath.Base(fields[0]), ".exe") == "mneme"
}

// shellFields splits a command line into words, undoing shellQuote (and
// double quotes), so a binary path with spaces is one word.
func shellFields(s string) []string {
	var words []string
	var w strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// readSettings loads a settings file (or ~/.claude.json, Claude Code's own
// state), keeping its numbers as written; a missing file is an empty
// object.
func readSettings(path string) (map[string]any, []byte, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	settings := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err = dec.Decode(&settings); err == nil && dec.More() {
			err = errors.New("more than one JSON value")
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s is not valid JSON (%v); fix it first, mneme will not overwrite it", path, err)
		}
	}
	return settings, raw, nil
}

// removeMnemeHooks strips mneme's entries from the hooks map, dropping
// groups and events left empty. It reports whether anything was removed.
func removeMnemeHooks(settings map[string]any) bool {
	hooksMap, _ := settings["hooks"].(map[string]any)
	removed := false
	for event, v := range hooksMap {
		groups, _ := v.([]any)
		var keep []any
		for _, gv := range groups {
			group, _ := gv.(map[string]any)
			inner, _ := group["hooks"].([]any)
			var innerKeep []any
			for _, hv := range inner {
				h, _ := hv.(map[string]any)
				if cmd, _ := h["command"].(string); isMnemeHook(cmd) {
					removed = true
					continue
				}
				innerKeep = append(innerKeep, hv)
			}
			if len(innerKeep) == 0 && len(inner) > 0 {
				continue
			}
			if group != nil && len(inner) > 0 {
				group["hooks"] = innerKeep
			}
			keep = append(keep, gv)
		}
		if len(keep) == 0 {
			delete(hooksMap, event)
		} else {
			hooksMap[event] = keep
		}
	}
	if hooksMap != nil && len(hooksMap) == 0 && removed {
		delete(settings, "hooks")
	}
	return removed
}

// installHooks merges mneme's hooks into the settings file at path; command
// is hookCommand's prefix of each event slug. It keeps every unrelated
// setting and hook, replaces mneme entries from an earlier install, and
// changes nothing when the file already holds exactly these.
func installHooks(path, command string) (changed bool, backup string, err error) {
	settings, raw, err := readSettings(path)
	if err != nil {
		return false, "", err
	}
	removeMnemeHooks(settings)
	hooksMap, _ := settings["hooks"].(map[string]any)
	if hooksMap == nil {
		hooksMap = map[string]any{}
		settings["hooks"] = hooksMap
	}
	for _, spec := range mnemeHooks {
		group := map[string]any{
			"hooks": []any{map[string]any{
				"type":    "command",
				"command": command + spec.Slug,
				"timeout": spec.Timeout,
			}},
		}
		if spec.Matcher != "" {
			group["matcher"] = spec.Matcher
		}
		existing, _ := hooksMap[spec.Event].([]any)
		hooksMap[spec.Event] = append(existing, group)
	}
	return writeSettings(path, raw, settings)
}

// uninstallHooks removes exactly the hooks install added.
func uninstallHooks(path string) (bool, error) {
	settings, raw, err := readSettings(path)
	if err != nil || raw == nil {
		return false, err
	}
	if !removeMnemeHooks(settings) {
		return false, nil
	}
	changed, _, err := writeSettings(path, raw, settings)
	return changed, err
}

// writeSettings writes settings if they differ from raw, backing up the old
// file first and replacing it atomically.
//
// The keys keep the file's order. An object left empty by an uninstall
// that removed something (changed is true) removes the file: install
// created it, or it held only what install added.
func writeSettings(path string, raw []byte, settings map[string]any) (changed bool, backup string, err error) {
	out, err := marshalOrdered(settings, keyOrderOf(raw))
	if err != nil {
		return false, "", err
	}
	out = append(out, '\n')
	if raw != nil && jsonEqual(raw, out) {
		return false, "", nil
	}
	if raw != nil && len(settings) == 0 {
		return true, "", os.Remove(path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, "", err
	}
	mode := fs.FileMode(0o644)
	if raw != nil {
		if info, err := os.Stat(path); err == nil {
			mode = info.Mode().Perm()
		}
		backup = path + ".mneme-backup-" + time.Now().Format("20060102-150405")
		if err := os.WriteFile(backup, raw, mode); err != nil {
			return false, "", fmt.Errorf("write backup: %w", err)
		}
	}
	tmp := path + ".mneme-tmp"
	if err := os.WriteFile(tmp, out, mode); err != nil {
		return false, "", err
	}
	return true, backup, os.Rename(tmp, path)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
