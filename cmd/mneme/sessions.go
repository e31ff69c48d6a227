package main

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

// sessionsCmd is `mneme sessions`: the sessions kept, newest first,
// through the worker's GET /api/sessions, each with the id `mneme show`
// takes (s7).
func sessionsCmd(g *globals, code *int) *cobra.Command {
	var project, person string
	var limit, offset int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List the sessions kept, newest first (mneme show s7 prints one)",
		Example: `  mneme sessions
  mneme sessions --project api-server --limit 5
  mneme show s7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(offset)}}
			if project != "" {
				q.Set("project", project)
			}
			if person != "" {
				q.Set("person", person)
			}
			out := cmd.OutOrStdout()
			page, done, err := listPage[models.SessionStats](g, code, out, "/api/sessions?"+q.Encode(), asJSON, "No sessions.")
			if done || err != nil {
				return err
			}
			for _, s := range page.Items {
				title := s.Title
				if title == "" {
					title = "(no prompt yet)"
				}
				fmt.Fprintf(out, "%-6s %s  %-10s  %s\n", ref.Sess(s.ID), stamp(s.StartedAt), s.Status, oneLine(title, 100))
				fmt.Fprintf(out, "       %s · %s · %s · %s\n", s.Project, plural(s.Prompts, "prompt"), plural(s.ToolCalls, "tool call"), failedText(s.Failures))
			}
			if page.HasMore {
				fmt.Fprintf(out, "… older sessions: mneme sessions --offset %d\n", offset+len(page.Items))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project")
	cmd.Flags().StringVar(&person, "person", "", "only the sessions this person captured (team mode)")
	cmd.Flags().IntVar(&limit, "limit", 20, "at most this many sessions (1-500)")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many of the newest")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON")
	return cmd
}

func failedText(n int) string {
	if n == 0 {
		return "none failed"
	}
	return strconv.Itoa(n) + " failed"
}
