package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/forget"
	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

// forgetCmd is `mneme forget`: an observation, a prompt with its turn, a
// memory, a session or a project deleted for good by the worker (DELETE
// /api/{observations,prompts,memories,sessions,projects}/…), after showing
// what goes (memories counted with the rest) and asking, unless --yes.
func forgetCmd(g *globals, code *int) *cobra.Command {
	var obs, prompt, memory int64
	var session, project string
	var yes bool
	cmd := &cobra.Command{
		Use:   "forget",
		Short: "Delete an observation, a prompt and its turn, a memory, a session or a project for good",
		Long: `Delete stored data for good: from every table, the search index, the live stream's
replay, exports and (after the worker rebuilds and checkpoints the database) from the bytes
of the database file and its -wal. Open viewers drop the rows at once. Backups made before
keep them. A session still running is recorded again from its next event.`,
		Example: `  mneme forget --observation 4211
  mneme forget --prompt 87 --yes
  mneme forget --memory 12
  mneme forget --session f0373ac4-95a4-4996-a7f7-2576f5e8c9ca
  mneme forget --project old-client-work`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var target, key string
			n := 0
			for _, c := range []struct {
				set     bool
				target  string
				keyText string
			}{
				{obs != 0, models.ForgetObservation, strconv.FormatInt(obs, 10)},
				{prompt != 0, models.ForgetPrompt, strconv.FormatInt(prompt, 10)},
				{memory != 0, models.ForgetMemory, strconv.FormatInt(memory, 10)},
				{session != "", models.ForgetSession, session},
				{project != "", models.ForgetProject, project},
			} {
				if c.set {
					n++
					target, key = c.target, c.keyText
				}
			}
			if n != 1 {
				*code = exitUsage
				return errors.New("give exactly one of --observation ID, --prompt ID, --memory ID, --session ID, --project NAME")
			}
			return runForget(g, code, target, key, yes, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().Int64Var(&obs, "observation", 0, "an observation's id (as `mneme search` and the context give it)")
	cmd.Flags().Int64Var(&prompt, "prompt", 0, "a prompt's id: the prompt, its tool calls and its turn summary")
	cmd.Flags().Int64Var(&memory, "memory", 0, "a memory's id (#m12 in the context is 12)")
	cmd.Flags().StringVar(&session, "session", "", "a session: mneme's id or Claude Code's session id")
	cmd.Flags().StringVar(&project, "project", "", "a project: every session of it")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask")
	return cmd
}

// forgetPaths are the API collections of each target.
var forgetPaths = map[string]string{
	models.ForgetObservation: "observations", models.ForgetPrompt: "prompts",
	models.ForgetSession: "sessions", models.ForgetProject: "projects", models.ForgetMemory: "memories",
}

func runForget(g *globals, code *int, target, key string, yes bool, in io.Reader, out io.Writer) error {
	esc := url.PathEscape(key)
	body, err := apiGet(g, "/api/forget/"+target+"/"+esc)
	if err != nil {
		return err
	}
	var p models.ForgetPreview
	if err := json.Unmarshal(body, &p); err != nil {
		return err
	}
	fmt.Fprintf(out, "Forget %s", forgetName(target, key))
	if p.Label != "" && p.Label != key {
		fmt.Fprintf(out, " (%s)", oneLine(p.Label, 70))
	}
	c := p.Counts
	var goes []string
	for _, n := range []struct {
		n    int64
		noun string
	}{{c.Sessions, "session"}, {c.Prompts, "prompt"}, {c.Observations, "tool call"}, {c.Summaries, "summary"}, {c.Memories, "memory"}} {
		if n.n > 0 {
			goes = append(goes, plural(n.n, n.noun))
		}
	}
	if len(goes) == 0 {
		goes = append(goes, "nothing else")
	}
	fmt.Fprintf(out, ": %s, for good.\n", strings.Join(goes, ", "))
	if !yes {
		fmt.Fprint(out, "Type yes to forget: ")
		line, _ := bufio.NewReader(in).ReadString('\n')
		if strings.TrimSpace(strings.ToLower(line)) != "yes" {
			fmt.Fprintln(out, "Nothing forgotten.")
			*code = exitNotFound
			return nil
		}
	}
	// No overall timeout: the worker rebuilds the database after the
	// delete, which takes a while on a large one.
	body, err = apiCall(g, http.MethodDelete, "/api/"+forgetPaths[target]+"/"+esc, nil, 0)
	if err != nil {
		return err
	}
	var res forget.Outcome
	if err := json.Unmarshal(body, &res); err != nil {
		return err
	}
	d := res.Deleted
	var said []string
	for _, c := range []struct {
		n    int64
		noun string
	}{{int64(d.Sessions), "session"}, {int64(d.Prompts), "prompt"}, {int64(d.Observations), "observation"}, {int64(d.Summaries), "summary"},
		{int64(d.Memories), "memory"}, {int64(d.SummaryJobs), "summary job"}, {int64(d.Events), "stream event"}} {
		if c.n > 0 {
			said = append(said, plural(c.n, c.noun))
		}
	}
	if len(said) == 0 {
		said = append(said, "nothing")
	}
	fmt.Fprintf(out, "Forgotten: %s (database rebuilt in %d ms).\n", strings.Join(said, ", "), res.Scrub.TookMS)
	return nil
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// forgetName names what a forget deletes as the other commands print it:
// tool call #12, prompt:3, session s7, memory m6, project NAME.
func forgetName(target, key string) string {
	id, err := strconv.ParseInt(key, 10, 64)
	if err != nil {
		return target + " " + key
	}
	switch target {
	case models.ForgetObservation:
		return "tool call " + ref.Obs(id)
	case models.ForgetPrompt:
		return "prompt:" + key
	case models.ForgetSession:
		return "session " + ref.Sess(id)
	case models.ForgetMemory:
		return "memory " + ref.Mem(id)
	}
	return target + " " + key
}
