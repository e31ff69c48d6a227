package extract

import (
	"slices"
	"strings"
)

// subjectCategories name the subject of a statement that names only its
// choice ("Always use pnpm" is about the package manager): the jobs whose
// tool names rarely stand for anything else in a sentence. A wider list
// (lexicon) would name the subject after any tool a statement mentions in
// passing ("Rate limiting now happens at the Cloudflare edge" is not about
// the CDN).
var subjectCategories = map[string]string{
	"package manager":        "npm pnpm yarn bun poetry pipenv uv",
	"config format":          "toml yaml yml json5 hcl ini",
	"test runner":            "jest vitest mocha pytest jasmine ava node:test rspec minitest junit xunit nunit kotest phpunit",
	"error handling":         "anyhow thiserror eyre snafu",
	"dependency injection":   "dagger hilt koin guice kodein",
	"experiment tracking":    "mlflow tensorboard wandb",
	"error tracking":         "sentry bugsnag rollbar honeybadger",
	"monitoring":             "datadog prometheus grafana newrelic",
	"search engine":          "elasticsearch opensearch meilisearch typesense algolia",
	"ci":                     "jenkins circleci buildkite travis",
	"infrastructure as code": "terraform pulumi opentofu",
	"auth provider":          "auth0 keycloak clerk okta cognito passport passport.js lucia nextauth next-auth auth.js better-auth workos stytch supertokens",
	"state management":       "redux zustand mobx recoil pinia vuex jotai redux-toolkit valtio xstate",
	"http client":            "axios httpx reqwest okhttp retrofit",
	"migrations tool":        "alembic flyway liquibase goose",
	"logging":                "zerolog logrus zap slog log15 winston pino log4j logback loguru",
	"feature flags":          "launchdarkly unleash flagsmith growthbook flipper",
	"formatter":              "prettier gofmt black rustfmt ormolu fourmolu stylish-haskell ktfmt",
	"linter":                 "eslint golangci-lint ruff flake8 pylint staticcheck rubocop clippy ktlint swiftlint phpstan biome",
	"bundler":                "webpack vite esbuild rollup parcel",
	"database":               "postgres postgresql mysql mariadb sqlite mongodb",
	"orm":                    "gorm prisma sqlalchemy typeorm sequelize diesel ecto hibernate eloquent drizzle",
	"http framework":         "fiber gin echo chi express fastapi flask django",
	"styling":                "styled-components emotion tailwind tailwindcss sass scss less css-modules vanilla-extract stitches",
	"job queue":              "sidekiq goodjob good_job celery rq bullmq resque delayed_job oban asynq",
	"message broker":         "kafka rabbitmq nats activemq mosquitto redpanda mqtt emqx pulsar zenoh",
	"token signing":          "hs256 rs256 es256 eddsa",
	"hosting":                "heroku fly fly.io render vercel netlify k3s k8s kubernetes railway digitalocean",
	"workflow engine":        "snakemake nextflow cromwell wdl cwl",
	"translation format":     "gettext po fluent ftl xliff",
	"orchestrator":           "airflow dagster prefect luigi temporal",
}

// lexicon is what a reader of a project's choices knows without being
// told: which tools do one job ("Sentry", "Crashlytics" and "Bugsnag" are
// all error tracking), so that a later choice of another tool for the
// same job replaces an earlier one, however each is worded. A name of two words is written with "_" ("segger_rtt"). The lists
// are of tools people name in prompts and answers, not a catalogue.
var lexicon = map[string]string{
	"package manager":        "npm pnpm yarn bun poetry pipenv uv pdm conda mamba hatch rye",
	"config format":          "toml yaml yml json5 hcl ini",
	"test runner":            "jest vitest mocha pytest jasmine ava node:test rspec minitest junit xunit nunit kotest phpunit",
	"e2e framework":          "playwright cypress selenium puppeteer webdriverio testcafe nightwatch detox maestro appium",
	"error handling":         "anyhow thiserror eyre snafu",
	"dependency injection":   "dagger hilt koin guice kodein",
	"experiment tracking":    "mlflow tensorboard wandb neptune clearml comet",
	"error tracking":         "sentry bugsnag rollbar honeybadger crashlytics firebase_crashlytics airbrake raygun appsignal glitchtip instabug",
	"monitoring":             "datadog prometheus grafana newrelic new_relic dynatrace honeycomb signoz victoriametrics",
	"tracing":                "jaeger zipkin tempo",
	"log aggregation":        "loki logstash fluentd fluent-bit papertrail splunk graylog logtail",
	"search engine":          "elasticsearch opensearch meilisearch typesense algolia solr vespa",
	"vector store":           "pinecone weaviate qdrant milvus chroma chromadb pgvector faiss lancedb hnswlib usearch annoy",
	"crdt":                   "yjs automerge",
	"physics engine":         "box2d chipmunk rapier jolt physx havok bullet matter matter.js arcade planck avian",
	"tls library":            "rustls native-tls openssl boringssl aws-lc-rs wolfssl mbedtls libressl",
	"ci":                     "jenkins circleci buildkite travis github_actions gitlab_ci drone woodpecker teamcity azure_pipelines concourse tekton",
	"infrastructure as code": "terraform pulumi opentofu cloudformation aws_cdk cdk bicep crossplane",
	"config management":      "ansible chef puppet saltstack",
	"gitops":                 "argocd argo_cd fluxcd",
	"service mesh":           "istio linkerd",
	"reverse proxy":          "nginx traefik caddy haproxy envoy",
	"cdn":                    "cloudflare fastly akamai cloudfront bunnycdn",
	"object storage":         "s3 r2 gcs minio backblaze azure_blob",
	"cache":                  "redis memcached valkey dragonfly keydb",
	"locking":                "spinlock spin_lock mutex rwlock seqlock semaphore rcu kfifo lockless lock-free per-cpu",
	"secrets":                "sops vault doppler infisical 1password secrets_manager secret_manager sealed-secrets key_vault berglas",
	"auth provider":          "auth0 keycloak clerk okta cognito passport passport.js lucia nextauth next-auth auth.js better-auth workos stytch supertokens authelia zitadel fusionauth",
	"state management":       "redux zustand mobx recoil pinia vuex jotai redux-toolkit valtio xstate ngrx",
	"http client":            "axios httpx reqwest okhttp retrofit aiohttp ky superagent",
	"migrations tool":        "alembic flyway liquibase goose dbmate sqitch",
	"logging":                "zerolog logrus zap slog log15 winston pino log4j logback loguru serilog nlog log4net structlog",
	"debug output":           "semihosting rtt segger_rtt itm swo",
	"feature flags":          "launchdarkly unleash flagsmith growthbook flipper configcat statsig",
	"formatter":              "prettier gofmt black rustfmt ormolu fourmolu stylish-haskell ktfmt yapf autopep8 clang-format dprint swiftformat",
	"linter":                 "eslint golangci-lint ruff flake8 pylint staticcheck rubocop clippy ktlint swiftlint phpstan biome stylelint oxlint",
	"type checker":           "mypy pyright pytype sorbet",
	"bundler":                "webpack vite esbuild rollup parcel turbopack rspack",
	"monorepo tool":          "nx turborepo lerna",
	"build system":           "bazel gradle maven cmake meson buck2 pants scons sbt",
	"database":               "postgres postgresql mysql mariadb sqlite mongodb cockroachdb cassandra dynamodb firestore scylla couchdb",
	"data warehouse":         "snowflake bigquery redshift databricks clickhouse duckdb",
	"orm":                    "gorm prisma sqlalchemy typeorm sequelize diesel ecto hibernate eloquent drizzle dapper jooq mybatis peewee knex kysely mikro-orm entity_framework",
	"http framework":         "fiber gin echo chi express fastapi flask django koa hapi nestjs fastify actix axum sinatra laravel phoenix ktor",
	"frontend framework":     "react vue svelte angular solidjs preact qwik htmx",
	"meta framework":         "next.js nextjs nuxt sveltekit remix astro gatsby",
	"mobile framework":       "flutter react_native ionic capacitor xamarin maui",
	"component library":      "mui mantine chakra antd shadcn vuetify primevue radix bootstrap bulma",
	"styling":                "styled-components emotion tailwind tailwindcss sass scss less css-modules vanilla-extract stitches",
	"validation":             "zod yup joi ajv valibot pydantic marshmallow class-validator superstruct io-ts",
	"date library":           "moment dayjs date-fns luxon",
	"charting":               "chart.js recharts echarts highcharts plotly nivo",
	"i18n library":           "i18next react-intl formatjs lingui vue-i18n",
	"job queue":              "sidekiq goodjob good_job celery rq bullmq resque delayed_job oban asynq hangfire",
	"message broker":         "kafka rabbitmq nats activemq mosquitto redpanda mqtt emqx pulsar zenoh sqs sns pubsub kinesis nsq",
	"stream processing":      "flink kafka_streams beam samza materialize",
	"token signing":          "hs256 rs256 es256 eddsa",
	"password hashing":       "bcrypt argon2 argon2id scrypt pbkdf2",
	"compression":            "gzip brotli zstd lz4 snappy",
	"id scheme":              "uuid uuidv4 uuidv7 ulid ksuid nanoid cuid cuid2",
	"serialization format":   "protobuf avro thrift msgpack messagepack messagepack-csharp cbor flatbuffers",
	"api style":              "graphql grpc trpc json-rpc",
	"hosting":                "heroku fly fly.io render vercel netlify k3s k8s kubernetes railway digitalocean nomad ecs fargate cloud_run app_engine",
	"k8s packaging":          "helm kustomize jsonnet tanka cdk8s",
	"release tooling":        "goreleaser semantic-release changesets release-please release-it",
	"dependency updates":     "dependabot renovate",
	"load testing":           "k6 locust jmeter gatling artillery vegeta",
	"email provider":         "sendgrid mailgun postmark ses amazon_ses resend mandrill sparkpost",
	"payments":               "stripe braintree adyen paddle lemonsqueezy chargebee recurly mollie razorpay klarna square",
	"product analytics":      "mixpanel amplitude segment posthog plausible google_analytics fathom matomo",
	"push notifications":     "fcm apns onesignal airship",
	"ml framework":           "pytorch tensorflow jax keras",
	"model serving":          "torchserve triton bentoml seldon kserve vllm",
	"rtos":                   "freertos zephyr threadx nuttx",
	"game engine":            "unity unreal godot bevy",
	"vpn":                    "tailscale wireguard zerotier openvpn",
	"workflow engine":        "snakemake nextflow cromwell wdl cwl",
	"translation format":     "gettext po fluent ftl xliff",
	"orchestrator":           "airflow dagster prefect luigi temporal",
}

// categoryAlias: other names people give a category ("crash reporting"
// is error tracking, "credentials" are secrets).
var categoryAlias = map[string]string{
	"crash reporting": "error tracking", "crash reporter": "error tracking", "crash reports": "error tracking",
	"error reporting": "error tracking", "error monitoring": "error tracking", "exception tracking": "error tracking",
	"credentials": "secrets", "credential": "secrets", "secret": "secrets", "secret management": "secrets",
	"secrets management": "secrets", "secret store": "secrets", "secret storage": "secrets", "app secrets": "secrets",
	"diagnostics": "debug output", "debug logs": "debug output", "trace output": "debug output",
	"observability": "monitoring", "metrics": "monitoring", "apm": "monitoring",
	"e2e tests": "e2e framework", "end-to-end tests": "e2e framework", "browser tests": "e2e framework",
	"orm layer": "orm", "data access": "orm", "query layer": "orm",
	"form validation": "validation", "schema validation": "validation",
	"transactional email": "email provider", "email delivery": "email provider", "outbound email": "email provider",
	"billing provider": "payments", "payment provider": "payments", "payment processor": "payments",
	"analytics": "product analytics", "product analytics": "product analytics",
	"deployment": "hosting", "deploy target": "hosting", "host": "hosting",
	"password hashes": "password hashing", "password hash": "password hashing",
	"ids": "id scheme", "primary keys": "id scheme", "id format": "id scheme",
	"blob storage": "object storage", "blob store": "object storage", "file storage": "object storage", "bucket storage": "object storage",
	"conventional commits": "commit messages", "conventional commit": "commit messages", "commit message": "commit messages",
	"commit style": "commit messages", "commit format": "commit messages", "commit convention": "commit messages",
}

// jobs maps each tool of lexicon to its job.
var jobs = map[string]string{}

// loadLexicon fills categories and categoryNames from subjectCategories,
// and jobs from lexicon.
func loadLexicon() {
	for cat, ws := range subjectCategories {
		for _, w := range strings.Fields(ws) {
			categories[w] = cat
		}
		if !strings.Contains(cat, " ") {
			categoryNames[cat] = cat
		}
	}
	for cat, ws := range lexicon {
		for _, w := range strings.Fields(ws) {
			jobs[strings.ReplaceAll(w, "_", " ")] = cat
		}
	}
}

// aliasOf is the category a subject names in other words, or the
// subject itself.
func aliasOf(s string) string {
	if c, ok := categoryAlias[s]; ok {
		return c
	}
	return s
}

// toolsIn are the tools text names, by category: single words and
// two-word names ("segger rtt"), split at slashes too ("ITM/SWO"), a
// common English word only when capitalised.
func toolsIn(text string) map[string][]string {
	var out map[string][]string
	words := strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '/' || r == '\n' || r == '\t' || r == '`' || r == '(' || r == ')' || r == '"'
	})
	prev := ""
	for _, tok := range words {
		w := strings.Trim(tok, ",.;:!?'*")
		lw := strings.ToLower(w)
		for _, cand := range []string{prev + " " + lw, lw} {
			c, ok := jobs[cand]
			if !ok || commonWords[cand] && (w == "" || w[0] < 'A' || w[0] > 'Z') {
				continue
			}
			if out == nil {
				out = map[string][]string{}
			}
			out[c] = append(out[c], cand)
			break
		}
		prev = lw
	}
	return out
}

// shared are the categories whose tools a project often has several of
// at once (a database for each job, brokers, hosts for each part), where
// naming another one is no replacement unless the subjects agree.
var shared = map[string]bool{"database": true, "message broker": true, "search engine": true, "cache": true,
	"object storage": true, "hosting": true, "job queue": true, "data warehouse": true, "vector store": true,
	"cdn": true, "reverse proxy": true, "api style": true, "serialization format": true, "compression": true,
	"config format": true, "monitoring": true}

// otherTool reports whether newer names, for a job older names a tool
// for, a tool older does not name: a choice of another tool for the same
// job. For jobs a project may use several tools for at once, the
// subjects must agree as well.
func otherTool(newer, older Memory) bool { return otherToolFor(newer, older, false) }

// sameToolNamed reports whether a and b name one tool for one job.
func sameToolNamed(a, b Memory) bool {
	at, bt := toolsIn(a.Text), toolsIn(b.Text)
	for c, as := range at {
		for _, t := range as {
			if slices.Contains(bt[c], t) {
				return true
			}
		}
	}
	return false
}

// otherToolFor is otherTool; anyJob counts the jobs a project may have
// several tools for as well, for a change that says it replaces the
// choice before it ("Switched to pgvector instead").
func otherToolFor(newer, older Memory, anyJob bool) bool {
	nt, ot := toolsIn(newer.Text), toolsIn(older.Text)
	for c, ns := range nt {
		os, ok := ot[c]
		if !ok || !anyJob && shared[c] && !sameTopic(newer.Subject, older.Subject) && aliasOf(newer.Subject) != c {
			// "final call on blob storage: R2" settles all object storage.
			continue
		}
		for _, n := range ns {
			if !slices.Contains(os, n) {
				return true
			}
		}
	}
	return false
}
