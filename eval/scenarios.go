//go:build unix

package eval

import (
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/e2e"
)

// Scenarios are the benchmark's scenarios, in table order.
func Scenarios() []Scenario {
	return []Scenario{goTestFix(), fixedByAnotherCommand(), configDecision(), renamedFiles(), commands(), longNoisy(), twoProjects(), tightBudget(),
		constraintInPrompt(), testStillFailing(), factInOutput()}
}

// Dir stands for the project's directory in step inputs.
const Dir = "{{dir}}"

func bash(cmd string) e2e.Step {
	return e2e.ToolUse("Bash", map[string]any{"command": cmd, "description": "run " + strings.Fields(cmd)[0]})
}

func write(path, content string) e2e.Step {
	return e2e.ToolUse("Write", map[string]any{"file_path": Dir + "/" + path, "content": content})
}

func edit(path, old, repl string) e2e.Step {
	return e2e.ToolUse("Edit", map[string]any{"file_path": Dir + "/" + path, "old_string": old, "new_string": repl})
}

// StepsIn returns steps with Dir replaced by dir in every string input.
func StepsIn(steps []e2e.Step, dir string) []e2e.Step {
	out := make([]e2e.Step, len(steps))
	for i, s := range steps {
		out[i] = s
		if s.Input == nil {
			continue
		}
		in := make(map[string]any, len(s.Input))
		for k, v := range s.Input {
			if str, ok := v.(string); ok {
				v = strings.ReplaceAll(str, Dir, dir)
			}
			in[k] = v
		}
		out[i].Input = in
	}
	return out
}

// A Go package whose test fails, is fixed, and a later session that adds
// something else and leaves a next step.
func goTestFix() Scenario {
	return Scenario{
		Name:  "go test fails, then fixed",
		Files: map[string]map[string]string{"calc": {"go.mod": "module calc\n\ngo 1.22\n"}},
		Sessions: []Session{{
			Project: "calc",
			Prompt:  "Add a Percent(part, total int) function to the calc package, with a test.",
			Steps: []e2e.Step{
				write("calc.go", "package calc\n\n// Percent returns part as a percentage of total.\nfunc Percent(part, total int) int { return part / total * 100 }\n"),
				write("calc_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestPercent(t *testing.T) {\n\tif got := Percent(1, 4); got != 25 {\n\t\tt.Fatalf(\"Percent(1, 4) = %d, want 25\", got)\n\t}\n}\n"),
				bash("go test ./..."),
				edit("calc.go", "return part / total * 100", "return part * 100 / total"),
				bash("go test ./..."),
				e2e.Text("Done! `Percent` is implemented and tested.\n\n**Root cause of the first failure:** integer division — `part / total` truncated to 0 before the multiplication by 100. I reordered it to `part * 100 / total`.\n\n`go test ./...` passes now."),
			},
		}, {
			Project: "calc",
			Prompt:  "Add a Clamp(v, lo, hi int) helper next to Percent.",
			Steps: []e2e.Step{
				write("clamp.go", "package calc\n\n// Clamp limits v to [lo, hi].\nfunc Clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }\n"),
				bash("go vet ./..."),
				e2e.Text("Added Clamp in clamp.go; go vet is clean. Next step: add a table test for Clamp in clamp_test.go."),
			},
		}},
		Next: Session{Project: "calc", Prompt: "Continue where we left off on the calc package."},
		Facts: []Fact{
			{Name: "Percent lives in calc.go", All: []string{`calc\.go`}, Query: "Percent function"},
			{Name: "the Percent test failed, and passes since the fix",
				All:   []string{`(TestPercent|go test)[^\n]*fail`, `(TestPercent|go test)[^\n]*(fixed|passe[sd]|\bok\b)`},
				Query: "go test Percent"},
			{Name: "the cause was integer division", All: []string{`integer division`}, Query: "Percent bug cause"},
			{Name: "Clamp is in clamp.go", All: []string{`clamp\.go`}, Query: "Clamp helper"},
			{Name: "next: a test for Clamp", All: []string{`test for Clamp|Clamp[^\n]{0,40}test|clamp_test`}, Query: "Clamp test"},
			{Name: "go vet is clean", All: []string{`go vet`}, Query: "vet"},
		},
	}
}

// A build failure fixed and confirmed by a different command line, and a
// later failure that stays open: only the second is still a problem.
func fixedByAnotherCommand() Scenario {
	return Scenario{
		Name:  "fixed, confirmed by another command",
		Files: map[string]map[string]string{"parser": {"go.mod": "module parser\n\ngo 1.22\n"}},
		Sessions: []Session{{
			Project: "parser",
			Prompt:  "Make the parser build.",
			Steps: []e2e.Step{
				write("lexer.go", "package main\n\nfunc lex(s string) []string {\n\treturn nil\n\n"),
				write("main.go", "package main\n\nfunc main() { _ = lex(\"\") }\n"),
				bash("go build ./..."),
				edit("lexer.go", "\treturn nil\n\n", "\treturn nil\n}\n"),
				bash("go build -o bin/parser ."),
				e2e.Text("The parser builds: lexer.go was missing the closing brace of lex. The binary is bin/parser."),
			},
		}, {
			Project: "parser",
			Prompt:  "Print how many tokens there are.",
			Steps: []e2e.Step{
				write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Printf(\"%d tokens\\n\", lex(\"\")) }\n"),
				bash("go vet ./..."),
				e2e.Text("main.go prints the tokens, but go vet flags its Printf (%d given a []string); not fixed yet."),
			},
		}},
		Next: Session{Project: "parser", Prompt: "Continue with the parser."},
		Facts: []Fact{
			{Name: "the build broke on a missing brace in lexer.go", All: []string{`lexer\.go`, `brace`}, Query: "build failure"},
			{Name: "go vet fails on main.go's Printf, still open", All: []string{`go vet[^\n]*(fail|printf)|printf[^\n]*go vet`}, Query: "go vet"},
			{Name: "the binary is bin/parser", All: []string{`bin/parser`}, Query: "parser binary"},
			{Name: "main.go changed", All: []string{`main\.go`}, Query: "main.go"},
		},
		Wrong: []Fact{
			{Name: "go build is said to fail still", All: []string{"go build \\./\\.\\.\\.`?[^\\n]*(\\[FAILED\\]|still fails)|fix `go build \\./"}},
		},
	}
}

// A decision stated only in the assistant's final text, and files of the
// config loader; a later session works on something else.
func configDecision() Scenario {
	return Scenario{
		Name: "config decision in the final answer",
		Sessions: []Session{{
			Project: "webhookd",
			Prompt:  "Choose a config file format for webhookd and write the loader.",
			Steps: []e2e.Step{
				bash("ls -la"),
				write("config.toml", "# webhookd\nlisten = \":8086\"\nretry_limit = 5\n"),
				write("config.go", "package main\n\n// Config is webhookd's configuration, read from config.toml.\ntype Config struct {\n\tListen     string `toml:\"listen\"`\n\tRetryLimit int    `toml:\"retry_limit\"`\n}\n"),
				e2e.Text("I've set up the configuration for webhookd.\n\n## What changed\n- `config.toml`: the default configuration\n- `config.go`: the `Config` struct and its loader\n\n## Decisions\n- **Format:** TOML instead of YAML: comments are allowed and there are no indentation traps.\n- **Listen address:** `:8086`.\n- **Retries:** a delivery is retried at most 5 times, with backoff.\n- **Secret:** the signing secret comes from the `WEBHOOKD_SECRET` environment variable, never from the file.\n\nLet me know if the config path should be configurable too."),
			},
		}, {
			Project: "webhookd",
			Prompt:  "Add a /healthz endpoint.",
			Steps: []e2e.Step{
				write("health.go", "package main\n\nimport \"net/http\"\n\nfunc healthz(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }\n"),
				bash("grep -n healthz health.go"),
				e2e.Text("Added /healthz in health.go; it answers 200."),
			},
		}, {
			Project: "webhookd",
			Prompt:  "Write a short README.",
			Steps: []e2e.Step{
				write("README.md", "# webhookd\n\nDelivers webhooks with retries.\n"),
				e2e.Text("README.md written."),
			},
		}},
		Next: Session{Project: "webhookd", Prompt: "Add a config option for the delivery timeout."},
		Facts: []Fact{
			{Name: "config is TOML, not YAML", All: []string{`toml[^\n]{0,80}(instead of|rather than|over|not) yaml`}, Query: "config format"},
			{Name: "it listens on :8086", All: []string{`8086`}, Query: "listen port"},
			{Name: "a delivery is retried at most 5 times", All: []string{`retr[^\n]{0,40}\b5\b|\b5\b[^\n]{0,20}retr`}, Query: "retry limit"},
			{Name: "the secret comes from WEBHOOKD_SECRET", All: []string{`WEBHOOKD_SECRET`}, Query: "signing secret"},
			{Name: "the loader is config.go", All: []string{`config\.go`}, Query: "config loader"},
			{Name: "/healthz is in health.go", All: []string{`health\.go`}, Query: "healthz endpoint"},
		},
	}
}

// A file created, renamed in a later session, and changed again after.
func renamedFiles() Scenario {
	return Scenario{
		Name: "file created, renamed, changed",
		Sessions: []Session{{
			Project: "inventory",
			Prompt:  "Create the storage layer for inventory.",
			Steps: []e2e.Step{
				bash("mkdir -p store"),
				write("store/db.go", "package store\n\n// Open opens the inventory database.\nfunc Open(path string) error { return nil }\n"),
				write("store/db_test.go", "package store\n\nimport \"testing\"\n\nfunc TestOpen(t *testing.T) {}\n"),
				e2e.Text("The storage layer is in store/db.go, with a test in store/db_test.go."),
			},
		}, {
			Project: "inventory",
			Prompt:  "Rename store/db.go to store/sqlite.go and add schema migrations.",
			Steps: []e2e.Step{
				bash("mv store/db.go store/sqlite.go && mv store/db_test.go store/sqlite_test.go"),
				write("store/migrations.go", "package store\n\n// migrations run in order at Open.\nvar migrations = []string{\n\t\"CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT, qty INTEGER)\",\n}\n"),
				bash("ls store"),
				e2e.Text("Renamed store/db.go to store/sqlite.go (and its test to store/sqlite_test.go). Migrations are in store/migrations.go and run in order at Open."),
			},
		}, {
			Project: "inventory",
			Prompt:  "Add an index on sku.",
			Steps: []e2e.Step{
				edit("store/migrations.go", "qty INTEGER)\",\n", "qty INTEGER)\",\n\t\"CREATE INDEX idx_items_sku ON items(sku)\",\n"),
				e2e.Text("Added the idx_items_sku index as migration 2 in store/migrations.go."),
			},
		}},
		Next: Session{Project: "inventory", Prompt: "Add a supplier column to items."},
		Facts: []Fact{
			{Name: "storage is store/sqlite.go now", All: []string{`sqlite\.go`}, Query: "storage layer"},
			{Name: "it was renamed from store/db.go", All: []string{`db\.go[^\n]{0,40}(to|->|→)[^\n]{0,20}sqlite\.go`}, Query: "rename db.go"},
			{Name: "migrations are in store/migrations.go", All: []string{`migrations\.go`}, Query: "schema migrations"},
			{Name: "the sku index exists", All: []string{`sku`}, Query: "sku index"},
		},
	}
}

// Commands that failed and one that works, across two sessions.
func commands() Scenario {
	return Scenario{
		Name: "commands: which work, which fail",
		Sessions: []Session{{
			Project: "ledger",
			Prompt:  "Get the ledger build running.",
			Steps: []e2e.Step{
				bash("make build"),
				bash("./build.sh"),
				write("build.sh", "#!/bin/sh\nset -e\nmkdir -p dist\necho built > dist/ledger\necho build ok\n"),
				bash("sh build.sh"),
				e2e.Text("The build works with `sh build.sh`; it writes dist/ledger. There is no Makefile, so `make build` does not work."),
			},
		}, {
			Project: "ledger",
			Prompt:  "Lint the ledger scripts.",
			Steps: []e2e.Step{
				bash("ledger-lint --strict build.sh"),
				bash("sh -n build.sh"),
				e2e.Text("ledger-lint is not installed here; `sh -n build.sh` checks the syntax, and it passes. Install ledger-lint before setting up CI."),
			},
		}},
		Next: Session{Project: "ledger", Prompt: "Set up CI for ledger."},
		Facts: []Fact{
			{Name: "`sh build.sh` builds", All: []string{"sh build\\.sh"}, Query: "build command"},
			{Name: "`make build` fails: no Makefile", All: []string{"make build"}, Query: "make build"},
			{Name: "ledger-lint is not installed", All: []string{`ledger-lint[^\n]{0,80}(not (found|installed)|fail|127)|(not (found|installed)|fail)[^\n]{0,40}ledger-lint`}, Query: "ledger-lint"},
			{Name: "`sh -n build.sh` checks the syntax", All: []string{`sh -n build\.sh`}, Query: "syntax check"},
			{Name: "the build writes dist/ledger", All: []string{`dist/ledger`}, Query: "build output"},
		},
	}
}

// The key facts come first in a long session; a lot of routine work
// follows, in that session and the next.
func longNoisy() Scenario {
	s1 := []e2e.Step{
		bash("curl -sS --max-time 2 http://127.0.0.1:54329/health"),
		bash("echo 'ADR-007: the job queue is NATS JetStream, not Kafka (ops already run NATS)' >> DECISIONS.md"),
	}
	s2 := []e2e.Step{}
	for i := 1; i <= 24; i++ {
		f := fmt.Sprintf("fixtures/job_%02d.json", i)
		steps := []e2e.Step{
			write(f, fmt.Sprintf("{\"id\": %d, \"kind\": \"resize\", \"attempts\": 0}\n", i)),
			bash("grep -c resize " + f),
		}
		if i%3 == 0 {
			steps = append(steps, bash(fmt.Sprintf("ls fixtures | wc -l && echo batch %d", i/3)))
		}
		if i <= 12 {
			s1 = append(s1, steps...)
		} else {
			s2 = append(s2, steps...)
		}
	}
	s1 = append(s1, e2e.Text("Twelve job fixtures are in fixtures/."))
	s2 = append(s2, e2e.Text("Twenty-four fixtures now; every one has a kind."))
	return Scenario{
		Name: "long session, key facts early",
		Sessions: []Session{
			{Project: "pipeline", Prompt: "Set up the job pipeline: check the jobs service, pick the queue, write fixtures.", Steps: s1},
			{Project: "pipeline", Prompt: "Write twelve more job fixtures and check each.", Steps: s2},
		},
		Next: Session{Project: "pipeline", Prompt: "Wire the worker to the job queue."},
		Facts: []Fact{
			{Name: "the queue is NATS JetStream, not Kafka", All: []string{`nats`}, Query: "job queue"},
			{Name: "decisions are kept in DECISIONS.md", All: []string{`DECISIONS\.md`}, Query: "decisions"},
			{Name: "the jobs service on :54329 did not answer", All: []string{`54329`}, Query: "jobs service health"},
			{Name: "fixtures live in fixtures/", All: []string{`fixtures/`}, Query: "fixtures"},
		},
	}
}

// Two projects worked on in turns: the next session in one must not be
// told about the other.
func twoProjects() Scenario {
	return Scenario{
		Name: "two projects interleaved",
		Sessions: []Session{{
			Project: "api-gw",
			Prompt:  "Add rate limiting to the gateway.",
			Steps: []e2e.Step{
				write("ratelimit.go", "package gw\n\n// Bucket is a token bucket: 100 requests/s per API key.\ntype Bucket struct{ rate int }\n"),
				bash("grep -c Bucket ratelimit.go"),
				e2e.Text("Rate limiting is a token bucket of 100 requests/s per API key, in ratelimit.go."),
			},
		}, {
			Project: "billing",
			Prompt:  "Write the invoice rounding.",
			Steps: []e2e.Step{
				write("invoice.go", "package billing\n\n// Round rounds half-even to the cent.\nfunc Round(c float64) int64 { return int64(c) }\n"),
				bash("cat rates.csv"),
				e2e.Text("Invoice totals are rounded half-even in invoice.go; rates.csv is still missing."),
			},
		}, {
			Project: "api-gw",
			Prompt:  "Move the routes into a file.",
			Steps: []e2e.Step{
				bash("cat routes.yaml"),
				write("routes.yaml", "/v2/users: http://users:8080\n"),
				bash("cat routes.yaml"),
				e2e.Text("Routes now live in routes.yaml; /v2/users proxies to the users service on :8080."),
			},
		}, {
			Project: "billing",
			Prompt:  "Add refunds.",
			Steps: []e2e.Step{
				write("refunds.go", "package billing\n\n// Refunds over 500 EUR need a manager's approval.\nfunc Refund(cents int64) error { return nil }\n"),
				e2e.Text("Refunds over 500 EUR need a manager's approval (refunds.go)."),
			},
		}},
		Next: Session{Project: "api-gw", Prompt: "Add request logging to the gateway."},
		Facts: []Fact{
			{Name: "rate limiting is in ratelimit.go", All: []string{`ratelimit\.go`}, Query: "rate limiting"},
			{Name: "the limit is 100 requests/s per key", All: []string{`100 requests/s`}, Query: "rate limit"},
			{Name: "routes are in routes.yaml", All: []string{`routes\.yaml`}, Query: "routes"},
			{Name: "/v2/users goes to the users service", All: []string{`/v2/users`}, Query: "users service"},
		},
		Wrong: []Fact{
			{Name: "billing: invoices", All: []string{`invoice`}},
			{Name: "billing: refunds", All: []string{`refund`}},
			{Name: "billing: rates.csv", All: []string{`rates\.csv`}},
		},
	}
}

// Five sessions of a Go shop, each leaving one thing to know, read back
// under a budget of 400 tokens: what is kept when not everything fits.
func tightBudget() Scenario {
	return Scenario{
		Name:            "five sessions, 400-token budget",
		Files:           map[string]map[string]string{"shop": {"go.mod": "module shop\n\ngo 1.22\n"}},
		MaxInjectTokens: 400,
		Sessions: []Session{{
			Project: "shop",
			Prompt:  "Add the cart package.",
			Steps: []e2e.Step{
				write("cart.go", "package shop\n\n// Total is the sum of the items' prices in cents, less pct percent.\nfunc Total(items []int, pct int) int {\n\tt := 0\n\tfor _, c := range items {\n\t\tt += c * (100 - pct) / 100\n\t}\n\treturn t\n}\n"),
				bash("go vet ./..."),
				e2e.Text("I've added the cart package.\n\n- `cart.go`: `Total(items, pct)` sums the prices and applies a discount\n\n**Important:** prices are integer cents, never floats, so totals cannot drift.\n\n`go vet ./...` is clean."),
			},
		}, {
			Project: "shop",
			Prompt:  "Hook up the payment provider.",
			Steps: []e2e.Step{
				write("payments.go", "package shop\n\n// SandboxURL is the payment provider's sandbox.\nconst SandboxURL = \"http://127.0.0.1:54330/v1\"\n"),
				bash("curl -sS --max-time 2 http://127.0.0.1:54330/v1/ping"),
				e2e.Text("payments.go points at the provider's sandbox, which did not answer on :54330; try again once it is up."),
			},
		}, {
			Project: "shop",
			Prompt:  "Add discount codes.",
			Steps: []e2e.Step{
				write("discounts.go", "package shop\n\nimport \"strings\"\n\n// Percent is a code's discount; codes are case-insensitive.\nfunc Percent(code string) int {\n\tif strings.EqualFold(code, \"WELCOME10\") {\n\t\treturn 10\n\t}\n\treturn 0\n}\n"),
				bash("go build ./..."),
				e2e.Text("Discount codes live in discounts.go and match case-insensitively."),
			},
		}, {
			Project: "shop",
			Prompt:  "The totals are a cent off with discounts; fix it.",
			Steps: []e2e.Step{
				write("cart_test.go", "package shop\n\nimport \"testing\"\n\nfunc TestTotalDiscount(t *testing.T) {\n\tif got := Total([]int{5, 5}, 10); got != 9 {\n\t\tt.Fatalf(\"Total = %d, want 9\", got)\n\t}\n}\n"),
				bash("go test ./..."),
				edit("cart.go", "\t\tt += c * (100 - pct) / 100\n\t}\n\treturn t\n", "\t\tt += c\n\t}\n\treturn t * (100 - pct) / 100\n"),
				bash("go test ./..."),
				e2e.Text("Fixed.\n\nThe problem was that the discount was rounded per item, so two items of 5 cents at 10% came to 8 instead of 9. `cart.go` now applies the discount to the sum.\n\n`TestTotalDiscount` in cart_test.go covers it, and `go test ./...` passes."),
			},
		}, {
			Project: "shop",
			Prompt:  "Write the README.",
			Steps: []e2e.Step{
				write("README.md", "# shop\n\nRun it with `go run ./cmd/shop`.\n"),
				e2e.Text("README.md says how to run the shop: go run ./cmd/shop."),
			},
		}},
		Next: Session{Project: "shop", Prompt: "Add a wishlist."},
		Facts: []Fact{
			{Name: "prices are integer cents, never floats", All: []string{`cents`}, Query: "prices"},
			{Name: "the payment sandbox on :54330 did not answer", All: []string{`54330`}, Query: "payment provider"},
			{Name: "payments.go holds the provider's URL", All: []string{`payments\.go`}, Query: "payments"},
			{Name: "discount codes are in discounts.go", All: []string{`discounts\.go`}, Query: "discount codes"},
			{Name: "the totals bug (discount rounded per item) is fixed", All: []string{`per[ -]item`}, Query: "totals rounding"},
			{Name: "run it with go run ./cmd/shop", All: []string{`go run \./cmd/shop`}, Query: "run the shop"},
		},
	}
}

// The scenarios below were written after the builder changes they measure,
// and the builder was not tuned to them: a check against fitting the
// builder to its own benchmark.

// A user's constraints stated in a long first prompt, a tool that is not
// installed, and files created over two sessions.
func constraintInPrompt() Scenario {
	return Scenario{
		Name: "held out: constraints in the prompt",
		Sessions: []Session{{
			Project: "docs-site",
			Prompt: "Migrate the docs site from Jekyll to Hugo. Keep every URL exactly as it is today, external sites link to them, " +
				"and don't touch anything under vendor/ because the theme tool generates it.",
			Steps: []e2e.Step{
				bash("ls"),
				write("config.toml", "baseURL = \"https://docs.example.org/\"\nuglyURLs = true\n"),
				write("content/_index.md", "---\ntitle: Docs\n---\n"),
				bash("hugo version"),
				e2e.Text("I've started the Hugo migration.\n\n- `config.toml`: the Hugo configuration, with `uglyURLs = true` so the `.html` URLs stay the same\n- `content/_index.md`: the home page\n\n`hugo` isn't installed on this machine, so I couldn't build the site yet. Install it with `go install github.com/gohugoio/hugo@latest`, then run `hugo server`."),
			},
		}, {
			Project: "docs-site",
			Prompt:  "Port the blog posts.",
			Steps: []e2e.Step{
				write("content/posts/2024-01-hello.md", "---\ntitle: Hello\ndate: 2024-01-10\n---\nHello.\n"),
				write("content/posts/2024-02-release.md", "---\ntitle: Release\ndate: 2024-02-01\n---\nReleased.\n"),
				bash("ls content/posts"),
				e2e.Text("Ported the two blog posts to content/posts/. Their front matter now carries a `date` field; Jekyll took the date from the file name."),
			},
		}},
		Next: Session{Project: "docs-site", Prompt: "Add the about page."},
		Facts: []Fact{
			{Name: "every URL must stay as it is", All: []string{`url`, `exactly|as it is|stay the same`}, Query: "URLs"},
			{Name: "vendor/ is generated: do not touch it", All: []string{`vendor/`}, Query: "vendor"},
			{Name: "hugo is not installed", All: []string{`hugo[^\n]{0,60}(not (installed|found)|isn't installed|fail|127)`}, Query: "hugo"},
			{Name: "uglyURLs = true keeps the .html URLs", All: []string{`uglyURLs`}, Query: "html URLs"},
			{Name: "the posts are in content/posts/", All: []string{`content/posts`}, Query: "blog posts"},
			{Name: "posts carry a date in their front matter", All: []string{`front matter`}, Query: "post dates"},
		},
	}
}

// A test that fails in the first session and is left failing while two
// more sessions do other things.
func testStillFailing() Scenario {
	return Scenario{
		Name:  "held out: a test still failing",
		Files: map[string]map[string]string{"geo": {"go.mod": "module geo\n\ngo 1.22\n"}},
		Sessions: []Session{{
			Project: "geo",
			Prompt:  "Add a haversine Distance function in kilometres.",
			Steps: []e2e.Step{
				write("geo.go", "package geo\n\nimport \"math\"\n\n// Distance is the great-circle distance in km.\nfunc Distance(lat1, lon1, lat2, lon2 float64) float64 {\n\tdlat, dlon := lat2-lat1, lon2-lon1\n\ta := math.Pow(math.Sin(dlat/2), 2) + math.Cos(lat1)*math.Cos(lat2)*math.Pow(math.Sin(dlon/2), 2)\n\treturn 6371 * 2 * math.Asin(math.Sqrt(a))\n}\n"),
				write("geo_test.go", "package geo\n\nimport (\n\t\"math\"\n\t\"testing\"\n)\n\nfunc TestDistance(t *testing.T) {\n\tif d := Distance(48.8566, 2.3522, 51.5074, -0.1278); math.Abs(d-343.5) > 1 {\n\t\tt.Fatalf(\"Paris-London = %.1f km, want 343.5\", d)\n\t}\n}\n"),
				bash("go test ./..."),
				e2e.Text("I added `Distance` in geo.go, but `TestDistance` fails: Paris–London comes out far too long. I suspect degrees are passed where radians are expected; I'll look into it next."),
			},
		}, {
			Project: "geo",
			Prompt:  "Meanwhile, add a Bearing function.",
			Steps: []e2e.Step{
				write("bearing.go", "package geo\n\nimport \"math\"\n\n// Bearing is the initial bearing in degrees.\nfunc Bearing(lat1, lon1, lat2, lon2 float64) float64 {\n\treturn math.Atan2(lon2-lon1, lat2-lat1) * 180 / math.Pi\n}\n"),
				bash("go build ./..."),
				e2e.Text("Added `Bearing` in bearing.go. I didn't touch Distance, so TestDistance still fails."),
			},
		}, {
			Project: "geo",
			Prompt:  "Write a README for the package.",
			Steps: []e2e.Step{
				write("README.md", "# geo\n\nDistance and Bearing on a sphere.\n"),
				e2e.Text("README.md describes Distance and Bearing."),
			},
		}},
		Next: Session{Project: "geo", Prompt: "Let's fix the distance bug."},
		Facts: []Fact{
			{Name: "TestDistance fails, still open", All: []string{`(TestDistance|go test)[^\n]*(fail|still)`}, Query: "TestDistance"},
			{Name: "suspected cause: degrees instead of radians", All: []string{`radians`}, Query: "distance bug"},
			{Name: "Distance is in geo.go", All: []string{`geo\.go`}, Query: "Distance function"},
			{Name: "Bearing is in bearing.go", All: []string{`bearing\.go`}, Query: "Bearing"},
		},
		Wrong: []Fact{
			{Name: "the distance test said to pass", All: []string{"(TestDistance|go test \\./\\.\\.\\.)`?:? (passes|passed|[0-9]+ packages? ok)"}},
		},
	}
}

// A fact learned only from a command's output, then a file edited.
func factInOutput() Scenario {
	return Scenario{
		Name: "held out: a fact in a command's output",
		Files: map[string]map[string]string{"webapp": {
			".nvmrc":       "20.11.0\n",
			"package.json": "{\n  \"name\": \"webapp\",\n  \"engines\": { \"node\": \">=20\" }\n}\n",
		}},
		Sessions: []Session{{
			Project: "webapp",
			Prompt:  "Which Node version does this project use?",
			Steps: []e2e.Step{
				bash("cat .nvmrc"),
				bash("grep -n engines package.json"),
				e2e.Text("It pins Node in .nvmrc; package.json only asks for >=20."),
			},
		}, {
			Project: "webapp",
			Prompt:  "Add a lint script.",
			Steps: []e2e.Step{
				edit("package.json", "  \"engines\"", "  \"scripts\": { \"lint\": \"eslint .\" },\n  \"engines\""),
				bash("grep -c lint package.json"),
				e2e.Text("Added a `lint` script (`eslint .`) to package.json; run it with `npm run lint`."),
			},
		}},
		Next: Session{Project: "webapp", Prompt: "Set up the CI workflow."},
		Facts: []Fact{
			{Name: "Node 20.11.0 is pinned", All: []string{`20\.11\.0`}, Query: "node version"},
			{Name: "the pin is in .nvmrc", All: []string{`\.nvmrc`}, Query: "nvmrc"},
			{Name: "npm run lint runs eslint", All: []string{`npm run lint|eslint`}, Query: "lint script"},
			{Name: "package.json changed", All: []string{`package\.json`}, Query: "package.json"},
		},
	}
}
