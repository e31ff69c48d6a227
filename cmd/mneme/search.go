package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/models"
)

func searchCmd(g *globals, code *int) *cobra.Command {
	var project, typ, tool string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search <words…>",
		Short: "Search everything mneme stored (FTS5 syntax: AND, OR, NOT, prefix*, \"phrases\")",
		Example: `  mneme search migrate AND test
  mneme search '"connection refused"' --project api-server
  mneme search auth* --type observation --limit 5`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := url.Values{"q": {strings.Join(args, " ")}, "limit": {strconv.Itoa(limit)}}
			for k, v := range map[string]string{"project": project, "type": typ, "tool": tool} {
				if v != "" {
					q.Set(k, v)
				}
			}
			body, err := apiGet(g, "/api/search?"+q.Encode())
			if err != nil {
				*code = 2
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				_, err := out.Write(body)
				return err
			}
			var res api.SearchResults
			if err := json.Unmarshal(body, &res); err != nil {
				return err
			}
			if len(res.Items) == 0 {
				fmt.Fprintln(out, "No matches.")
				*code = 1
				return nil
			}
			color := isTTY(out)
			for _, hit := range res.Items {
				printHit(out, hit, color)
			}
			if res.HasMore {
				fmt.Fprintf(out, "… more results: raise --limit (now %d) or narrow the query\n", limit)
			}
			fmt.Fprintln(out, "Details of an observation: mneme show <id>")
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project")
	cmd.Flags().StringVar(&typ, "type", "", "prompt, observation or summary")
	cmd.Flags().StringVar(&tool, "tool", "", "only observations of this tool (Bash, Edit, …)")
	cmd.Flags().IntVar(&limit, "limit", 10, "at most this many results (1-100)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON")
	return cmd
}

func printHit(w io.Writer, hit api.SearchResult, color bool) {
	bold, dim, hl, reset := "", "", "", ""
	if color {
		bold, dim, hl, reset = "\x1b[1m", "\x1b[2m", "\x1b[33;1m", "\x1b[0m"
	}
	status := ""
	if hit.Type == models.SearchObservation && !hit.Success {
		status = " [FAILED]"
	}
	fmt.Fprintf(w, "%s%s #%d%s %s%s%s  %s%s · %s · session %d%s\n",
		bold, hit.Type, hit.ID, reset, hit.Title, status, "", dim, hit.Project, hit.CreatedAt.Local().Format(time.DateTime), hit.SessionID, reset)
	var b strings.Builder
	for _, p := range hit.SnippetParts {
		text := strings.Join(strings.Fields(p.Text), " ")
		if p.Match {
			if color {
				b.WriteString(hl + text + reset)
			} else {
				b.WriteString("«" + text + "»")
			}
			continue
		}
		if strings.HasPrefix(p.Text, " ") || strings.HasPrefix(p.Text, "\n") {
			b.WriteByte(' ')
		}
		b.WriteString(text)
		if strings.HasSuffix(p.Text, " ") || strings.HasSuffix(p.Text, "\n") {
			b.WriteByte(' ')
		}
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		fmt.Fprintf(w, "    %s\n", s)
	}
}

func showCmd(g *globals, code *int) *cobra.Command {
	return &cobra.Command{
		Use:   "show <observation id…>",
		Short: "Print stored observations in full (ids from the context block or `mneme search`)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := make([]int64, 0, len(args))
			for _, a := range args {
				id, err := strconv.ParseInt(strings.TrimPrefix(a, "#"), 10, 64)
				if err != nil || id <= 0 {
					*code = 2
					return fmt.Errorf("%q is not an observation id", a)
				}
				ids = append(ids, id)
			}
			reqBody, _ := json.Marshal(map[string]any{"ids": ids})
			body, err := apiDo(g, http.MethodPost, "/api/observations/batch", reqBody)
			if err != nil {
				*code = 2
				return err
			}
			var res struct {
				Items []models.Observation `json:"items"`
			}
			if err := json.Unmarshal(body, &res); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(res.Items) == 0 {
				fmt.Fprintln(out, "No such observation.")
				*code = 1
			}
			for _, o := range res.Items {
				fmt.Fprintf(out, "#%d %s\n", o.ID, o.Title)
				fmt.Fprintf(out, "  project %s · session %d · prompt %d · %s · %s · success %v · importance %.1f\n",
					o.Project, o.SessionID, o.PromptNumber, o.ToolName, o.CreatedAt.Local().Format(time.DateTime), o.Success, o.Importance)
				if len(o.Files) > 0 {
					fmt.Fprintf(out, "  files: %s\n", strings.Join(o.Files, ", "))
				}
				if o.ExcludedBy != "" {
					fmt.Fprintf(out, "  excluded by privacy rule %s: no content stored\n", o.ExcludedBy)
				}
				for _, part := range []struct{ name, text string }{{"input", o.Input}, {"output", o.Output}} {
					if part.text != "" {
						fmt.Fprintf(out, "  %s:\n    %s\n", part.name, strings.ReplaceAll(part.text, "\n", "\n    "))
					}
				}
			}
			return nil
		},
	}
}

// apiGet fetches a worker API path and returns its body; API errors come
// back as errors carrying the worker's message.
func apiGet(g *globals, path string) ([]byte, error) { return apiDo(g, http.MethodGet, path, nil) }

func apiDo(g *globals, method, path string, body []byte) ([]byte, error) {
	return apiCall(g, method, path, body, 10*time.Second)
}

// apiCall sends one request to the worker and returns the body of a 200,
// or the error the worker gave; timeout 0 means none.
func apiCall(g *globals, method, path string, body []byte, timeout time.Duration) ([]byte, error) {
	r := g.remote()
	req, err := http.NewRequest(method, r.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r.authorize(req)
	resp, err := r.client(timeout).Do(req)
	if err != nil {
		return nil, fmt.Errorf("the mneme worker is not reachable %s (start it with `mneme serve`): %w", r.where, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(out, &e) == nil && e.Error != "" {
			return nil, fmt.Errorf("%s", e.Error)
		}
		return nil, fmt.Errorf("worker answered %d", resp.StatusCode)
	}
	return out, nil
}

// isTTY reports whether w is a terminal (colours on).
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
