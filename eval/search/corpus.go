// Package searcheval is the relevance benchmark of mneme's search: a
// realistic memory of four projects (prompts, tool calls, failures and
// summaries, stored through the ingest path), and queries judged by hand,
// half of them held out from tuning. See README.md.
package searcheval

// The corpus: four projects over three weeks, written as a person's
// sessions with Claude Code would leave them. Every row has a key the
// judgments (testdata/*.json) name; keys are "<session>.<name>".

// session is one Claude Code session of a project.
type session struct {
	key     string
	project string
	day     int // days after the corpus' first day
	turns   []turn
	final   *summary // the session's final summary, if any
}

// turn is one prompt, the tool calls it caused and its turn summary.
type turn struct {
	key    string // the prompt's key
	prompt string
	steps  []step
	sum    *summary
}

// step is one tool call: PostToolUse, or PostToolUseFailure when err is set.
type step struct {
	key      string
	tool     string
	input    map[string]any
	response map[string]any
	err      string
}

// summary is a turn or final summary, as a summarizer stores it.
type summary struct {
	key                                             string
	request, investigated, learned, completed, next string
}

func bash(key, cmd, out string) step {
	return step{key: key, tool: "Bash", input: map[string]any{"command": cmd}, response: map[string]any{"stdout": out, "stderr": "", "interrupted": false}}
}

func bashFail(key, cmd, err string) step {
	return step{key: key, tool: "Bash", input: map[string]any{"command": cmd}, err: err}
}

func edit(key, file, old, new string) step {
	return step{key: key, tool: "Edit", input: map[string]any{"file_path": file, "old_string": old, "new_string": new},
		response: map[string]any{"filePath": file, "oldString": old, "newString": new}}
}

func write(key, file, content string) step {
	return step{key: key, tool: "Write", input: map[string]any{"file_path": file, "content": content},
		response: map[string]any{"type": "create", "filePath": file, "content": content}}
}

func read(key, file, content string) step {
	return step{key: key, tool: "Read", input: map[string]any{"file_path": file},
		response: map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": content}}}
}

func grep(key, pattern, path string, files ...string) step {
	return step{key: key, tool: "Grep", input: map[string]any{"pattern": pattern, "path": path},
		response: map[string]any{"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}}
}

func sum(key, request, investigated, learned, completed, next string) *summary {
	return &summary{key, request, investigated, learned, completed, next}
}

const (
	shop = "/src/shopfront"
	gw   = "/src/api-gw"
	etl  = "/src/billing-etl"
	docs = "/src/docs-site"
)

var corpus = []session{
	// ---- shopfront: a Go web shop ----
	{key: "shop1", project: "shopfront", day: 0, turns: []turn{
		{key: "shop1.p1", prompt: "Customers who cancel an order get refunded twice. Find the refund bug and fix it.",
			steps: []step{
				grep("shop1.grep", "Refund\\(", shop, shop+"/payments/refund.go", shop+"/orders/cancel.go", shop+"/webhooks/stripe.go", shop+"/payments/refund_test.go"),
				read("shop1.read", shop+"/orders/cancel.go", "func (s *Service) Cancel(ctx context.Context, id int64) error {\n\to, err := s.orders.Get(ctx, id)\n\tif err != nil {\n\t\treturn err\n\t}\n\tif err := s.payments.Refund(ctx, o.ChargeID, o.Total); err != nil {\n\t\treturn err\n\t}\n\treturn s.orders.SetStatus(ctx, id, StatusCancelled)\n}\n"),
				read("shop1.read2", shop+"/webhooks/stripe.go", "case \"charge.refund.updated\", \"order.cancelled\":\n\t// keep payments in sync with the order\n\treturn h.payments.Refund(ctx, ev.ChargeID, ev.Amount)\n"),
				bashFail("shop1.test", "go test ./payments/ -run TestRefund", "Exit code 1\n--- FAIL: TestRefundOnCancel (0.02s)\n    refund_test.go:48: refund issued twice for order 1042: want 1 call to stripe, got 2\nFAIL\nFAIL\tshopfront/payments\t0.031s"),
				edit("shop1.fix", shop+"/payments/refund.go", "func (p *Payments) Refund(ctx context.Context, charge string, amount int64) error {\n\treturn p.stripe.Refund(ctx, charge, amount)", "func (p *Payments) Refund(ctx context.Context, charge string, amount int64) error {\n\t// Cancel and the order.cancelled webhook both refund: the idempotency\n\t// key makes the second call a no-op at Stripe.\n\treturn p.stripe.Refund(ctx, charge, amount, stripe.IdempotencyKey(\"refund:\"+charge))"),
				bash("shop1.pass", "go test ./payments/", "ok  \tshopfront/payments\t0.044s"),
			},
			sum: sum("shop1.s1", "Fix customers being refunded twice when they cancel an order",
				"orders/cancel.go and the Stripe webhook handler for order.cancelled both call payments.Refund",
				"The double refund came from two callers: Cancel refunds, then the order.cancelled webhook refunds again. Stripe idempotency keys (refund:<charge>) make the second call a no-op.",
				"Added an idempotency key to Payments.Refund; TestRefundOnCancel passes.",
				"Add a regression test that cancels twice.")},
		{key: "shop1.p2", prompt: "add a regression test for the double refund, cancelling the same order twice",
			steps: []step{
				write("shop1.regtest", shop+"/payments/refund_twice_test.go", "func TestCancelTwiceRefundsOnce(t *testing.T) {\n\tsvc, fake := newService(t)\n\tsvc.Cancel(ctx, 1042)\n\tsvc.Cancel(ctx, 1042)\n\tif fake.Refunds != 1 {\n\t\tt.Fatalf(\"refunds = %d, want 1\", fake.Refunds)\n\t}\n}\n"),
				bash("shop1.all", "go test ./...", "ok  \tshopfront/cart\t0.120s\nok  \tshopfront/checkout\t0.310s\nok  \tshopfront/orders\t0.088s\nok  \tshopfront/payments\t0.051s\nok  \tshopfront/webhooks\t0.067s"),
			},
			sum: sum("shop1.s2", "Regression test for the double refund", "", "", "TestCancelTwiceRefundsOnce cancels order 1042 twice and expects one refund; the whole suite passes.", "")},
	}, final: sum("shop1.final", "Double refund on cancel", "orders/cancel.go, webhooks/stripe.go, payments/refund.go",
		"Both Cancel and the order.cancelled webhook refunded; Stripe idempotency key refund:<charge> fixes it.",
		"Fix and regression test merged.", "")},

	{key: "shop2", project: "shopfront", day: 3, turns: []turn{
		{key: "shop2.p1", prompt: "The checkout page takes 4 seconds to load for carts with many items. Profile it and make it fast.",
			steps: []step{
				bash("shop2.bench", "go test ./checkout/ -bench BenchmarkCheckoutPage -benchmem", "BenchmarkCheckoutPage-8   \t      3\t 412003117 ns/op\t 8841 allocs/op\nPASS\nok  \tshopfront/checkout\t2.9s"),
				bash("shop2.trace", "MNEME_SQL_LOG=1 go test ./checkout/ -run TestCheckoutManyItems -v 2>&1 | grep -c 'SELECT \\* FROM products'", "120"),
				read("shop2.read", shop+"/cart/items.go", "for _, line := range cart.Lines {\n\tp, err := s.products.ByID(ctx, line.ProductID) // one query per line\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\titems = append(items, Item{Product: p, Qty: line.Qty})\n}\n"),
				edit("shop2.fix", shop+"/cart/items.go", "p, err := s.products.ByID(ctx, line.ProductID) // one query per line", "p := byID[line.ProductID] // loaded above with one SELECT … WHERE id IN (…)"),
				bash("shop2.after", "go test ./checkout/ -bench BenchmarkCheckoutPage -benchmem", "BenchmarkCheckoutPage-8   \t    290\t   3981220 ns/op\t  912 allocs/op\nPASS\nok  \tshopfront/checkout\t1.6s"),
			},
			sum: sum("shop2.s1", "Make the checkout page fast for large carts",
				"Benchmarked the checkout page and logged SQL: 120 product queries for a 120-line cart",
				"Checkout was slow because cart items were loaded with one query per line (an N+1 query). One SELECT with WHERE id IN loads them all.",
				"cart/items.go loads products in one query; BenchmarkCheckoutPage went from 412 ms to 4 ms.", "")},
	}},

	{key: "shop3", project: "shopfront", day: 7, turns: []turn{
		{key: "shop3.p1", prompt: "Stripe webhooks have been failing with 400 since yesterday's deploy, why?",
			steps: []step{
				bash("shop3.logs", "kubectl logs deploy/shopfront --since=24h | grep webhook | tail -5", "level=WARN msg=\"webhook rejected\" path=/webhooks/stripe status=400 err=\"stripe: signature verification failed: timestamp outside the tolerance zone\"\nlevel=WARN msg=\"webhook rejected\" path=/webhooks/stripe status=400 err=\"stripe: signature verification failed: timestamp outside the tolerance zone\"\nlevel=INFO msg=\"webhook ok\" type=charge.refunded"),
				bash("shop3.date", "kubectl exec deploy/shopfront -- date -u; date -u", "Mon Nov  9 10:21:40 UTC 2026\nMon Nov  9 10:14:02 UTC 2026"),
				read("shop3.read", shop+"/webhooks/stripe.go", "ev, err := webhook.ConstructEvent(body, sig, h.secret)\nif err != nil {\n\treturn fiber.NewError(400, err.Error())\n}\n"),
				edit("shop3.fix", shop+"/deploy/shopfront.yaml", "      containers:\n      - name: shopfront", "      initContainers:\n      - name: ntp-sync\n        image: cturra/ntp\n      containers:\n      - name: shopfront"),
			},
			sum: sum("shop3.s1", "Stripe webhooks rejected with 400 after the deploy",
				"Worker logs show signature verification failed: timestamp outside the tolerance zone; the new node's clock is 7.5 minutes ahead",
				"The webhook signature check failed because of clock skew on the new node (Stripe allows 5 minutes). Not a secret or code problem.",
				"Added an NTP sync init container to the deployment.", "Ask ops to enable chrony on the node pool.")},
	}},

	{key: "shop4", project: "shopfront", day: 12, turns: []turn{
		{key: "shop4.p1", prompt: "bump Go to 1.23 and update the dependencies, then make sure lint is clean",
			steps: []step{
				edit("shop4.gomod", shop+"/go.mod", "go 1.22", "go 1.23"),
				bash("shop4.get", "go get -u ./... && go mod tidy", "go: upgraded github.com/stripe/stripe-go/v76 v76.8.0 => v76.25.0\ngo: upgraded github.com/gofiber/fiber/v2 v2.52.0 => v2.52.5\ngo: upgraded golang.org/x/crypto v0.21.0 => v0.28.0"),
				bashFail("shop4.lint", "golangci-lint run ./...", "Exit code 1\npayments/refund.go:31:12: Error return value of `p.audit.Log` is not checked (errcheck)\ncart/items.go:58:2: ineffectual assignment to err (ineffassign)\n2 issues."),
				edit("shop4.lintfix", shop+"/payments/refund.go", "\tp.audit.Log(ctx, \"refund\", charge)", "\tif err := p.audit.Log(ctx, \"refund\", charge); err != nil {\n\t\treturn err\n\t}"),
				bash("shop4.lint2", "golangci-lint run ./...", ""),
				bash("shop4.test", "go test ./...", "ok  \tshopfront/cart\t0.118s\nok  \tshopfront/checkout\t0.305s\nok  \tshopfront/orders\t0.091s\nok  \tshopfront/payments\t0.049s\nok  \tshopfront/webhooks\t0.070s"),
			},
			sum: sum("shop4.s1", "Go 1.23, dependency updates, lint clean",
				"", "golangci-lint's errcheck flagged the unchecked audit log in payments/refund.go after the update.",
				"go.mod at 1.23, stripe-go v76.25.0, fiber v2.52.5; lint and tests pass.", "")},
		{key: "shop4.p2", prompt: "git status and commit it all",
			steps: []step{
				bash("shop4.status", "git status --short", " M go.mod\n M go.sum\n M payments/refund.go\n M cart/items.go"),
				bash("shop4.commit", "git commit -am 'Go 1.23, deps, lint'", "[main 4be1c07] Go 1.23, deps, lint\n 4 files changed, 41 insertions(+), 37 deletions(-)"),
			}},
	}},

	{key: "shop5", project: "shopfront", day: 20, turns: []turn{
		{key: "shop5.p1", prompt: "Add coupon codes: a coupons table, percent or fixed discount, applied at checkout",
			steps: []step{
				write("shop5.mig", shop+"/migrations/0007_coupons.sql", "CREATE TABLE coupons (\n  code TEXT PRIMARY KEY,\n  percent_off INTEGER,\n  amount_off INTEGER,\n  expires_at TIMESTAMP\n);\nALTER TABLE orders ADD COLUMN coupon_code TEXT;\nALTER TABLE orders ADD CONSTRAINT fk_coupon FOREIGN KEY (coupon_code) REFERENCES coupons(code);\n"),
				bashFail("shop5.migrate", "go run ./cmd/migrate up", "Exit code 1\nmigrate: 0007_coupons.sql: near \"CONSTRAINT\": syntax error\nSQLite does not support ALTER TABLE ADD CONSTRAINT"),
				edit("shop5.migfix", shop+"/migrations/0007_coupons.sql", "ALTER TABLE orders ADD COLUMN coupon_code TEXT;\nALTER TABLE orders ADD CONSTRAINT fk_coupon FOREIGN KEY (coupon_code) REFERENCES coupons(code);", "ALTER TABLE orders ADD COLUMN coupon_code TEXT REFERENCES coupons(code);"),
				bash("shop5.migrate2", "go run ./cmd/migrate up", "applied 0007_coupons.sql"),
				write("shop5.code", shop+"/checkout/coupon.go", "// ApplyCoupon takes percent_off or amount_off off the total, never below zero.\nfunc ApplyCoupon(total int64, c Coupon) int64 {\n\tif c.PercentOff > 0 {\n\t\ttotal -= total * int64(c.PercentOff) / 100\n\t}\n\treturn max(total-c.AmountOff, 0)\n}\n"),
				bash("shop5.test", "go test ./checkout/", "ok  \tshopfront/checkout\t0.322s"),
			},
			sum: sum("shop5.s1", "Coupon codes at checkout",
				"", "SQLite cannot ALTER TABLE ADD CONSTRAINT: the foreign key goes on the ADD COLUMN itself.",
				"migrations/0007_coupons.sql and checkout/coupon.go (percent or fixed amount, never below zero).",
				"Show the discount on the order confirmation email.")},
	}},

	// ---- api-gw: an HTTP gateway in Go ----
	{key: "gw1", project: "api-gw", day: 1, turns: []turn{
		{key: "gw1.p1", prompt: "since the cookie change this morning users are logged out right after login. investigate",
			steps: []step{
				bash("gw1.curl", "curl -si -X POST localhost:8080/session -d '{\"user\":\"demo\",\"password\":\"demo\"}' | head -3; curl -si localhost:8080/me -b cookies.txt | head -1", "HTTP/1.1 200 OK\nSet-Cookie: sid=9f2c…; Path=/api; Domain=api.example.com; SameSite=Strict; Secure; HttpOnly\n\nHTTP/1.1 401 Unauthorized"),
				bashFail("gw1.test", "go test ./middleware/ -run TestSessionCookie", "Exit code 1\n--- FAIL: TestSessionCookie (0.01s)\n    session_test.go:77: POST /session returned 401 after the cookie change: cookie sid not sent to /me (Path=/api)\nFAIL"),
				read("gw1.read", gw+"/middleware/session.go", "http.SetCookie(w, &http.Cookie{\n\tName: \"sid\", Value: id,\n\tPath: \"/api\",\n\tDomain: \"api.example.com\",\n\tSameSite: http.SameSiteStrictMode,\n\tSecure: true, HttpOnly: true,\n})\n"),
				edit("gw1.fix", gw+"/middleware/session.go", "\tPath: \"/api\",\n\tDomain: \"api.example.com\",\n\tSameSite: http.SameSiteStrictMode,", "\tPath: \"/\",\n\tDomain: \".example.com\",\n\tSameSite: http.SameSiteLaxMode,"),
				bash("gw1.pass", "go test ./middleware/", "ok  \tapi-gw/middleware\t0.034s"),
			},
			sum: sum("gw1.s1", "Users logged out right after login since the cookie change",
				"The session cookie was set with Path=/api and Domain=api.example.com; /me is outside /api, so the browser never sent sid and every request after login got 401",
				"Login broke because the cookie change narrowed the session cookie's Path to /api: the cookie was not sent, so the session looked missing (401).",
				"Session cookie back to Path=/ and Domain=.example.com, SameSite=Lax; TestSessionCookie passes.", "")},
	}, final: sum("gw1.final", "Logout after login", "", "The sid cookie must have Path=/; SameSite=Strict also broke the redirect from the identity provider.", "Fixed in middleware/session.go.", "")},

	{key: "gw2", project: "api-gw", day: 5, turns: []turn{
		{key: "gw2.p1", prompt: "add rate limiting per client IP: 100 requests per minute, 429 with Retry-After beyond that",
			steps: []step{
				write("gw2.limiter", gw+"/ratelimit/limiter.go", "// Limiter is a token bucket per client IP: 100 tokens, refilled at 100 per minute.\ntype Limiter struct {\n\tmu      sync.Mutex\n\tbuckets map[netip.Addr]*bucket\n}\n"),
				edit("gw2.wire", gw+"/server.go", "r.Use(middleware.Session)", "r.Use(ratelimit.New(100, time.Minute).Middleware) // 429 + Retry-After\n\tr.Use(middleware.Session)"),
				bash("gw2.test", "go test ./ratelimit/ -v", "=== RUN   TestLimiterAllows100\n--- PASS: TestLimiterAllows100 (0.00s)\n=== RUN   TestLimiter429RetryAfter\n--- PASS: TestLimiter429RetryAfter (0.00s)\nPASS\nok  \tapi-gw/ratelimit\t0.012s"),
			},
			sum: sum("gw2.s1", "Per-IP rate limit, 100 requests a minute",
				"", "Decision: an in-memory token bucket per IP, not Redis: the gateway runs as one replica; revisit if it scales out.",
				"ratelimit/limiter.go wired in server.go before the session middleware; 429 with Retry-After.", "Exempt the health check from the limit.")},
		{key: "gw2.p2", prompt: "the health check should not be rate limited",
			steps: []step{
				edit("gw2.health", gw+"/ratelimit/limiter.go", "func (l *Limiter) Middleware(next http.Handler) http.Handler {\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {", "func (l *Limiter) Middleware(next http.Handler) http.Handler {\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n\t\tif r.URL.Path == \"/healthz\" {\n\t\t\tnext.ServeHTTP(w, r)\n\t\t\treturn\n\t\t}"),
				bash("gw2.test2", "go test ./ratelimit/", "ok  \tapi-gw/ratelimit\t0.011s"),
			}},
	}},

	{key: "gw3", project: "api-gw", day: 9, turns: []turn{
		{key: "gw3.p1", prompt: "the orders upstream is unreachable from the gateway in staging",
			steps: []step{
				bashFail("gw3.curl", "curl -sS https://orders.staging.internal:8443/healthz", "Exit code 7\ncurl: (7) Failed to connect to orders.staging.internal port 8443 after 3 ms: Connection refused"),
				bash("gw3.logs", "kubectl -n staging logs deploy/api-gw | grep upstream | tail -3", "level=ERROR msg=\"upstream unavailable\" upstream=orders err=\"dial tcp 10.0.3.7:8443: connect: connection refused\"\nlevel=ERROR msg=\"upstream unavailable\" upstream=orders err=\"dial tcp 10.0.3.7:8443: connect: connection refused\""),
				bash("gw3.svc", "kubectl -n staging get svc orders -o jsonpath='{.spec.ports}'", "[{\"name\":\"https\",\"port\":9443,\"protocol\":\"TCP\",\"targetPort\":9443}]"),
				edit("gw3.fix", gw+"/config/staging.yaml", "  orders: https://orders.staging.internal:8443", "  orders: https://orders.staging.internal:9443"),
				bash("gw3.ok", "curl -sS https://orders.staging.internal:9443/healthz", "{\"status\":\"ok\"}"),
			},
			sum: sum("gw3.s1", "Orders upstream unreachable in staging",
				"connection refused on 10.0.3.7:8443; the orders service listens on 9443 since its TLS change",
				"The gateway's staging config pointed at the old port 8443; orders moved to 9443.",
				"config/staging.yaml now uses port 9443; health check answers ok.", "")},
		{key: "gw3.p2", prompt: "and production says x509 certificate has expired for the billing upstream",
			steps: []step{
				bashFail("gw3.x509", "curl -sS https://billing.internal/healthz", "Exit code 60\ncurl: (60) SSL certificate problem: certificate has expired"),
				bash("gw3.cert", "echo | openssl s_client -connect billing.internal:443 2>/dev/null | openssl x509 -noout -enddate", "notAfter=Nov 10 00:00:00 2026 GMT"),
				bash("gw3.renew", "kubectl -n prod annotate certificate billing-tls cert-manager.io/issue-temporary-certificate- && kubectl -n prod delete secret billing-tls", "certificate.cert-manager.io/billing-tls annotated\nsecret \"billing-tls\" deleted"),
			},
			sum: sum("gw3.s2", "Expired TLS certificate on the billing upstream",
				"", "cert-manager had not renewed billing-tls (notAfter Nov 10): deleting the secret forces a new certificate.",
				"billing-tls reissued.", "Add an alert on certificate expiry under 14 days.")},
	}},

	{key: "gw4", project: "api-gw", day: 15, turns: []turn{
		{key: "gw4.p1", prompt: "TestProxyTimeout is flaky on CI, fails maybe one run in twenty. Make it deterministic.",
			steps: []step{
				bashFail("gw4.count", "go test ./proxy/ -run TestProxyTimeout -count=50", "Exit code 1\n--- FAIL: TestProxyTimeout (0.02s)\n    proxy_test.go:112: context deadline exceeded before the upstream answered: want 504, got 502\n--- FAIL: TestProxyTimeout (0.02s)\n    proxy_test.go:112: context deadline exceeded before the upstream answered: want 504, got 502\nFAIL\nFAIL\tapi-gw/proxy\t1.2s"),
				read("gw4.read", gw+"/proxy/proxy_test.go", "upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n\ttime.Sleep(15 * time.Millisecond)\n}))\np := New(upstream.URL, 10*time.Millisecond)\n"),
				edit("gw4.fix", gw+"/proxy/proxy_test.go", "\ttime.Sleep(15 * time.Millisecond)\n}))\np := New(upstream.URL, 10*time.Millisecond)", "\t<-release // the test decides when the upstream answers\n}))\np := New(upstream.URL, 50*time.Millisecond)"),
				bash("gw4.pass", "go test ./proxy/ -run TestProxyTimeout -count=200", "ok  \tapi-gw/proxy\t10.4s"),
			},
			sum: sum("gw4.s1", "Make the flaky TestProxyTimeout deterministic",
				"The test raced a 15 ms sleeping upstream against a 10 ms proxy timeout; on a loaded CI runner the dial itself took longer, giving 502 instead of 504",
				"Flaky because it relied on sleep timing; the upstream now blocks on a channel the test controls.",
				"Passes 200 runs in a row.", "")},
	}},

	// ---- billing-etl: Python jobs ----
	{key: "etl1", project: "billing-etl", day: 2, turns: []turn{
		{key: "etl1.p1", prompt: "the nightly invoice export crashed last night, see what happened",
			steps: []step{
				bash("etl1.log", "tail -20 /var/log/etl/invoice_export.log", "2026-11-03 02:00:01 INFO export started\n2026-11-03 02:00:07 ERROR export failed\nTraceback (most recent call last):\n  File \"etl/export.py\", line 41, in load_customers\n    for row in csv.DictReader(f):\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 112: invalid continuation byte"),
				bash("etl1.file", "file data/customers.csv; sed -n 3p data/customers.csv | xxd | head -2", "data/customers.csv: ISO-8859 text, with CRLF line terminators\n00000000: 3130 3432 2c52 656e e92c 4475 706f 6e74  1042,Ren.,Dupont"),
				edit("etl1.fix", etl+"/etl/export.py", "with open(path, newline=\"\") as f:", "with open(path, newline=\"\", encoding=\"latin-1\") as f:  # the CRM exports ISO-8859-1"),
				bash("etl1.rerun", "python -m etl.export --date 2026-11-02", "exported 1,884 invoices to s3://billing-exports/2026-11-02.parquet"),
			},
			sum: sum("etl1.s1", "Nightly invoice export crashed",
				"UnicodeDecodeError reading data/customers.csv: the CRM export is ISO-8859-1 (René)",
				"The export crashed on a non-UTF-8 customers.csv; the CRM writes latin-1.",
				"export.py opens the file as latin-1; the 2026-11-02 export rerun (1,884 invoices).", "")},
	}},

	{key: "etl2", project: "billing-etl", day: 6, turns: []turn{
		{key: "etl2.p1", prompt: "some invoice totals are off by one cent compared to the PDF. find out why",
			steps: []step{
				bashFail("etl2.pytest", "pytest tests/test_totals.py -q", "Exit code 1\nF.\n=================================== FAILURES ===================================\n_____________________________ test_vat_rounding ______________________________\n    assert invoice_total(lines, vat=0.2) == Decimal('10.02')\nE   AssertionError: assert 10.01 == Decimal('10.02')\n1 failed, 1 passed in 0.08s"),
				read("etl2.read", etl+"/etl/totals.py", "def invoice_total(lines, vat):\n    net = sum(l.qty * l.price for l in lines)\n    return round(net * (1 + vat), 2)\n"),
				edit("etl2.fix", etl+"/etl/totals.py", "    net = sum(l.qty * l.price for l in lines)\n    return round(net * (1 + vat), 2)", "    net = sum(Decimal(l.qty) * Decimal(l.price) for l in lines)\n    total = net * (1 + Decimal(str(vat)))\n    return total.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)"),
				bash("etl2.pass", "pytest tests/ -q", "..........\n10 passed in 0.21s"),
			},
			sum: sum("etl2.s1", "Invoice totals off by one cent",
				"test_vat_rounding: float arithmetic and Python's banker's rounding gave 10.01 where the PDF says 10.02",
				"Money must be Decimal with ROUND_HALF_UP, as the PDF renderer does; float plus round() rounds half to even.",
				"etl/totals.py uses Decimal and quantize(ROUND_HALF_UP); all tests pass.", "")},
	}, final: sum("etl2.final", "Cent rounding", "", "Rule: never use float for money in billing-etl; Decimal with ROUND_HALF_UP everywhere.", "totals.py fixed.", "Check the credit note code for the same float rounding.")},

	{key: "etl3", project: "billing-etl", day: 11, turns: []turn{
		{key: "etl3.p1", prompt: "move the nightly jobs from cron to Airflow",
			steps: []step{
				write("etl3.dag", etl+"/dags/nightly.py", "with DAG('billing_nightly', schedule='0 2 * * *', start_date=datetime(2026, 11, 1), catchup=False) as dag:\n    export = PythonOperator(task_id='invoice_export', python_callable=export.run)\n    revenue = PythonOperator(task_id='revenue_report', python_callable=report.run)\n    export >> revenue\n"),
				bashFail("etl3.run", "airflow tasks test billing_nightly invoice_export 2026-11-11", "Exit code 1\npsycopg2.OperationalError: connection to server at \"db.internal\" (10.0.5.2), port 5432 failed: FATAL:  password authentication failed for user \"etl\""),
				bash("etl3.conn", "airflow connections add billing_db --conn-uri 'postgresql://etl@db.internal:5432/billing' --conn-password \"$(cat /run/secrets/etl_db_password)\"", "Successfully added `conn_id`=billing_db : postgresql://etl:******@db.internal:5432/billing"),
				bash("etl3.run2", "airflow tasks test billing_nightly invoice_export 2026-11-11", "exported 1,902 invoices\n[2026-11-14 10:02:11] INFO - Marking task as SUCCESS"),
				bash("etl3.cron", "crontab -l | grep -v etl | crontab -", ""),
			},
			sum: sum("etl3.s1", "Nightly jobs from cron to Airflow",
				"Airflow workers had no database password: psycopg2 password authentication failed for user etl",
				"The DAG reads the database through the Airflow connection billing_db, whose password comes from /run/secrets/etl_db_password.",
				"dags/nightly.py (export then revenue report, 02:00); cron entries removed.", "")},
	}},

	{key: "etl4", project: "billing-etl", day: 18, turns: []turn{
		{key: "etl4.p1", prompt: "the revenue report still counts refunded invoices, exclude them",
			steps: []step{
				read("etl4.read", etl+"/sql/revenue.sql", "SELECT date_trunc('month', issued_at) AS month, sum(total) AS revenue\nFROM invoices\nGROUP BY 1 ORDER BY 1;\n"),
				edit("etl4.fix", etl+"/sql/revenue.sql", "FROM invoices\nGROUP BY 1", "FROM invoices\nWHERE status <> 'refunded'\nGROUP BY 1"),
				bash("etl4.check", "psql billing -c \"SELECT count(*) FROM invoices WHERE status = 'refunded' AND issued_at >= '2026-10-01'\"", " count \n-------\n    37\n(1 row)"),
				bash("etl4.test", "pytest tests/test_revenue.py -q", "...\n3 passed in 0.12s"),
			},
			sum: sum("etl4.s1", "Exclude refunded invoices from the revenue report",
				"37 refunded invoices since October were counted as revenue",
				"Revenue must leave out invoices with status refunded.",
				"sql/revenue.sql filters status <> 'refunded'; tests pass.", "")},
	}},

	// ---- docs-site: Hugo ----
	{key: "docs1", project: "docs-site", day: 4, turns: []turn{
		{key: "docs1.p1", prompt: "hugo build fails after the theme update, fix it",
			steps: []step{
				bashFail("docs1.build", "hugo --minify", "Exit code 255\nError: error building site: process: readAndProcessContent: \"content/guides/install.md:14:1\": failed to extract shortcode: template for shortcode \"youtube\" not found"),
				bash("docs1.ls", "ls themes/docsy/layouts/shortcodes/", "alert.html\nblocks\ncard.html\ntabpane.html"),
				write("docs1.shortcode", docs+"/layouts/shortcodes/youtube.html", "<div class=\"video\"><iframe src=\"https://www.youtube-nocookie.com/embed/{{ .Get 0 }}\" allowfullscreen></iframe></div>\n"),
				bash("docs1.ok", "hugo --minify", "Pages | 212\nTotal in 1843 ms"),
			},
			sum: sum("docs1.s1", "Hugo build broken after the theme update",
				"", "The new docsy theme dropped the youtube shortcode; a local layouts/shortcodes/youtube.html overrides it.",
				"Site builds again (212 pages).", "")},
	}},

	{key: "docs2", project: "docs-site", day: 13, turns: []turn{
		{key: "docs2.p1", prompt: "after moving everything under /docs/v2 we have broken links, find and fix them",
			steps: []step{
				bashFail("docs2.htmltest", "htmltest public/", "Exit code 1\n  target does not exist --- guides/install/index.html --> /docs/configuration/\n  target does not exist --- index.html --> /docs/api/\n✘✘✘ failed in 2.1s, 14 errors in 212 documents"),
				grep("docs2.grep", "\\]\\(/docs/[a-z]", docs+"/content", docs+"/content/guides/install.md", docs+"/content/_index.md", docs+"/content/guides/upgrade.md"),
				bash("docs2.sed", "grep -rl '](/docs/' content | xargs sed -i 's#](/docs/#](/docs/v2/#g'", ""),
				edit("docs2.aliases", docs+"/content/docs/v2/configuration.md", "title: Configuration", "title: Configuration\naliases: [/docs/configuration/]"),
				bash("docs2.ok", "hugo --minify && htmltest public/", "✔✔✔ passed in 2.0s, tested 212 documents"),
			},
			sum: sum("docs2.s1", "Broken links after the move to /docs/v2",
				"htmltest: 14 broken links pointing at /docs/… without v2",
				"Moved pages keep their old URL through Hugo aliases in front matter; internal links rewritten to /docs/v2/.",
				"Links fixed, htmltest passes on 212 documents.", "")},
	}},

	// ---- later work that mentions earlier topics in passing ----
	{key: "shop6", project: "shopfront", day: 22, turns: []turn{
		{key: "shop6.p1", prompt: "write the changelog for the release",
			steps: []step{
				bash("shop6.log", "git log --oneline v1.8.0..HEAD", "9a1f0e2 coupons: percent or fixed discount at checkout\n4be1c07 Go 1.23, deps, lint\n7c3d2a9 deploy: NTP sync init container (webhook signature clock skew)\n2e8b9d4 cart: load products in one query (N+1)\n5f0c1b7 payments: idempotency key on refunds, regression test"),
				write("shop6.changelog", shop+"/CHANGELOG.md", "## v1.9.0\n\n- Coupon codes at checkout (percent or fixed amount).\n- Fixed: customers refunded twice when cancelling an order.\n- Fixed: slow checkout page for large carts.\n- Fixed: Stripe webhooks rejected after deploys (clock skew).\n- Go 1.23.\n"),
			}},
		{key: "shop6.p2", prompt: "tag v1.9.0 and push",
			steps: []step{
				bash("shop6.tag", "git tag -a v1.9.0 -m v1.9.0 && git push origin main v1.9.0", "To github.com:acme/shopfront.git\n * [new tag]         v1.9.0 -> v1.9.0"),
			}},
	}},

	{key: "gw5", project: "api-gw", day: 19, turns: []turn{
		{key: "gw5.p1", prompt: "add structured request logging with the request id, and make sure the session cookie value never shows up in logs",
			steps: []step{
				edit("gw5.log", gw+"/middleware/logging.go", "log.Printf(\"%s %s %d\", r.Method, r.URL.Path, status)", "logger.Info(\"request\", \"id\", RequestID(r.Context()), \"method\", r.Method, \"path\", r.URL.Path, \"status\", status, \"ms\", time.Since(start).Milliseconds())"),
				bash("gw5.test", "go test ./middleware/ -run 'TestLogging|TestSessionCookie' -v", "=== RUN   TestLoggingHasRequestID\n--- PASS: TestLoggingHasRequestID (0.00s)\n=== RUN   TestLoggingHidesCookie\n--- PASS: TestLoggingHidesCookie (0.00s)\n=== RUN   TestSessionCookie\n--- PASS: TestSessionCookie (0.00s)\nPASS"),
			},
			sum: sum("gw5.s1", "Structured request logging", "", "Headers are never logged: the Cookie header carries the session id.",
				"slog request lines with id, method, path, status and duration.", "")},
	}},
}

// corpusKeys is the set of every row key of the corpus.
func corpusKeys() map[string]bool {
	keys := map[string]bool{}
	for _, s := range corpus {
		for _, tr := range s.turns {
			keys[tr.key] = true
			for _, st := range tr.steps {
				keys[st.key] = true
			}
			if tr.sum != nil {
				keys[tr.sum.key] = true
			}
		}
		if s.final != nil {
			keys[s.final.key] = true
		}
	}
	return keys
}
