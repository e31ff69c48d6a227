# mneme — a persistent memory for Claude Code.
SHELL := /bin/bash
BIN     := bin/mneme
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
GO      ?= go
export CGO_ENABLED ?= 0

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: generate
generate: ## Generate templ code (views/*_templ.go)
	$(GO) tool templ generate

.PHONY: build
build: ## Build the static binaries into bin/: mneme, and mneme-hook (what Claude Code runs per event)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/mneme ./cmd/mneme-hook

.PHONY: run
run: build ## Run the worker on embedded SQLite; viewer at http://localhost:37777
	./$(BIN) serve

.PHONY: dev
dev: generate ## Run the worker with static files read from disk
	$(GO) run ./cmd/mneme serve --dev

.PHONY: test
test: test-deps ## Run every test (race detector on) and the real Claude Code e2e suite
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 15m ./...
	@$(MAKE) --no-print-directory fuzz-short

.PHONY: test-deps
test-deps: ## Install what the tests need: Claude Code from npm (pinned), Chromium through apt-get when root
	@bash e2e/install-claude.sh >/dev/null
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium poppler-utils fonts-dejavu-core >/dev/null; \
	  else echo "note: chromium is not installed, so the browser tests will skip (sudo apt-get install chromium)"; fi; }

.PHONY: e2e
e2e: build ## Run only the end-to-end suite against real Claude Code
	bash e2e/install-claude.sh
	$(GO) test -count=1 -v -timeout 10m ./e2e/

.PHONY: bench
bench: ## Run the benchmarks and print their figures (1M-row DB cached in .cache/bench; MNEME_BENCH_ROWS to change)
	MNEME_BENCH_CACHE=$${MNEME_BENCH_CACHE:-$(CURDIR)/.cache/bench} $(GO) test -run '^$$' -bench . -benchtime 2s -timeout 60m ./...

# Fuzz targets as package:Name. Crashers land in <package>/testdata/fuzz/,
# where they stay as regression seeds that plain `go test` runs.
FUZZ_TARGETS := hooks:FuzzDecode hooks/edge:FuzzStripTags hooks/edge:FuzzStripTagsJSON hooks:FuzzRedactor \
	hooks:FuzzCompress models:FuzzSettingsValidate models:FuzzSearch
FUZZTIME ?= 30s

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s)
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test ./$$pkg/ -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME); \
	done

.PHONY: fuzz-short
fuzz-short: ## A few thousand fuzz executions per target (run by make test)
	@# A count, not a duration: a short time budget makes Go's fuzz
	@# coordinator report "context deadline exceeded" as a failure.
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3000x

.PHONY: soak
soak: build ## Long durability/fault runs: 10,000-event kill -9 burst, 3 min of 8 parallel sessions, 4 min of 8 real Claude Code sessions (MNEME_SOAK_DURATION)
	@bash e2e/install-claude.sh >/dev/null
	MNEME_SOAK=1 MNEME_SOAK_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 60m ./soak/

.PHONY: bench-compare
bench-compare: build ## Side by side with claude-mem (fetched with bun from npm into .cache/)
	bash bench/compare/install.sh
	$(GO) run ./bench/compare -root $(CURDIR)

.PHONY: screenshots
screenshots: ## Save PNGs of every viewer page, both themes and a narrow window, to .cache/screenshots
	MNEME_SCREENSHOTS=$(CURDIR)/.cache/screenshots $(GO) test -count=1 -run TestScreenshots ./web/

.PHONY: lint
lint: ## gofmt check and go vet
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

.PHONY: check-generated
check-generated: ## Fail if templ's generated code is not current
	$(GO) tool templ generate
	@git diff --exit-code -- '*_templ.go' || { echo "generated templ code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- '*_templ.go')" || { echo "untracked generated files"; git status --porcelain -- '*_templ.go'; exit 1; }

.PHONY: clean
clean: ## Remove build output and caches
	rm -rf bin .cache
