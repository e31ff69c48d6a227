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
	"github.com/mneme-dev/mneme/internal/ref"
	"github.com/mneme-dev/mneme/models"
)

func searchCmd(g *globals, code *int) *cobra.Command {
	var project, typ, tool, mode string
	var limit int
	var asJSON, semantic bool
	cmd := &cobra.Command{
		Use:   "search <words…>",
		Short: "Search everything mneme stored (FTS5 syntax: AND, OR, NOT, prefix*, \"phrases\")",
		Example: `  mneme search migrate AND test
  mneme search '"connection refused"' --project api-server
  mneme search auth* --type observation --limit 5
  mneme search --semantic why did login break
  mneme search cache --type memory`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q := url.Values{"q": {strings.Join(args, " ")}, "limit": {strconv.Itoa(limit)}}
			if semantic {
				if mode != "" && mode != "semantic" {
					*code = exitUsage
					return fmt.Errorf("--semantic and --mode %s disagree: give one", mode)
				}
				mode = "semantic"
			}
			if typ == models.SearchMemory {
				return searchMemories(g, code, cmd.OutOrStdout(), q, project, mode, asJSON)
			}
			for k, v := range map[string]string{"project": project, "type": typ, "tool": tool, "mode": mode} {
				if v != "" {
					q.Set(k, v)
				}
			}
			body, err := apiGet(g, "/api/search?"+q.Encode())
			if err != nil {
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
			if res.WordsError != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "mneme: the words part of the query could not be read: %s. These are matches by meaning only.\n", res.WordsError)
			}
			if len(res.Items) == 0 {
				fmt.Fprintln(out, "No matches.")
				*code = exitNotFound
				return nil
			}
			if mode == "hybrid" && res.Mode == "text" {
				fmt.Fprintln(cmd.ErrOrStderr(), "mneme: the embeddings endpoint did not answer in time: these are text matches only")
			}
			color := isTTY(out)
			for _, hit := range res.Items {
				printHit(out, hit, color)
			}
			if res.HasMore {
				fmt.Fprintf(out, "… more results: raise --limit (now %d) or narrow the query\n", limit)
			}
			fmt.Fprintln(out, "Open any of them in full: mneme show <id> (e.g. mneme show 12 prompt:3 summary:4)")
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "only this project")
	cmd.Flags().StringVar(&typ, "type", "", "prompt, observation, summary or memory (memories of every state, each with its state)")
	cmd.Flags().StringVar(&tool, "tool", "", "only observations of this tool (Bash, Edit, …)")
	cmd.Flags().IntVar(&limit, "limit", 10, "at most this many results (1-100)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the API's JSON")
	cmd.Flags().StringVar(&mode, "mode", "", "hybrid, text or semantic (default: hybrid when an embeddings endpoint is set, else text)")
	cmd.Flags().BoolVar(&semantic, "semantic", false, "search by meaning only (--mode semantic)")
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
	r := ref.Ref{Kind: ref.Kind(hit.Type), ID: hit.ID}
	fmt.Fprintf(w, "%s%s%s %s%s%s  %s%s · %s · session %s%s\n",
		bold, r, reset, hit.Title, status, "", dim, hit.Project, stamp(hit.CreatedAt), ref.Sess(hit.SessionID), reset)
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
		Use:   "show <id…>",
		Short: "Print stored tool calls, memories, sessions, prompts and summaries in full (ids as the context block, `mneme search` and the viewer print them)",
		Long: `Print stored rows in full. An id is as mneme prints it: 12 or #12 for a tool
call (an observation), m6 for a memory, s7 for a session, prompt:3 for a prompt,
summary:4 for a summary. Quote #12 in a shell ('#12'), or leave the # out.`,
		Example: `  mneme show 10 12
  mneme show m6 s7
  mneme show prompt:3 summary:7`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			refs := make([]ref.Ref, 0, len(args))
			for _, a := range args {
				r, err := ref.Parse(a)
				if err != nil {
					*code = exitUsage
					return err
				}
				refs = append(refs, r)
			}
			found, err := fetchRows(g, refs)
			if err != nil {
				*code = exitWorker
				return err
			}
			out := cmd.OutOrStdout()
			var missing []string
			printed := map[ref.Ref]bool{}
			for _, r := range refs {
				row, ok := found[r]
				if !ok {
					missing = append(missing, r.String())
					continue
				}
				if !printed[r] {
					printed[r] = true
					row(out)
				}
			}
			if len(missing) > 0 {
				*code = exitNotFound
				return fmt.Errorf("not found: %s (ids come from `mneme search`, `mneme memories`, the context block or the viewer; forgotten rows are gone)", strings.Join(missing, ", "))
			}
			return nil
		},
	}
}

// fetchRows asks the worker for every row refs name and returns a printer
// for each one found.
func fetchRows(g *globals, refs []ref.Ref) (map[ref.Ref]func(io.Writer), error) {
	byKind := map[ref.Kind][]string{}
	for _, r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], strconv.FormatInt(r.ID, 10))
	}
	found := map[ref.Ref]func(io.Writer){}
	if ids := byKind[ref.Observation]; len(ids) > 0 {
		var res struct {
			Items []models.Observation `json:"items"`
		}
		reqBody := []byte(`{"ids":[` + strings.Join(ids, ",") + `]}`)
		if err := apiJSON(g, http.MethodPost, "/api/observations/batch", reqBody, &res); err != nil {
			return nil, err
		}
		for _, o := range res.Items {
			found[ref.Ref{Kind: ref.Observation, ID: o.ID}] = func(w io.Writer) { printObservation(w, o) }
		}
	}
	if ids := byKind[ref.Memory]; len(ids) > 0 {
		var res api.Page[models.Memory]
		if err := apiJSON(g, http.MethodGet, "/api/memories?state=all&limit=500&id="+strings.Join(ids, ","), nil, &res); err != nil {
			return nil, err
		}
		for _, m := range res.Items {
			found[ref.Ref{Kind: ref.Memory, ID: m.ID}] = func(w io.Writer) { printMemory(w, m, true) }
		}
	}
	for _, id := range byKind[ref.Session] {
		var d api.SessionDetail
		err := apiJSON(g, http.MethodGet, "/api/sessions/"+id, nil, &d)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if d.Session != nil {
			found[ref.Ref{Kind: ref.Session, ID: d.Session.ID}] = func(w io.Writer) { printSession(w, d) }
		}
	}
	if ids := byKind[ref.Prompt]; len(ids) > 0 {
		var res api.Page[models.Prompt]
		if err := apiJSON(g, http.MethodGet, "/api/prompts?limit=500&id="+strings.Join(ids, ","), nil, &res); err != nil {
			return nil, err
		}
		for _, p := range res.Items {
			found[ref.Ref{Kind: ref.Prompt, ID: p.ID}] = func(w io.Writer) {
				fmt.Fprintf(w, "prompt:%d (prompt %d of session %s)\n", p.ID, p.Number, ref.Sess(p.SessionID))
				fmt.Fprintf(w, "  project %s · session %s · %s\n", p.Project, ref.Sess(p.SessionID), stamp(p.CreatedAt))
				fmt.Fprintf(w, "  text:\n    %s\n", strings.ReplaceAll(p.Text, "\n", "\n    "))
			}
		}
	}
	if ids := byKind[ref.Summary]; len(ids) > 0 {
		var res api.Page[models.Summary]
		if err := apiJSON(g, http.MethodGet, "/api/summaries?limit=500&id="+strings.Join(ids, ","), nil, &res); err != nil {
			return nil, err
		}
		for _, s := range res.Items {
			found[ref.Ref{Kind: ref.Summary, ID: s.ID}] = func(w io.Writer) { printSummary(w, s) }
		}
	}
	return found, nil
}

// printSession is a session's head, its prompts and its failures, with
// the ids to show each.
func printSession(out io.Writer, d api.SessionDetail) {
	s := d.Session
	title := s.Title
	if title == "" {
		title = "(no prompt yet)"
	}
	fmt.Fprintf(out, "%s %s\n", ref.Sess(s.ID), title)
	fmt.Fprintf(out, "  project %s · started %s · %s · %d prompts · %d tool calls\n",
		s.Project, stamp(s.StartedAt), s.Status, len(d.Prompts), len(d.Observations))
	for _, p := range d.Prompts {
		fmt.Fprintf(out, "  prompt:%d  %s\n", p.ID, oneLine(p.Text, 160))
	}
	for _, o := range d.Observations {
		if !o.Success {
			fmt.Fprintf(out, "  %s  %s [FAILED]\n", ref.Obs(o.ID), oneLine(o.Title, 160))
		}
	}
}

// apiJSON sends one request to the worker and decodes its JSON answer
// into v.
func apiJSON(g *globals, method, path string, body []byte, v any) error {
	raw, err := apiDo(g, method, path, body)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

func printObservation(out io.Writer, o models.Observation) {
	fmt.Fprintf(out, "#%d %s\n", o.ID, o.Title)
	fmt.Fprintf(out, "  project %s · session %d · prompt %d · %s · %s · success %v · importance %.1f\n",
		o.Project, o.SessionID, o.PromptNumber, o.ToolName, stamp(o.CreatedAt), o.Success, o.Importance)
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

func printSummary(out io.Writer, s models.Summary) {
	fmt.Fprintf(out, "summary:%d (%s summary of session %d)\n", s.ID, s.Kind, s.SessionID)
	fmt.Fprintf(out, "  project %s · session %d · prompt %d · %s · by %s\n",
		s.Project, s.SessionID, s.PromptNumber, stamp(s.CreatedAt), s.Generator)
	for _, part := range []struct{ name, text string }{
		{"request", s.Request}, {"investigated", s.Investigated}, {"learned", s.Learned},
		{"completed", s.Completed}, {"next steps", s.NextSteps},
	} {
		if part.text != "" {
			fmt.Fprintf(out, "  %s:\n    %s\n", part.name, strings.ReplaceAll(part.text, "\n", "\n    "))
		}
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
		return nil, r.unreachable(err)
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
			return nil, &apiError{status: resp.StatusCode, msg: e.Error}
		}
		return nil, &apiError{status: resp.StatusCode, msg: fmt.Sprintf("the worker answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	return out, nil
}

// isTTY reports whether w is a terminal (colours on).
func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// searchMemories is `mneme search --type memory`: the memories matching
// the words, of every state (GET /api/memories?q=…), each with who said
// it and its state.
func searchMemories(g *globals, code *int, out io.Writer, q url.Values, project, mode string, asJSON bool) error {
	q.Set("state", "all")
	if project != "" {
		q.Set("project", project)
	}
	if mode != "" {
		q.Set("mode", mode)
	}
	page, done, err := listPage[models.Memory](g, code, out, "/api/memories?"+q.Encode(), asJSON, "No matches.")
	if done || err != nil {
		return err
	}
	for _, m := range page.Items {
		printMemory(out, m, project == "")
	}
	fmt.Fprintln(out, "Only current memories are in force. Open one in full: mneme show m<id>")
	return nil
}

// listPage asks the worker for a page of T at path. With asJSON it
// prints the API's JSON as it came; an empty page prints empty and exits
// exitNotFound. done tells the caller that nothing is left to print.
func listPage[T any](g *globals, code *int, out io.Writer, path string, asJSON bool, empty string) (page api.Page[T], done bool, err error) {
	body, err := apiGet(g, path)
	if err != nil {
		return page, true, err
	}
	if asJSON {
		_, err := out.Write(body)
		return page, true, err
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return page, true, err
	}
	if len(page.Items) == 0 {
		fmt.Fprintln(out, empty)
		*code = exitNotFound
		return page, true, nil
	}
	return page, false, nil
}
