package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

// memoriesCmd is `mneme memories`: the memories kept (decisions,
// constraints, causes, todos), through the worker's GET /api/memories,
// with who said each; `accept` and `reject` settle a teammate's proposed
// memory (POST /api/memories/:id, the owner's).
func memoriesCmd(g *globals, code *int) *cobra.Command {
	var project, kind, state, speaker, asOf string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "memories",
		Short: "List the memories kept (decisions, constraints, causes, todos), who said each, and what held on a date",
		Long: `List the memories kept: pinned first, then newest first, each with its kind, who said it
(you, Claude, a teammate, or quoted: FILE for a quote), its date and its state.
By default the memories in force (state current); --state proposed lists teammates'
memories awaiting your review, --state all every state. --as-of DATE lists what was
in force on that day (as it ended, UTC), whatever its state now.`,
		Example: `  mneme memories --project api-server
  mneme memories --state proposed
  mneme memories --kind constraint --as-of 2026-11-20
  mneme memories accept m12
  mneme memories reject m13
  mneme memories pin m4
  mneme memories edit m4 "Use pnpm, never npm, in every package"
  mneme memories retire m7
  mneme memories forget m9`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := url.Values{"limit": {strconv.Itoa(limit)}}
			if asOf == "" && state == "" {
				state = models.MemoryCurrent
			}
			for k, v := range map[string]string{"project": project, "kind": kind, "state": state, "speaker": speaker, "as_of": asOf} {
				if v != "" {
					q.Set(k, v)
				}
			}
			out := cmd.OutOrStdout()
			page, done, err := listPage[models.Memory](g, code, out, "/api/memories?"+q.Encode(), asJSON, "No memories.")
			if done || err != nil {
				return err
			}
			if asOf != "" {
				fmt.Fprintf(out, "In force on %s (the state shown is today's):\n", asOf)
			}
			for _, m := range page.Items {
				printMemory(out, m, project == "")
			}
			if page.HasMore {
				fmt.Fprintf(out, "… more memories: raise --limit (now %d) or narrow with --project, --kind\n", limit)
			}
			if state == models.MemoryProposed {
				fmt.Fprintln(out, "Review: mneme memories accept <id> puts one in force; mneme memories reject <id> retires it.")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project")
	cmd.Flags().StringVar(&kind, "kind", "", "decision, constraint, cause or todo (a comma-separated list)")
	cmd.Flags().StringVar(&state, "state", "", "current (the default), proposed, superseded, done, retired, noted or all")
	cmd.Flags().StringVar(&speaker, "speaker", "", "only those said by user, claude, teammate or quoted")
	cmd.Flags().StringVar(&asOf, "as-of", "", "what was in force on this day (YYYY-MM-DD) or at this RFC 3339 time")
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many memories (1-500)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON")
	cmd.AddCommand(
		memoryActionCmd(g, code, "accept", "Accepted", "Put a teammate's proposed memory in force"),
		memoryActionCmd(g, code, "reject", "Rejected", "Retire a teammate's proposed memory: it never comes into force"),
		memoryActionCmd(g, code, "pin", "Pinned", "Pin a memory: injected first, never superseded by itself"),
		memoryActionCmd(g, code, "unpin", "Unpinned", "Unpin a memory"),
		memoryActionCmd(g, code, "retire", "Retired", "Retire a memory: kept, searchable, no longer in force"),
		memoryActionCmd(g, code, "reinstate", "Reinstated", "Put a retired, superseded or done memory back in force"),
		memoryActionCmd(g, code, "edit", "Edited", "Change a memory's text (the privacy rules apply; the original is kept)"),
		memoryForgetCmd(g, code),
	)
	return cmd
}

// memoryActionCmd is `mneme memories ACTION ID` (and `edit ID TEXT…`):
// POST /api/memories/:id, the owner's; it prints the memory as it is now.
func memoryActionCmd(g *globals, code *int, action, done, short string) *cobra.Command {
	use, args := action+" <id>", cobra.ExactArgs(1)
	if action == "edit" {
		use, args = action+" <id> <text…>", cobra.MinimumNArgs(2)
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseMemoryID(args[0])
			if err != nil {
				*code = exitUsage
				return err
			}
			change := map[string]string{"action": action}
			if action == "edit" {
				change["text"] = strings.Join(args[1:], " ")
			}
			body, _ := json.Marshal(change)
			var m models.Memory
			if err := apiJSON(g, http.MethodPost, "/api/memories/"+strconv.FormatInt(id, 10), body, &m); err != nil {
				return err
			}
			state := m.State
			if m.Pinned {
				state += ", pinned"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s (%s of %s, %s, now %s): %s\n", done, ref.Mem(m.ID), m.Kind, m.Project, m.Voice(), state, oneLine(m.Text, 300))
			return nil
		},
	}
}

// memoryForgetCmd is `mneme memories forget ID`: `mneme forget --memory
// ID`, as the other memory commands name it.
func memoryForgetCmd(g *globals, code *int) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "forget <id>",
		Short: "Delete a memory for good (shows it and asks, unless --yes)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseMemoryID(args[0])
			if err != nil {
				*code = exitUsage
				return err
			}
			return runForget(g, code, models.ForgetMemory, strconv.FormatInt(id, 10), yes, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask")
	return cmd
}

// parseMemoryID reads a memory's id: m12 as printed, #m12, or 12 (the
// command says it is a memory).
func parseMemoryID(a string) (int64, error) {
	r, err := ref.Parse(a)
	if err == nil && r.Kind == ref.Observation {
		r.Kind = ref.Memory // a bare number
	}
	if err != nil || r.Kind != ref.Memory || strings.HasPrefix(strings.TrimSpace(a), "#") && !strings.HasPrefix(strings.TrimSpace(strings.ToLower(a)), "#m") {
		return 0, fmt.Errorf("%q is not a memory's id: give m12 (as `mneme memories` and the context print it) or 12", a)
	}
	return r.ID, nil
}

// printMemory prints one memory: its id, kind, who said it, date and
// state, then its text; a second line says what it is about, where it
// came from and what replaced it.
func printMemory(w io.Writer, m models.Memory, withProject bool) {
	state := m.State
	if m.Pinned {
		state += ", pinned"
	}
	fmt.Fprintf(w, "%-6s %-10s  %-12s  %s  %-10s  %s\n", ref.Mem(m.ID), m.Kind, oneLine(m.Voice(), 60), m.CreatedAt.Local().Format(time.DateOnly), state, oneLine(m.Text, 1000))
	var more []string
	if withProject {
		more = append(more, "project "+m.Project)
	}
	if m.Subject != "" {
		more = append(more, "about "+oneLine(m.Subject, 120))
	}
	if m.SessionID != 0 {
		more = append(more, "session "+strconv.FormatInt(m.SessionID, 10))
	}
	if m.SupersededBy != 0 {
		more = append(more, "superseded by "+ref.Mem(m.SupersededBy))
	}
	if m.EndedBy != "" && m.State != models.MemoryCurrent {
		more = append(more, "ended by "+endedBy(m.EndedBy))
	}
	if len(more) > 0 {
		fmt.Fprintf(w, "        %s\n", strings.Join(more, " · "))
	}
}

// endedBy names who ended a memory (a speaker, or "teammate:NAME").
func endedBy(by string) string {
	if name, ok := strings.CutPrefix(by, models.SpeakerTeammate+":"); ok {
		return name
	}
	m := models.Memory{Speaker: by}
	if v := m.Voice(); v != "unknown" {
		return v
	}
	return by
}
