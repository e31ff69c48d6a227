package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/commands"
	"github.com/mneme-dev/mneme/internal/api"
	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/models"
)

// doctorCmd is `mneme doctor`: one plain line per check, and under each
// problem a line saying how to fix it. It exits 0 only when all is well.
// It talks to nothing but this machine's worker (its socket and its
// loopback port) and the binaries Claude Code runs (`--version`).
func doctorCmd(g *globals, code *int) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check mneme's install: the binaries Claude Code runs, hooks, MCP server, worker, permissions, spool, endpoints, database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := &doctor{g: g, out: cmd.OutOrStdout()}
			d.home, _ = os.UserHomeDir()
			d.cwd, _ = os.Getwd()
			d.run()
			if d.problems > 0 {
				fmt.Fprintf(d.out, "%s: see the fix under each\n", plural(d.problems, "problem"))
				*code = exitNotFound
			} else {
				fmt.Fprintln(d.out, "all is well")
			}
			return nil
		},
	}
}

type doctor struct {
	g         *globals
	out       io.Writer
	home, cwd string
	problems  int

	health   *api.Health      // the worker's, over the socket; nil when down
	settings *models.Settings // the worker's settings; nil when unknown
}

// ok reports a check that passed.
func (d *doctor) ok(check, format string, a ...any) {
	fmt.Fprintf(d.out, "ok    %-14s %s\n", check+":", fmt.Sprintf(format, a...))
}

// fail reports a problem and how to fix it.
func (d *doctor) fail(check, problem, fix string) {
	d.problems++
	fmt.Fprintf(d.out, "FAIL  %-14s %s\n", check+":", problem)
	fmt.Fprintf(d.out, "      fix: %s\n", fix)
}

func (d *doctor) run() {
	fmt.Fprintf(d.out, "mneme %s, %s/%s, data directory %s\n", version, runtime.GOOS, runtime.GOARCH, d.g.dataDir)
	w := d.wiring()
	d.checkWiring(w)
	d.checkBinaries(w)
	d.checkWorker()
	d.checkPrivate()
	d.checkSpool()
	d.checkEndpoints()
	d.checkDatabase()
}

// scope is where Claude Code reads a part of mneme's wiring from.
type scope struct {
	name string // "user", "project", "plugin mneme@…"
	path string // the file that holds it
}

// wiring is what Claude Code is told to run: mneme's hooks (by scope,
// each event's command), its MCP server and /mem-search, and the
// plugin's install when the mneme plugin is enabled.
type wiring struct {
	hooks     []scopeHooks
	mcp       []scopeMCP
	memSearch []scope
	plugin    *pluginInstall
	errs      []string // files that could not be read
}

type scopeHooks struct {
	scope
	commands map[string]string // event → command
}

type scopeMCP struct {
	scope
	entry map[string]any
}

type pluginInstall struct {
	key  string // mneme@<marketplace>
	path string // its install directory, "" when not found
}

// wiring reads Claude Code's settings as `mneme install` writes them:
// hooks in ~/.claude/settings.json and the project's .claude/settings.json,
// the MCP server in ~/.claude.json (user scope, and the project's local
// scope in it) and the project's .mcp.json, /mem-search in the commands
// directory beside each; and the mneme plugin when enabled.
func (d *doctor) wiring() wiring {
	var w wiring
	read := func(path string) map[string]any {
		m, _, err := readSettings(path)
		if err != nil {
			w.errs = append(w.errs, err.Error())
			return nil
		}
		return m
	}
	bases := []struct {
		name, base string
		project    bool
	}{{"user", d.home, false}, {"project", d.cwd, true}}
	for _, b := range bases {
		if b.base == "" || b.project && b.base == d.home {
			continue
		}
		path := filepath.Join(b.base, ".claude", "settings.json")
		settings := read(path)
		if cmds := mnemeHookCommands(settings); len(cmds) > 0 {
			w.hooks = append(w.hooks, scopeHooks{scope{b.name, path}, cmds})
		}
		if key := enabledMnemePlugin(settings); key != "" && w.plugin == nil {
			w.plugin = &pluginInstall{key: key, path: d.pluginPath(key)}
		}
		t := claudeTargetsFor(b.base, b.project)
		servers, _ := read(t.mcpConfig)["mcpServers"].(map[string]any)
		if e, ok := servers[mcpServerName].(map[string]any); ok {
			w.mcp = append(w.mcp, scopeMCP{scope{b.name, t.mcpConfig}, e})
		}
		if !b.project {
			// `claude mcp add` (local scope) keeps the server under
			// the project's entry in ~/.claude.json.
			projects, _ := read(t.mcpConfig)["projects"].(map[string]any)
			p, _ := projects[d.cwd].(map[string]any)
			local, _ := p["mcpServers"].(map[string]any)
			if e, ok := local[mcpServerName].(map[string]any); ok && d.cwd != "" {
				w.mcp = append(w.mcp, scopeMCP{scope{"local", t.mcpConfig}, e})
			}
		}
		cmdPath := filepath.Join(t.commandsDir, commands.MemSearchName)
		if text, err := os.ReadFile(cmdPath); err == nil && isMnemeCommand(text) {
			w.memSearch = append(w.memSearch, scope{b.name, cmdPath})
		}
	}
	return w
}

// mnemeHookCommands are the commands of mneme's hooks in settings, by
// event (the first of each).
func mnemeHookCommands(settings map[string]any) map[string]string {
	out := map[string]string{}
	hooksMap, _ := settings["hooks"].(map[string]any)
	for event, v := range hooksMap {
		groups, _ := v.([]any)
		for _, gv := range groups {
			group, _ := gv.(map[string]any)
			inner, _ := group["hooks"].([]any)
			for _, hv := range inner {
				h, _ := hv.(map[string]any)
				if cmd, _ := h["command"].(string); isMnemeHook(cmd) && out[event] == "" {
					out[event] = cmd
				}
			}
		}
	}
	return out
}

// enabledMnemePlugin is the key (mneme@<marketplace>) of the mneme plugin
// when settings enable it, else "".
func enabledMnemePlugin(settings map[string]any) string {
	enabled, _ := settings["enabledPlugins"].(map[string]any)
	var keys []string
	for k, v := range enabled {
		if on, _ := v.(bool); on && strings.HasPrefix(k, "mneme@") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// pluginPath is where Claude Code installed the plugin key, from
// ~/.claude/plugins/installed_plugins.json (its entries are a list per
// plugin, or one object in the older format); "" when not found.
func (d *doctor) pluginPath(key string) string {
	raw, err := os.ReadFile(filepath.Join(d.home, ".claude", "plugins", "installed_plugins.json"))
	if err != nil {
		return ""
	}
	var doc struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return ""
	}
	type entry struct {
		InstallPath string `json:"installPath"`
	}
	var list []entry
	if json.Unmarshal(doc.Plugins[key], &list) != nil {
		var one entry
		if json.Unmarshal(doc.Plugins[key], &one) != nil {
			return ""
		}
		list = []entry{one}
	}
	for _, e := range list {
		if e.InstallPath != "" {
			return e.InstallPath
		}
	}
	return ""
}

// installFix says how to install mneme's wiring into Claude Code.
const installFix = "run `mneme install` (user scope; `mneme install --project` for this project only), or install the plugin: `/plugin install mneme --marketplace mneme-dev/mneme` in Claude Code"

func (d *doctor) checkWiring(w wiring) {
	for _, e := range w.errs {
		d.fail("settings", e, "fix the file's JSON by hand (Claude Code cannot read it either), then run `mneme install`")
	}
	var complete []string
	for _, s := range w.hooks {
		var missing []string
		for _, spec := range mnemeHooks {
			if s.commands[spec.Event] == "" {
				missing = append(missing, spec.Event)
			}
		}
		if len(missing) > 0 {
			d.fail("hooks", fmt.Sprintf("%s has mneme's hooks for only some events, none for %s", s.path, strings.Join(missing, ", ")), "run `mneme install` again (add --project for "+filepath.Join(".claude", "settings.json")+"): it rewrites all of them")
			continue
		}
		complete = append(complete, s.path)
	}
	switch {
	case len(complete) > 0:
		d.ok("hooks", "all %d events, in %s", len(mnemeHooks), strings.Join(complete, " and "))
	case w.plugin != nil:
		d.ok("hooks", "from the plugin %s (%s)", w.plugin.key, orUnknown(w.plugin.path))
	case len(w.hooks) == 0:
		d.fail("hooks", fmt.Sprintf("not installed: none in %s, nor in this project's .claude/settings.json, nor an enabled mneme plugin", filepath.Join(d.home, ".claude", "settings.json")), installFix)
	}

	switch {
	case len(w.mcp) > 0:
		var where []string
		for _, s := range w.mcp {
			where = append(where, s.path+" ("+s.name+")")
		}
		d.ok("MCP server", "%q registered in %s", mcpServerName, strings.Join(where, " and "))
	case w.plugin != nil:
		d.ok("MCP server", "from the plugin %s", w.plugin.key)
	default:
		d.fail("MCP server", fmt.Sprintf("not registered: no %q server in %s nor .mcp.json", mcpServerName, filepath.Join(d.home, ".claude.json")), installFix)
	}

	switch {
	case len(w.memSearch) > 0:
		var where []string
		for _, s := range w.memSearch {
			where = append(where, s.path)
		}
		d.ok("/mem-search", "%s", strings.Join(where, " and "))
	case w.plugin != nil:
		d.ok("/mem-search", "from the plugin %s", w.plugin.key)
	default:
		d.fail("/mem-search", fmt.Sprintf("not installed in %s", filepath.Join(d.home, ".claude", "commands")), installFix)
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "install directory unknown"
	}
	return s
}

// runs is a binary Claude Code runs, and for what.
type runs struct {
	path string
	what string
}

// checkBinaries runs `--version` on every binary Claude Code runs for
// mneme and compares it with this binary's.
func (d *doctor) checkBinaries(w wiring) {
	var bins []runs
	seen := map[string]bool{}
	add := func(path, what string) {
		if path != "" && !seen[path] {
			seen[path] = true
			bins = append(bins, runs{path, what})
		}
	}
	for _, s := range w.hooks {
		for _, spec := range mnemeHooks {
			if f := shellFields(s.commands[spec.Event]); len(f) > 0 {
				add(f[0], "hooks ("+s.name+")")
			}
		}
	}
	for _, s := range w.mcp {
		if isMnemeServer(s.entry) {
			cmd, _ := s.entry["command"].(string)
			add(cmd, "MCP server ("+s.name+")")
		}
	}
	if p := w.plugin; p != nil && p.path != "" {
		for _, name := range []string{hookBinName, "mneme"} {
			bin := filepath.Join(p.path, "bin", name)
			if runtime.GOOS == "windows" {
				bin += ".exe"
			}
			if _, err := os.Stat(bin); err == nil {
				add(bin, "plugin "+p.key)
			} else if onPath, err := exec.LookPath(name); err == nil {
				add(onPath, "plugin "+p.key+" (its bin/ is empty: from PATH)")
			}
		}
	}
	if len(bins) == 0 {
		return // nothing installed: said above
	}
	for _, b := range bins {
		v, err := binaryVersion(b.path)
		switch {
		case err != nil:
			d.fail("binaries", fmt.Sprintf("%s, which the %s run, %v", b.path, b.what, err), "run `mneme install` with the mneme you mean to use (the hooks then run it and the mneme-hook beside it)")
		case v != version && strings.HasPrefix(b.what, "plugin"):
			d.fail("binaries", fmt.Sprintf("%s, which the %s run, is version %s; this mneme is %s", b.path, b.what, v, version),
				"make them one version: update the plugin (`/plugin update mneme` in Claude Code) or this mneme (`go install github.com/mneme-dev/mneme/cmd/...@latest`); the plugin's own `bin/mneme doctor` checks with its version")
		case v != version:
			d.fail("binaries", fmt.Sprintf("%s, which the %s run, is version %s; this mneme is %s", b.path, b.what, v, version),
				"install one version of both binaries (`go install github.com/mneme-dev/mneme/cmd/...@latest`, or `make build`), then run `mneme install` with it")
		default:
			d.ok("binaries", "%s (%s), version %s", b.path, b.what, v)
		}
	}
}

// binaryVersion runs `path --version` and reads the version from its
// first line ("mneme version X", "mneme-hook version X").
func binaryVersion(path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errors.New("does not exist")
		}
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	line, _, _ := strings.Cut(string(out), "\n")
	fields := strings.Fields(line)
	if err != nil || len(fields) < 3 || fields[len(fields)-2] != "version" {
		if err == nil {
			err = fmt.Errorf("printed %q", line)
		}
		return "", fmt.Errorf("cannot tell its version (`--version`: %v)", err)
	}
	return fields[len(fields)-1], nil
}

// checkWorker asks the worker for its health over its socket (or
// MNEME_URL's worker), then its loopback port for the viewer.
func (d *doctor) checkWorker() {
	r := d.g.remote()
	req, err := http.NewRequest(http.MethodGet, r.base+"/api/health", nil)
	if err != nil {
		d.fail("worker", err.Error(), "check MNEME_URL")
		return
	}
	r.authorize(req)
	resp, err := r.client(3 * time.Second).Do(req)
	var h api.Health
	switch {
	case err != nil:
		d.fail("worker", fmt.Sprintf("does not answer %s (%v)", r.where, shortErr(err)),
			fmt.Sprintf("start it with `mneme serve` (a hook starts it by itself on the next event); if it will not start, read %s", filepath.Join(d.g.dataDir, "logs", "mneme.log")))
		return
	default:
		defer resp.Body.Close()
		if json.NewDecoder(resp.Body).Decode(&h) != nil || h.Service != "mneme" {
			d.fail("worker", "something answers "+r.where+", but not as mneme", "stop what listens there; mneme's worker makes its socket anew at its start (`mneme serve`)")
			return
		}
		if h.PID == 0 {
			d.fail("worker", "answers "+r.where+" but refuses MNEME_TOKEN", "set MNEME_TOKEN to the worker's secret (or a person's token from `mneme token create`)")
			return
		}
	}
	d.health = &h
	if h.Problem != "" {
		d.fail("worker", fmt.Sprintf("pid %d, version %s, answers %s but is degraded: %s", h.PID, h.Version, r.where, h.Problem),
			"see "+filepath.Join(d.g.dataDir, "logs", "mneme.log")+"; the problem's text says what the worker needs")
	} else if h.Version != version {
		d.fail("worker", fmt.Sprintf("pid %d answers %s with version %s; this mneme is %s", h.PID, r.where, h.Version, version),
			fmt.Sprintf("restart the worker so that the installed mneme runs: stop pid %d; the next hook starts it again", h.PID))
	} else {
		d.ok("worker", "pid %d, version %s, answers %s", h.PID, h.Version, r.where)
	}
	if r.token == "" {
		d.checkPort()
	}
	// The settings, for the endpoints' checks.
	if req, err := http.NewRequest(http.MethodGet, r.base+"/api/settings", nil); err == nil {
		r.authorize(req)
		if resp, err := r.client(3 * time.Second).Do(req); err == nil {
			defer resp.Body.Close()
			var st models.Settings
			if resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&st) == nil {
				d.settings = &st
			}
		}
	}
}

// checkPort asks the worker's loopback port, where the viewer is, for
// its public health.
func (d *doctor) checkPort() {
	url := d.g.viewerURL()
	c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := c.Get(url + "/api/health")
	if err != nil {
		d.fail("port", fmt.Sprintf("nothing answers %s, where the viewer should be (%v)", url, shortErr(err)),
			fmt.Sprintf("the worker runs with another port, or could not take %d: restart it (`mneme serve --port %d`) or set MNEME_PORT to its port", d.g.port, d.g.port))
		return
	}
	defer resp.Body.Close()
	var h api.PublicHealth
	if json.NewDecoder(resp.Body).Decode(&h) != nil || h.Service != "mneme" {
		d.fail("port", fmt.Sprintf("something else answers %s", url), fmt.Sprintf("stop what holds port %d, or run mneme on another (MNEME_PORT, then `mneme install` again)", d.g.port))
		return
	}
	d.ok("port", "the viewer answers at %s", url)
}

// shortErr is err without the URL an *url.Error repeats.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// checkPrivate checks the data directory and the secret are this user's
// alone.
func (d *doctor) checkPrivate() {
	dir := d.g.dataDir
	err := hookwire.CheckPrivateDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.fail("data dir", dir+" does not exist", "start the worker once (`mneme serve`, or any Claude Code session with the hooks installed): it makes it, private")
		return
	case err != nil:
		d.fail("data dir", err.Error(), privateFix(dir, true))
	default:
		d.ok("data dir", "%s, %s", dir, privateWord(true))
	}
	secret := filepath.Join(dir, hookwire.SecretFile)
	_, err = hookwire.ReadSecretFile(secret)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.ok("secret", "none yet (the worker makes %s at its first start)", secret)
	case err != nil:
		d.fail("secret", err.Error(), privateFix(secret, false))
	default:
		d.ok("secret", "%s, %s", secret, privateWord(false))
	}
}

func privateWord(dir bool) string {
	switch {
	case runtime.GOOS == "windows":
		return "yours alone (ACL)"
	case dir:
		return "mode 0700"
	}
	return "mode 0600"
}

func privateFix(path string, dir bool) string {
	switch {
	case runtime.GOOS == "windows" && dir:
		return "icacls \"" + path + "\" /inheritance:r /grant:r \"%USERNAME%:(OI)(CI)F\" (only you), then restart the worker"
	case runtime.GOOS == "windows":
		return "delete " + path + " and restart the worker: it makes a new private one (log in to the viewer again)"
	case dir:
		return "chmod 700 " + shellQuote(path)
	}
	return "chmod 600 " + shellQuote(path) + " (anyone who read it can log in to the viewer: delete it instead and restart the worker for a new one)"
}

func (d *doctor) checkSpool() {
	waiting, q := d.g.spoolState()
	if q.Events > 0 {
		d.fail("spool", q.Message, "read the reason at the top of each file in "+strings.Join(q.Dirs, " and ")+
			" (and the worker's log); the events are never replayed: delete the files once read")
	}
	switch {
	case waiting > 0 && d.health == nil:
		d.ok("spool", "%s waiting to be replayed when the worker runs again", plural(waiting, "event"))
	case waiting > 0:
		d.ok("spool", "%s waiting to be replayed by the next hook", plural(waiting, "event"))
	case q.Events == 0:
		d.ok("spool", "empty, nothing set aside")
	}
}

// checkEndpoints says what the worker knows of its embeddings and
// summarizer endpoints; it calls neither.
func (d *doctor) checkEndpoints() {
	if d.health == nil {
		d.ok("embeddings", "not checked: the worker is down")
		d.ok("summarizer", "not checked: the worker is down")
		return
	}
	e := d.health.Embeddings
	url := ""
	if d.settings != nil {
		url = d.settings.Embeddings.URL
	}
	switch {
	case e.State == "" || e.State == "off":
		d.ok("embeddings", "off (search is full-text)")
	case e.State == "error" || e.LastError != "":
		d.fail("embeddings", fmt.Sprintf("the endpoint %s fails: %s", orUnknown(url), orUnknown(e.LastError)),
			"start the embeddings server, or fix or clear its address in the viewer's Settings (Semantic search); search stays full-text meanwhile")
	default:
		d.ok("embeddings", "%s", embeddingsLine(e))
	}
	if d.settings == nil {
		d.ok("summarizer", "not checked: the worker did not give its settings")
		return
	}
	s := d.settings.Summarizer
	switch s.Kind {
	case "claude-cli":
		if bin, err := exec.LookPath(s.ClaudePath); err != nil {
			d.fail("summarizer", fmt.Sprintf("claude-cli, but %q is not found here (%v)", s.ClaudePath, err),
				"install Claude Code, or set the summarizer's claude path in the viewer's Settings (or pick heuristic)")
		} else {
			d.ok("summarizer", "claude-cli, %s, model %s", bin, s.Model)
		}
	case "anthropic-api":
		if s.APIKey == "" {
			d.fail("summarizer", "anthropic-api without an API key", "set the API key in the viewer's Settings (Summaries), or pick heuristic")
		} else {
			d.ok("summarizer", "anthropic-api, model %s, endpoint %s (not contacted)", s.Model, orDefault(s.BaseURL))
		}
	default:
		d.ok("summarizer", "%s (no endpoint)", s.Kind)
	}
}

func orDefault(s string) string {
	if s == "" {
		return "the default"
	}
	return s
}

// checkDatabase runs PRAGMA quick_check on the SQLite database, read-only
// (the worker may run meanwhile); a PostgreSQL one checks itself.
func (d *doctor) checkDatabase() {
	if os.Getenv(EnvURL) != "" {
		d.ok("database", "the remote worker's (MNEME_URL): not checked from here")
		return
	}
	if h := d.health; h != nil && h.Backend == "postgres" || d.health == nil && os.Getenv("MNEME_DATABASE_URL") != "" {
		d.ok("database", "PostgreSQL: not checked here (its server checks its pages)")
		return
	}
	path := filepath.Join(d.g.dataDir, "mneme.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		d.ok("database", "none yet (%s is made at the worker's first start)", path)
		return
	}
	res, err := models.QuickCheck(path)
	switch {
	case err != nil:
		d.fail("database", fmt.Sprintf("%s cannot be checked: %v", path, err), "see "+filepath.Join(d.g.dataDir, "logs", "mneme.log")+"; restore a backup (`mneme restore FILE`) if it is damaged")
	case res != "ok":
		d.fail("database", fmt.Sprintf("%s is damaged (quick_check: %s)", path, res),
			"stop the worker and restore a backup (`mneme restore FILE`); without one, `mneme export --all` what can still be read")
	default:
		d.ok("database", "%s, quick_check ok (%s)", path, sizeOf(path))
	}
}

func sizeOf(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return "size unknown"
	}
	return strconv.FormatFloat(float64(info.Size())/(1<<20), 'f', 1, 64) + " MB"
}
