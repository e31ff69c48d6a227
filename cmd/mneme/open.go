package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/api"
)

// openCmd is `mneme open`: the viewer, logged in, through a one-time link
// asked for over the socket (starting the worker first if none runs).
func openCmd(g *globals, _ *int) *cobra.Command {
	var printOnly bool
	cmd := &cobra.Command{
		Use:   "open",
		Short: "Open the viewer in the browser, logged in (a one-time link)",
		Long: `Ask the worker, over its socket, for a one-time login link (valid for two
minutes, once) and open it with xdg-open (open on macOS). The browser then
keeps a login cookie. On Windows the link goes to the URL handler
(rundll32 url.dll,FileProtocolHandler). The worker is started first when
none runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := loginLink(g)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), u)
			if printOnly {
				return nil
			}
			name, args := browserOpener(u)
			c := exec.Command(name, args...)
			if err := c.Start(); err != nil {
				return fmt.Errorf("%s: %w (open the link above by hand)", name, err)
			}
			go c.Wait()
			return nil
		},
	}
	cmd.Flags().BoolVar(&printOnly, "print", false, "only print the link")
	return cmd
}

// loginLink asks the worker for a one-time login link and returns its URL.
func loginLink(g *globals) (string, error) {
	r := g.remote()
	var link api.LoginLink
	err := g.withWorker(r, 10*time.Second, func() (err error) {
		link, err = requestLink(r)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("no login link from the worker %s: %w", r.where, err)
	}
	switch {
	case r.token != "":
		return r.base + link.Path, nil
	case link.URL != "":
		return link.URL, nil // the worker's own address, whatever --port says
	}
	return g.viewerURL() + link.Path, nil
}

func requestLink(r remote) (api.LoginLink, error) {
	var link api.LoginLink
	req, err := http.NewRequest(http.MethodPost, r.base+"/api/login-links", nil)
	if err != nil {
		return link, err
	}
	r.authorize(req)
	resp, err := r.client(5 * time.Second).Do(req)
	if err != nil {
		return link, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return link, fmt.Errorf("worker answered %d: %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &link); err != nil || link.Path == "" {
		return link, fmt.Errorf("unexpected answer: %s", body)
	}
	return link, nil
}
