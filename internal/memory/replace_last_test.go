package memory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/memory"
	"github.com/mneme-dev/mneme/internal/testutil"
	"github.com/mneme-dev/mneme/models"
)

// inForce is the text of each memory of project in force.
func inForce(t *testing.T, store *models.Store, project string) []string {
	t.Helper()
	ms, err := store.Memories(context.Background(), models.MemoryFilter{Project: project, States: []string{models.MemoryCurrent}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// turns runs each prompt and answer as the next turn of one session.
func turns(t *testing.T, store *models.Store, project string, pa ...string) {
	t.Helper()
	var sid int64
	err := store.Writer.Do(context.Background(), func(tx *models.Tx) error {
		s, err := tx.EnsureSession(&models.Session{ClaudeSessionID: project, Project: project, Cwd: t.TempDir(), StartedAt: time.Now()})
		sid = s.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	prev := ""
	for i := 0; i+1 < len(pa); i += 2 {
		prepareWrite(t, store, memory.Turn{Project: project, SessionID: sid, PromptNumber: i/2 + 1, At: at.Add(time.Duration(i) * time.Minute),
			Prompts: []string{pa[i]}, Answer: pa[i+1], PrevAnswer: prev})
		prev = pa[i+1]
	}
}

func hasText(texts []string, key string) bool {
	for _, s := range texts {
		if strings.Contains(s, key) {
			return true
		}
	}
	return false
}

// A change that says it changes again replaces the last change, though
// it names nothing of it; a change whose answer takes out the thing an
// earlier decision chose replaces that decision. Neither reaches a
// decision the turn did not touch.
func TestTheTurnPointsAtWhatItReplaces(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "shop",
		"Where should product images be served from?",
		"I went with Cloudinary for product images rather than serving them from the app, since it resizes on the fly.",
		"Cloudinary's bill is too high. We're moving product images to an S3 bucket behind CloudFront.",
		"Moved: the upload handler writes to `s3://shop-media` and the templates point at the CloudFront domain.",
		"We're moving the newsletter to Buttondown, Mailchimp's templates are a pain.",
		"Done, the signup form posts to Buttondown's API now.",
		"Changed again: product images go to Bunny CDN with its own storage zone from next week, it is a third of the price.",
		"Pointed the upload handler at the Bunny storage zone and updated the template helper.",
	)
	got := inForce(t, store, "shop")
	if hasText(got, "S3 bucket") || hasText(got, "Cloudinary for product images") {
		t.Errorf("in force after a change said to be again: %q", got)
	}
	if !hasText(got, "Bunny CDN") || !hasText(got, "Buttondown") {
		t.Errorf("the last change, or the change of another thing between, is not in force: %q", got)
	}

	turns(t, store, "metrics",
		"Add request metrics to the API.",
		"For the metrics I went with StatsD counters through the Datadog agent rather than a Prometheus endpoint, because the hosts already run the agent.\n\nWe settled on pino for the request logs.",
		"We're switching request metrics to OpenTelemetry, exported over OTLP to the collector.",
		"Wired the OpenTelemetry meter into the middleware and removed our StatsD counters from the handlers.",
	)
	got = inForce(t, store, "metrics")
	if hasText(got, "StatsD counters through") {
		t.Errorf("a decision whose thing the answer took out is in force: %q", got)
	}
	if !hasText(got, "OpenTelemetry") || !hasText(got, "pino") {
		t.Errorf("want the change and the untouched logging decision in force: %q", got)
	}
}

// A prompt that finds fault with the choice in place, and the decision
// the turn makes, replace it, though the new one names neither the old
// choice nor its subject; a prompt that only mentions it replaces
// nothing.
func TestAFaultFoundReplacesTheChoice(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "editor",
		"The canvas needs undo.",
		"I went with a CommandStack of inverse operations for undo, since snapshots of the whole document would be 40 MB each.",
		"Writers hate that the CommandStack forgets everything after a reload.",
		"I went with an append-only IndexedDB journal of edits that replays on load, because it survives a reload and costs a few bytes per edit.",
	)
	got := inForce(t, store, "editor")
	if hasText(got, "CommandStack") {
		t.Errorf("the choice found fault with is in force: %q", got)
	}
	turns(t, store, "feeds",
		"Fetch the feeds on a schedule.",
		"I went with a cron job in the worker for fetching feeds, because the worker already runs every minute.",
		"Now add retries to the cron job when a feed times out.",
		"I went with exponential backoff and jitter for the retries rather than a fixed delay, because most feed hosts recover within a minute.",
	)
	got = inForce(t, store, "feeds")
	if !hasText(got, "cron job in the worker") || !hasText(got, "exponential backoff") {
		t.Errorf("a mention that finds no fault replaced the choice: %q", got)
	}
}

// A change in the turn right after the one that made a single decision
// replaces it when the turn speaks of it, though the change names
// another subject, and so it does with a turn between that decides
// nothing; a change of another thing in the next turn, which says
// nothing of it, replaces nothing.
func TestTheNextTurnsChangeReplacesTheDecision(t *testing.T) {
	store := testutil.NewServer(t).Store
	chose := []string{"Where should uploaded avatars go?",
		"I went with bytea columns in Postgres for the avatars, since there are only a few thousand users."}
	between := []string{"what's eating the disk on the runner?", "Docker's build cache: 61 GB. I pruned it."}
	changed := []string{"the nightly postgres backups tripled since then",
		"Moved the uploads to a Backblaze B2 bucket behind the CDN instead, because backups shouldn't carry image bytes."}
	for project, pa := range map[string][]string{
		"ledger":  slices.Concat(chose, changed),
		"ledger2": slices.Concat(chose, between, changed),
	} {
		turns(t, store, project, pa...)
		if got := inForce(t, store, project); hasText(got, "bytea columns") || !hasText(got, "Backblaze") {
			t.Errorf("%s: want only the later change in force: %q", project, got)
		}
	}
	turns(t, store, "gateway",
		"Add auth to the API.",
		"I went with JWTs signed with Ed25519 for auth, because the mobile app needs stateless tokens.",
		"Switch the logging to zap.",
		"Switched the logging from logrus to zap, because zap allocates less per line.",
	)
	if got := inForce(t, store, "gateway"); !hasText(got, "Ed25519") || !hasText(got, "zap allocates less") {
		t.Errorf("a change of another thing replaced the decision before it: %q", got)
	}
}

// Chains told the way people change their minds across a session — a
// complaint, then a change that names a new tool and not always the old
// one; a tool swapped for another with no reason given; "X is gone" —
// each end with the last memory alone in force.
func TestChainsToldInOtherWords(t *testing.T) {
	store := testutil.NewServer(t).Store
	chains := [][]string{
		{"Add a cache for the product API.", "I went with an in-process LRU cache for product lookups, since there is one replica.",
			"we're scaling to three replicas next week", "Product lookups are cached in Redis now instead of in process, because the replicas must share invalidations.",
			"Redis costs too much on our plan", "Switched the product cache to Postgres unlogged tables; Redis is gone."},
		{"How should we send push notifications?", "I chose Firebase Cloud Messaging for push, because it covers Android and iOS with one API.",
			"legal says no Google services in the EU build", "For the EU build, push now goes through our own APNs and a self-hosted ntfy server instead of FCM.",
			"ntfy keeps dropping connections on Android", "Replaced ntfy with UnifiedPush via a Gotify distributor; APNs stays for iOS."},
		{"Pick a date library for the frontend.", "Went with Moment.js since the team knows it.",
			"moment is deprecated and huge", "Swapped Moment.js for date-fns, tree-shaken imports only.",
			"date-fns formatting is painful for our locales, let's use Luxon", "Done: Luxon replaces date-fns everywhere, with Intl-based formatting."},
		{"Where do we run CI?", "CI runs on GitHub Actions with the default ubuntu runners.",
			"the actions minutes bill doubled", "Moved CI to self-hosted runners on our Hetzner box.",
			"the hetzner box keeps running out of disk, move CI to Buildkite with their hosted agents", "CI is on Buildkite now; the self-hosted runners are decommissioned."},
	}
	for i, c := range chains {
		p := fmt.Sprintf("chain%d", i)
		turns(t, store, p, c...)
		got := inForce(t, store, p)
		// The last turn's: the user's choice, or Claude's when the prompt
		// only found fault.
		if len(got) != 1 || !strings.Contains(strings.ToLower(c[len(c)-2]+"\n"+c[len(c)-1]), strings.ToLower(got[0])) {
			t.Errorf("%s: in force %q, want one memory of the last turn", p, got)
		}
	}
}

// A rule and a decision speak of the same choices: a floor set as a
// decision ("The floor is now 1.81") is replaced by the next turn's rule
// that speaks of what that turn was about (`rust-version`), though the
// two share no word; two decisions of one turn on one subject (the
// user's "swap it for X" and Claude's carrying it out) are replaced
// together.
func TestTheNextTurnAcrossKindsAndTwins(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "crate",
		"We can drop the old CentOS targets. The floor is now 1.81, don't go past that.",
		"Bumped `rust-version` and the `msrv` job's toolchain to 1.81.",
		"Minimum supported Rust version from now on: 1.85, so let chains are fine.",
		"Updated `rust-version` in Cargo.toml and the `msrv` job to 1.85.",
	)
	if got := inForce(t, store, "crate"); hasText(got, "1.81") || !hasText(got, "1.85") {
		t.Errorf("want only the last floor in force: %q", got)
	}
	turns(t, store, "fleet",
		"Ship the robots' telemetry to the cloud.",
		"I went with NATS for the fleet telemetry, because the robots already speak it on the LAN.",
		"nats can't replay a day of telemetry, swap it for Kafka",
		"Replaced NATS with Kafka: the bridge publishes through librdkafka with 72 h retention, so ops can replay any day.",
		"last change: the robot-to-cloud link is now Zenoh, with a router that keeps 72h of telemetry.",
		"Done: robots run `rmw_zenoh`, the bridge and the Kafka topics are gone.",
	)
	if got := inForce(t, store, "fleet"); hasText(got, "swap it for Kafka") || hasText(got, "Replaced NATS") || hasText(got, "NATS for the fleet") || !hasText(got, "now Zenoh") {
		t.Errorf("want the Zenoh link in force and neither Kafka decision: %q", got)
	}
}

// A short name in capitals links turns that share no other word: "Drop
// RQ. Dramatiq from now on" replaces "…, switch the jobs to RQ".
func TestAShortNameLinksTheTurns(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "rq",
		"Use Celery for the background jobs.", "Set up Celery with a Redis broker.",
		"celery is way too heavy for this, switch the jobs to RQ", "Moved the three tasks to RQ workers.",
		"Drop RQ. Dramatiq from now on, it has retries built in.", "Ported the tasks to Dramatiq actors.")
	if got := inForce(t, store, "rq"); len(got) != 1 || !hasText(got, "Dramatiq") {
		t.Errorf("want only the Dramatiq rule in force: %q", got)
	}
}

// In a turn whose prompt makes the choice, Claude's decision that only
// puts it in place ("`POLL_MS` is 2000 now") is no second memory; one
// with a reason of its own, or on another thing, stays. A user's rule on
// how often something happens is replaced by the user's next one at
// another rate.
func TestAChoiceCarriedOutAndARuleAtAnotherRate(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "greenhouse",
		"the controller must poll the humidity sensor every 5 seconds, the fans react too late otherwise",
		"Set `POLL_MS` to 5000 in `config.h`; the read takes 12 ms, so the loop has room.",
		"the sensor self-heats at that rate. polling twice a minute is the rule now",
		"`POLL_MS` is 30000 now.\n\nI also went with a median of three reads over a single read, because the sensor spikes when the mister runs.",
	)
	got := inForce(t, store, "greenhouse")
	if hasText(got, "every 5 seconds") || hasText(got, "POLL_MS` is 30000") || hasText(got, "POLL_MS is 30000") {
		t.Errorf("the old rate, or the setting that only carries out the new one, is in force: %q", got)
	}
	if !hasText(got, "twice a minute") || !hasText(got, "median of three") {
		t.Errorf("want the user's new rule and Claude's own reasoned decision in force: %q", got)
	}
}

// What a change took away, told in its own sentence, is part of the
// change: one memory, not two.
func TestARemovalIsPartOfItsChange(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "vscode-ext",
		"the bundle keeps breaking the native module paths",
		"I took bundling out: the extension now ships plain `tsc` output rather than an esbuild bundle, since vsce packages dependencies itself.\n\n`esbuild` and its config are removed.",
	)
	got := inForce(t, store, "vscode-ext")
	if len(got) != 1 || !hasText(got, "plain `tsc` output") && !hasText(got, "plain tsc output") {
		t.Errorf("want only the change in force, got %q", got)
	}
}

// A user's new rule on one thing leaves the user's rule on another that
// its turn only mentions ("… the FRAM fills up" does not retire
// "calibration offsets go in the FRAM"), and replaces the old rule on
// its own thing (another rate).
func TestAUsersRuleLeavesTheRuleItMentions(t *testing.T) {
	store := testutil.NewServer(t).Store
	turns(t, store, "kiln",
		"from now on calibration offsets go in the external FRAM chip, it doesn't wear out",
		"Calibration now lives in the FM24CL16 FRAM at 0x000, with a CRC-16.",
		"the controller must log the chamber temperature every 10 seconds",
		"Set `LOG_PERIOD_S` to 10.",
		"new rule after the firing test: log the chamber temperature four times a minute, the FRAM fills up on long firings",
		"`LOG_PERIOD_S` is 15 now.",
	)
	got := inForce(t, store, "kiln")
	if !hasText(got, "alibration") || !hasText(got, "four times a minute") || hasText(got, "every 10 seconds") {
		t.Errorf("want the calibration rule and the new rule in force, the old rule replaced: %q", got)
	}
}
