package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/models"
)

// tokenCmd is `mneme token`: team mode's per-person API tokens, made,
// listed and revoked by the worker's owner. The worker does it (POST, GET
// and DELETE /api/tokens), reached over its socket, or at MNEME_URL with
// the worker's secret; a person's token is refused there.
func tokenCmd(g *globals, code *int) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Make, list and revoke the API tokens of the people of a team worker",
		Long: `A team worker (several people, one database) takes each person's events with their own API
token: the sessions they capture record who they are, and the viewer filters by person. A token
sends hook events and reads memory; it cannot change settings, forget, back up or manage tokens.
Only its SHA-256 is stored: it is shown once, when it is made.`,
		Example: `  mneme token create --person alice
  mneme token list
  mneme token revoke 3`,
	}
	var person string
	create := &cobra.Command{
		Use:   "create --person NAME",
		Short: "Make a token for a person and print it, once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTokenCreate(g, code, person, cmd.OutOrStdout())
		},
	}
	create.Flags().StringVar(&person, "person", "", "who the token is for (recorded on the sessions it captures)")
	create.MarkFlagRequired("person")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the tokens: id, person, prefix, dates (never a token)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTokenList(g, code, cmd.OutOrStdout())
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token at once (its id from `mneme token list`)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTokenRevoke(g, code, args[0], cmd.OutOrStdout())
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// tokenCall is one call of the token API, starting the local worker when
// none runs.
func tokenCall(g *globals, method, path string, body []byte) ([]byte, error) {
	var out []byte
	err := g.withWorker(g.remote(), 10*time.Second, func() (err error) {
		out, err = apiCall(g, method, path, body, 10*time.Second)
		return err
	})
	return out, err
}

func runTokenCreate(g *globals, code *int, person string, out io.Writer) error {
	if _, err := models.CleanPerson(person); err != nil {
		*code = exitUsage
		return errors.New("--person: a name of 1 to 64 characters without control characters")
	}
	body, _ := json.Marshal(map[string]string{"person": person})
	res, err := tokenCall(g, http.MethodPost, "/api/tokens", body)
	if err != nil {
		return err
	}
	var t api.CreatedToken
	if err := json.Unmarshal(res, &t); err != nil {
		return err
	}
	fmt.Fprintf(out, "Token %d for %s (%s…). It is shown this once: only its hash is stored.\n\n", t.ID, t.Person, t.Prefix)
	fmt.Fprintf(out, "On %s's machine, in the environment of Claude Code (hooks) and of mneme:\n\n", t.Person)
	fmt.Fprintf(out, "  export MNEME_URL=%s\n  export MNEME_TOKEN=%s\n\n", teamURL(g), t.Token)
	if os.Getenv(EnvURL) == "" {
		// The Host check (DNS rebinding) accepts loopback names, and the
		// names the worker was started with --allowed-host.
		fmt.Fprintf(out, "People reach the worker by a name it must answer to: start it with --allowed-host NAME\n"+
			"(MNEME_ALLOWED_HOSTS) and --host 0.0.0.0, or put a TLS proxy in front (docs/team.md).\n\n")
	}
	fmt.Fprintf(out, "`mneme token revoke %d` stops it at once.\n", t.ID)
	return nil
}

// teamURL is the address people reach this worker at: MNEME_URL when the
// CLI talks to a remote worker, else this machine's name and the port
// (the worker must then listen beyond loopback: MNEME_HOST).
func teamURL(g *globals) string {
	if u := strings.TrimRight(os.Getenv(EnvURL), "/"); u != "" {
		return u
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "THIS-HOST"
	}
	return "http://" + host + ":" + strconv.Itoa(g.port)
}

func runTokenList(g *globals, code *int, out io.Writer) error {
	res, err := tokenCall(g, http.MethodGet, "/api/tokens", nil)
	if err != nil {
		return err
	}
	var page api.Page[models.APIToken]
	if err := json.Unmarshal(res, &page); err != nil {
		return err
	}
	if len(page.Items) == 0 {
		fmt.Fprintln(out, "No tokens: `mneme token create --person NAME` makes one.")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPERSON\tTOKEN\tCREATED\tLAST USED\tREVOKED")
	for _, t := range page.Items {
		fmt.Fprintf(tw, "%d\t%s\t%s…\t%s\t%s\t%s\n", t.ID, t.Person, t.Prefix, day(&t.CreatedAt), day(t.LastUsedAt), day(t.RevokedAt))
	}
	return tw.Flush()
}

// day is a time as the list shows it, "-" for none.
func day(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return stamp(*t)
}

func runTokenRevoke(g *globals, code *int, arg string, out io.Writer) error {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		*code = exitUsage
		return errors.New("give the token's id, as `mneme token list` shows it")
	}
	res, err := tokenCall(g, http.MethodDelete, "/api/tokens/"+strconv.FormatInt(id, 10), nil)
	if err != nil {
		return err
	}
	var t models.APIToken
	if err := json.Unmarshal(res, &t); err != nil {
		return err
	}
	fmt.Fprintf(out, "Token %d of %s (%s…) revoked %s: it is refused from now on.\n", t.ID, t.Person, t.Prefix, day(t.RevokedAt))
	return nil
}
