package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	reports "github.com/mneme-dev/mneme/internal/report"
)

// exportCmd is `mneme export`: a session report, or a project's sessions
// since a date, fetched from the worker's export API (the same function
// serves the download button) and streamed to a file or stdout.
func exportCmd(g *globals, code *int) *cobra.Command {
	var session, format, out, project, since string
	var all bool
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a session report as Markdown, JSON or self-contained HTML",
		Example: `  mneme export --session f0373ac4-95a4-4996-a7f7-2576f5e8c9ca --format html --out report.html
  mneme export --project notes-app --since 2026-01-01 --out notes-app.md
  mneme export --all --out mneme-everything.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all {
				if session != "" || project != "" || (format != "md" && format != "json") {
					return errors.New("--all exports everything as JSON: give no --session, --project or --format")
				}
				return runExport(g, "/api/export/all", out, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			f, err := reports.ParseFormat(format)
			if err != nil {
				return usagef("--format must be md, json or html")
			}
			q := url.Values{"format": {f}}
			var path string
			switch {
			case session != "" && project != "":
				return usagef("give either --session or --project, not both")
			case session != "":
				path = "/api/sessions/" + url.PathEscape(session) + "/export?" + q.Encode()
				err := runExport(g, path, out, cmd.OutOrStdout(), cmd.ErrOrStderr())
				if errors.Is(err, errExportNotFound) {
					return fmt.Errorf("no session %q in memory (give mneme's number or Claude Code's session id): list the sessions on the viewer's Sessions page (`mneme open`), or find one with `mneme search WORDS`, which prints each hit's session", session)
				}
				return err
			case project != "":
				if since == "" {
					return errors.New("--project needs --since DATE (e.g. --since 2026-01-31)")
				}
				q.Set("project", project)
				q.Set("since", since)
				path = "/api/export?" + q.Encode()
			default:
				return usagef("give --session ID or --project NAME --since DATE")
			}
			return runExport(g, path, out, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "everything: every session with its prompts, observations and summaries, as JSON (the README's full export format, read back by mneme import)")
	cmd.Flags().StringVar(&session, "session", "", "session to export: Claude Code's session id or mneme's numeric id")
	cmd.Flags().StringVar(&format, "format", "md", "md, json or html")
	cmd.Flags().StringVar(&out, "out", "", "file to write (a directory: the suggested file name inside it); default stdout")
	cmd.Flags().StringVar(&project, "project", "", "export every session of this project started since --since")
	cmd.Flags().StringVar(&since, "since", "", "with --project: first day (YYYY-MM-DD)")
	return cmd
}

// errExportNotFound is the worker's 404 to an export: what was asked for
// is not in memory.
var errExportNotFound = errors.New("not found")

func runExport(g *globals, path, out string, stdout, stderr io.Writer) error {
	out, n, err := fetchTo(g, path, out, stdout, stderr)
	if err == nil && out != "" {
		fmt.Fprintf(stderr, "wrote %s (%d bytes)\n", out, n)
	}
	return err
}

// fetchTo streams the worker's answer to GET path into the file out (mode
// 0600; a directory: the suggested file name inside it), or to stdout
// when out is "" or "-", with a progress bar on a terminal. It returns
// the file written ("" for stdout) and its size.
func fetchTo(g *globals, path, out string, stdout, stderr io.Writer) (string, int64, error) {
	r := g.remote()
	req, err := http.NewRequest(http.MethodGet, r.base+path, nil)
	if err != nil {
		return "", 0, err
	}
	r.authorize(req)
	// No overall timeout: a large report streams for as long as it takes;
	// connecting and the first byte are bounded (remote's transport).
	resp, err := r.client(0).Do(req)
	if err != nil {
		return "", 0, r.unreachable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		msg := fmt.Sprintf("worker answered %d", resp.StatusCode)
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if resp.StatusCode == http.StatusNotFound {
			return "", 0, fmt.Errorf("%w: %s", errExportNotFound, msg)
		}
		return "", 0, errors.New(msg)
	}

	var w io.Writer = stdout
	var file *os.File
	if out != "" && out != "-" {
		if st, err := os.Stat(out); err == nil && st.IsDir() {
			out = filepath.Join(out, suggestedName(resp))
		}
		file, err = os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return "", 0, err
		}
		w = file
	} else {
		out = ""
	}
	var bar *progressbar.ProgressBar
	if isTTY(stderr) && file != nil {
		bar = progressbar.NewOptions64(resp.ContentLength,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("exporting"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		w = io.MultiWriter(w, bar)
	}
	n, err := io.Copy(w, resp.Body)
	if bar != nil {
		bar.Finish() // clears its line before anything else is printed
	}
	if file != nil {
		if err == nil {
			err = file.Sync()
		}
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return out, n, fmt.Errorf("export interrupted after %d bytes: %w", n, err)
	}
	return out, n, nil
}

// suggestedName is the file name the worker suggests in
// Content-Disposition, reduced to a base name.
func suggestedName(resp *http.Response) string {
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Disposition")); err == nil && params["filename"] != "" {
		return filepath.Base(params["filename"])
	}
	return "mneme-report"
}
