# mneme — a persistent memory for Claude Code.
SHELL := /bin/bash
BIN     := bin/mneme
# What make build stamps into both binaries (`mneme version`, `mneme-hook
# --version`, /api/health, the viewer's footer): git describe, the commit and
# its date in UTC; GoReleaser stamps releases the same way (.goreleaser.yaml).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell TZ=UTC0 git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
GO      ?= go
# GoReleaser, pinned in a module of its own (tools/goreleaser/go.mod says
# why): built once into Go's cache, run from the repository's root.
GORELEASER := $(GO) tool -modfile=tools/goreleaser/go.mod goreleaser
export CGO_ENABLED ?= 0

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: generate
generate: ## Generate templ code (views/*_templ.go)
	$(GO) tool templ generate

.PHONY: build
build: ## Build the static binaries into bin/: mneme, and mneme-hook (what Claude Code runs per event)
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/mneme ./cmd/mneme-hook
	@echo; ./bin/mneme version; echo "built $(CURDIR)/bin/mneme and $(CURDIR)/bin/mneme-hook; put them on PATH with"; \
	echo '  export PATH="$(CURDIR)/bin:$$PATH"'; \
	echo "or install them for everyone with"; \
	echo '  sudo install bin/mneme bin/mneme-hook /usr/local/bin/'; \
	echo "then wire them into Claude Code with: mneme install"

# The platforms mneme ships for (GOOS/GOARCH). make cross builds both
# binaries for each, static with cgo off, then vets every package and
# compiles every test binary for each GOOS, so a call that exists on one
# system only cannot land.
CROSS_TARGETS := darwin/arm64 darwin/amd64 linux/amd64 linux/arm64 windows/amd64
CROSS_GOOS    := linux darwin windows

.PHONY: cross
cross: ## Build mneme and mneme-hook for every platform (CGO off), and go vet and compile the tests of every package for linux, darwin and windows
	@set -e; out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; \
	for t in $(CROSS_TARGETS); do \
		echo "== build $$t"; \
		GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -trimpath -o "$$out/$$t/" ./cmd/mneme ./cmd/mneme-hook; \
	done; \
	for os in $(CROSS_GOOS); do \
		echo "== vet and test binaries for $$os"; \
		GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./...; \
		GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) test -c -o "$$out/test-$$os/" ./...; \
	done

# The release artifacts (docs/release.md): GoReleaser's snapshot of
# .goreleaser.yaml into dist/, published nowhere, then checked
# (scripts/release-verify.sh): every archive and package against
# checksums.txt, the Homebrew formula's sums against them, the listing.
# GoReleaser takes the commit, its date and the tag from git, but gives all
# of them up when the repository has no remote (a clone's copy, CI's
# checkout here): its git commands are then told the project's URL through
# the environment, the repository's configuration left alone.
.PHONY: release-snapshot
release-snapshot: ## Build every release artifact into dist/ with GoReleaser (archives, .deb, .rpm, checksums, Homebrew formula), publish nothing, verify the checksums
	@start=$$(date +%s); \
	if [ -z "$$(git remote)" ]; then \
		export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/mneme-dev/mneme.git; \
	fi; \
	$(GORELEASER) release --snapshot --clean && \
	bash scripts/release-verify.sh dist && \
	echo "release-snapshot took $$(( $$(date +%s) - start )) s"

# The .deb as a user gets it: installed with dpkg (as root: CI runs it so),
# run, wired into Claude Code in a throwaway HOME, driven by a real Claude
# Code session (e2e's TestClaudeCodeWithInstalledPackage), then removed.
# Not part of make test: it installs into /usr/bin. Refuses to touch a
# mneme package that was installed before.
.PHONY: test-packaging
test-packaging: release-snapshot ## Install the snapshot's .deb for this machine with dpkg, run both binaries, mneme install, a real Claude Code session through them, then dpkg -r (root)
	@bash e2e/install-claude.sh >/dev/null
	bash scripts/test-packaging.sh dist

.PHONY: run
run: build ## Run the worker on embedded SQLite; viewer at http://localhost:37777
	./$(BIN) serve

.PHONY: dev
dev: generate ## Run the worker with static files read from disk
	$(GO) run ./cmd/mneme serve --dev

# The race detector watches mneme's code, the drivers and every other
# library, but not SQLite itself: modernc.org/sqlite is SQLite's C
# translated to Go, with its own libc, and instrumenting it made every test
# that touches a store 3x slower. Left uninstrumented it is what a cgo
# build's C would be; the Go code calling it is still checked.
RACE := -race -gcflags='modernc.org/sqlite/lib=-race=false' -gcflags='modernc.org/libc/...=-race=false'

# The packages whose tests take longest, named before ./... so that go test
# builds and starts them first (it runs the packages in the order they are
# named, two at a time on two cores; ./... alone is alphabetical, and a
# package is run once however often it is named). In alphabetical order
# models, soak and web came last: web's six minutes of one-at-a-time
# browser tests ran alone at the end, the other core idle.
SLOW_FIRST := ./web/ ./soak/ ./models/ ./cmd/mneme/ ./handlers/

.PHONY: test
# -timeout is a hang guard, not a speed test: a package's whole run must fit
# in it on a 2-core box loaded far past two burners (load 23: soak took 15.5
# and web 12.6 minutes), so it is generous. The tests of PG_PACKAGES that
# run on PostgreSQL whatever the backend (pgtest.PostgresOnly) skip in this
# SQLite leg: the PostgreSQL leg runs them. What follows the race leg runs
# two at a time (-j2): the PostgreSQL leg's race run, the longest, starts
# first; beside it, one after the other, the recall tests without the race
# detector (one test process each) and the fuzz targets (a link, then a
# few seconds of fuzzing each), which ran alone after it. Each target's
# output is printed whole when it ends (--output-sync).
test: test-deps ## Run every test (race detector on), the real Claude Code e2e suite, and the store's tests again on PostgreSQL
	MNEME_TEST_POSTGRES_LEG_RUNS=1 CGO_ENABLED=1 $(GO) test $(RACE) -count=1 -timeout 40m $(SLOW_FIRST) ./...
	@$(MAKE) --no-print-directory -j2 --output-sync=target test-postgres-race test-postgres-recall test-norace fuzz-short

.PHONY: test-norace
test-norace: ## The tests too slow under the race detector, run without it (part of make test)
	$(GO) test -count=1 -run '^(TestHookOversizedPayload|TestVectorIndexRecall|TestQuantisedRecall|TestOnePassForAPayload|TestReadPayloadMemoryBounded|TestReadPayloadCutsLongStrings|TestCleanPayloadCutsAfterRedaction|TestCleanEventLeavesNoPlantedSecret|TestObservationCutsAfterRedaction|TestExportLargeSessionStreams|TestCueLiteralsHideNoMatch)$$' ./hooks/ ./models/ ./internal/archtest/ ./internal/privacy/ ./internal/shape/ ./internal/report/ ./internal/memory/extract/

.PHONY: test-quick
test-quick: ## The tests to run while changing code: no race detector, browser, PostgreSQL, real Claude Code or soak package (-short)
	$(GO) test -short -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/soak$$')

# The packages whose tests run a second time on PostgreSQL (team mode):
# with MNEME_TEST_BACKEND=postgres their stores and test workers get a
# database of a throwaway cluster (internal/pgtest) instead of a SQLite
# file, and a missing PostgreSQL fails them instead of skipping.
PG_PACKAGES := ./models ./models/pgmigrate ./handlers ./internal/app ./internal/recall ./internal/retention ./internal/forget ./internal/summarize ./internal/mcp

.PHONY: test-postgres
test-postgres: test-postgres-race test-postgres-recall ## Run only the PostgreSQL leg: the store's, handlers' and worker's tests on a throwaway PostgreSQL

.PHONY: test-postgres-race
test-postgres-race: test-deps-postgres ## The PostgreSQL leg's run of PG_PACKAGES, race detector on (part of test-postgres)
	MNEME_TEST_BACKEND=postgres CGO_ENABLED=1 $(GO) test $(RACE) -count=1 -timeout 30m $(PG_PACKAGES)

.PHONY: test-postgres-recall
test-postgres-recall: test-deps-postgres ## The vector index's recall on PostgreSQL, without the race detector (part of test-postgres)
	MNEME_TEST_BACKEND=postgres $(GO) test -count=1 -run '^TestVectorIndexRecall$$' ./models/

.PHONY: test-deps-postgres
test-deps-postgres: ## Install PostgreSQL's server programs (Debian's postgresql) through apt-get when root and they are missing
	@compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || [ -n "$$PG_BINDIR" ] || command -v initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null; \
	  else echo "note: PostgreSQL is not installed, so make test-postgres fails (sudo apt-get install postgresql)"; fi; }

.PHONY: test-deps
test-deps: test-deps-postgres ## Install what the tests need: Claude Code from npm (pinned), Chromium and PostgreSQL through apt-get when root
	@bash e2e/install-claude.sh >/dev/null
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium poppler-utils fonts-dejavu-core >/dev/null; \
	  else echo "note: chromium is not installed, so the browser tests will skip (sudo apt-get install chromium)"; fi; }

.PHONY: e2e
e2e: build ## Run only the end-to-end suite against real Claude Code
	bash e2e/install-claude.sh
	$(GO) test -count=1 -v -timeout 10m ./e2e/

.PHONY: eval-extract
eval-extract: ## Memory extraction benchmark: precision and recall on the tuning and held-out halves (internal/memory/extract/testdata)
	@mkdir -p .cache
	@MNEME_EXTRACT_OUT=$(CURDIR)/.cache/extract-table.md $(GO) test -count=1 -run '^TestExtractionBenchmark$$' ./internal/memory/extract/ >/dev/null; rc=$$?; cat .cache/extract-table.md; exit $$rc

.PHONY: eval-search
eval-search: ## Search relevance benchmark: recall@10 and nDCG@10 on the tuning and held-out halves (eval/search; MNEME_TEST_BACKEND=postgres for PostgreSQL)
	@mkdir -p .cache
	@MNEME_SEARCH_EVAL_OUT=$(CURDIR)/.cache/search-eval.md $(GO) test -count=1 -run '^TestSearchRelevance$$' ./eval/search/ >/dev/null; rc=$$?; cat .cache/search-eval.md; exit $$rc

.PHONY: eval
eval: ## Recall benchmark: scripted sessions through real Claude Code, then what the next one is told (a few minutes; eval/README.md)
	@bash e2e/install-claude.sh >/dev/null
	@mkdir -p .cache/eval
	MNEME_EVAL=1 MNEME_EVAL_OUT=$(CURDIR)/.cache/eval/table.md MNEME_EVAL_MEMORY_OUT=$(CURDIR)/.cache/eval/memories.md \
		$(GO) test -count=1 -timeout 30m -run '^TestEval(Memories)?$$' ./eval/
	@cat .cache/eval/table.md .cache/eval/memories.md

# The benchmarks behind the figures table (bench/table), as package,
# benchmark regexp and -benchtime: a count (Nx) fixes the samples behind each
# percentile. make bench runs them, then every other benchmark for 1s, and
# pipes all the output through bench/table.
BENCH_RUNS := \
	./cmd/mneme '^BenchmarkHook' 1000x \
	./cmd/mneme '^BenchmarkIngest(Concurrent|Socket|Postgres2Replicas)16$$' 20000x \
	./models '^BenchmarkWriterQueue$$' 20000x \
	./handlers '^BenchmarkStreamLatency$$' 2000x \
	./models '^BenchmarkSearch(Postgres)?$$' 100x \
	./models '^BenchmarkSearchHybrid(Postgres)?$$' 50x \
	./models '^BenchmarkVectorIndex$$' 100x \
	./internal/recall 'Hook100k$$|Hook100kPostgres$$|Hook100kMemories$$|Context100k$$|Memory100k$$' 500x \
	./cmd/mneme '^BenchmarkWorkerRSS$$' 1x \
	./soak '^BenchmarkColdStart$$' 20x

.PHONY: bench
bench: ## Run the benchmarks and print one table: each figure, its same-run baseline, its target (~10 min, +15 to build the cached 1M-row DB; output in .cache/bench)
	@mkdir -p .cache/bench
	@set -o pipefail; export MNEME_BENCH_CACHE=$${MNEME_BENCH_CACHE:-$(CURDIR)/.cache/bench}; \
	{ rc=0; skip=; set -- $(BENCH_RUNS); while [ $$# -gt 0 ]; do \
		echo "== go test $$1 -bench '$$2' -benchtime $$3"; \
		$(GO) test -run '^$$' -bench "$$2" -benchtime "$$3" -timeout 60m "$$1" || rc=1; \
		skip="$${skip:+$$skip|}$$2"; shift 3; \
	done; \
	echo "== the other benchmarks (not in the table)"; \
	$(GO) test -run '^$$' -bench . -skip "$$skip" -benchtime 1s -timeout 60m ./... || rc=1; \
	exit $$rc; } 2>&1 | tee .cache/bench/last.txt | $(GO) run ./bench/table -o .cache/bench/table.md

# Fuzz targets as package:Name. Crashers land in <package>/testdata/fuzz/,
# where they stay as regression seeds that plain `go test` runs.
FUZZ_TARGETS := internal/shape:FuzzDecode internal/privacy:FuzzStripTags internal/privacy:FuzzStripTagsJSON internal/privacy:FuzzRedactor \
	internal/privacy:FuzzCleanJSON internal/report:FuzzMarkdownEscapes \
	internal/shape:FuzzCompress internal/shape:FuzzExcludeGlobLiteral models/internal/settingsrules:FuzzSettingsValidate models/internal/settingsrules:FuzzValidGlob models:FuzzSearch models/internal/searchq:FuzzQueryLexer \
	internal/transcript:FuzzParse internal/transcript:FuzzPromptText internal/memory/extract:FuzzExtract
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

.PHONY: test-large
test-large: test-deps ## The import/export and migrate round trips at full size (10,000 observations; make test runs them at 1,000-2,000)
	MNEME_TEST_LARGE=1 CGO_ENABLED=1 $(GO) test $(RACE) -count=1 -timeout 30m -run '^(TestImportExportLarge|TestMigrateRate)$$' -v ./cmd/mneme/

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

# staticcheck, pinned; `go run pkg@version` builds it with its own
# dependencies (a tool directive would raise golang.org/x/text and x/tools
# in mneme's own build).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: lint
lint: ## gofmt check, go vet and staticcheck (pinned; run in its own module, so go.mod keeps mneme's dependencies only)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

.PHONY: check-generated
check-generated: ## Fail if templ's generated code is not current
	$(GO) tool templ generate
	@git diff --exit-code -- '*_templ.go' || { echo "generated templ code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- '*_templ.go')" || { echo "untracked generated files"; git status --porcelain -- '*_templ.go'; exit 1; }

.PHONY: clean
clean: ## Remove build output and caches
	rm -rf bin dist .cache
