// Package benchdb builds the synthetic mneme databases the benchmarks run
// on: realistic row shapes, a Zipf vocabulary, built fast with raw batched
// inserts and cached for the run.
package benchdb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/models"
	"github.com/mneme-dev/mneme/models/internal/storedb"
)

// Rows is how many observations the synthetic benchmark database
// holds: MNEME_BENCH_ROWS when set, else 1,000,000, or 20,000 under -short.
func Rows(tb testing.TB) int {
	tb.Helper()
	if v := os.Getenv("MNEME_BENCH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			tb.Fatalf("MNEME_BENCH_ROWS=%q: want a whole number ≥ 1000", v)
		}
		return n
	}
	if testing.Short() {
		return 20_000
	}
	return 1_000_000
}

// DB describes a synthetic database built by Build.
type DB struct {
	Dir          string // data directory holding mneme.db
	Observations int
	Prompts      int
	Summaries    int
	Sessions     int
	Projects     []string
	Built        time.Duration // 0 when reused from MNEME_BENCH_CACHE
}

// benchVocab is the synthetic vocabulary: the first words are real
// developer words (the most frequent ranks), the rest pronounceable
// made-up words. Word frequencies follow a Zipf law over the ranks.
var benchVocab = func() []string {
	words := strings.Fields(`error test go file func return package import run build fail pass
		type struct string int main model handler server client request response context config
		session prompt observation summary search index query database sqlite migration schema
		table column row insert update delete select commit rollback transaction writer reader
		stream event broker subscriber publish channel goroutine mutex lock timeout retry backoff
		http json template page route middleware token header cookie origin host port socket
		websocket reconnect cache memory disk path directory module version release deploy docker
		compose kubernetes cluster node pod service ingress secret volume network proxy gateway
		parser lexer token syntax tree visitor compiler linker binary debug trace log metric`)
	syl := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "bra", "cle", "dro", "fli", "gru", "pla", "sto", "tre"}
	r := rand.New(rand.NewPCG(7, 11))
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	for len(words) < 30_000 {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}()

// Word is the synthetic vocabulary's word of frequency rank rank (0 is
// the most frequent). Benchmarks pick query words by rank: low ranks match
// a large share of rows, high ranks a handful.
func Word(rank int) string { return benchVocab[rank%len(benchVocab)] }

var benchDBs sync.Map // rows → *benchDBOnce

type benchDBOnce struct {
	once sync.Once
	db   *DB
	err  error
}

// Build returns a synthetic mneme database with rows observations
// (plus a prompt per 10 and a summary per 50 of them, over 20 projects and
// one session per 200 observations), spread over the last 365 days. It is
// built once per test process and removed when the process ends — or kept
// in and reused from $MNEME_BENCH_CACHE when that is set (the file name
// carries the row count and schema version).
//
// It is built the fast way: raw multi-row INSERTs in transactions of
// 50,000 rows with the FTS5 insert triggers set aside, then one FTS5
// 'rebuild' per table (the same index the triggers would have written).
func Build(tb testing.TB, rows int) *DB {
	tb.Helper()
	return onceDB(tb, &benchDBs, rows, func() (*DB, error) { return buildBenchDB(rows) })
}

// onceDB is the database of rows in m, made by build once per process.
func onceDB(tb testing.TB, m *sync.Map, rows int, build func() (*DB, error)) *DB {
	tb.Helper()
	v, _ := m.LoadOrStore(rows, &benchDBOnce{})
	o := v.(*benchDBOnce)
	o.once.Do(func() { o.db, o.err = build() })
	if o.err != nil {
		tb.Fatal(o.err)
	}
	return o.db
}

// WorkerCopy copies the database into a fresh temp dir for a worker, and
// returns that data directory: a worker may write (the summary queue,
// settings), and the built database must stay as it is for the others.
func (db *DB) WorkerCopy(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := copyFile(filepath.Join(db.Dir, "mneme.db"), filepath.Join(dir, "mneme.db")); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func buildBenchDB(rows int) (*DB, error) {
	var dir string
	if cache := os.Getenv("MNEME_BENCH_CACHE"); cache != "" {
		os.MkdirAll(cache, 0o700)
		dir = filepath.Join(cache, fmt.Sprintf("mneme-bench-%d-v%d", rows, models.SchemaVersion()))
	} else {
		d, err := os.MkdirTemp("", "mneme-bench-")
		if err != nil {
			return nil, err
		}
		dir = d // left for the OS to clean: benchmarks share it until exit
	}
	db := &DB{Dir: dir, Observations: rows, Prompts: rows / 10, Summaries: rows / 50, Sessions: max(1, rows/200)}
	for i := range 20 {
		db.Projects = append(db.Projects, fmt.Sprintf("project-%02d", i))
	}
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return db, nil
	}
	os.RemoveAll(dir)
	start := time.Now()
	store, sqlDB, err := openRaw(dir)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	// Index after loading: the insert triggers are set aside while the rows
	// go in, the FTS5 tables are rebuilt in one pass, and the triggers are
	// put back exactly as the migrations wrote them.
	triggers := map[string]string{}
	trows, err := sqlDB.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('observations_ai', 'prompts_ai', 'summaries_ai')`)
	if err != nil {
		return nil, err
	}
	for trows.Next() {
		var name, def string
		if err := trows.Scan(&name, &def); err != nil {
			trows.Close()
			return nil, err
		}
		triggers[name] = def
	}
	trows.Close()
	for name := range triggers {
		if _, err := sqlDB.Exec(`DROP TRIGGER ` + name); err != nil {
			return nil, err
		}
	}
	if err := fillBenchDB(sqlDB, db); err != nil {
		return nil, err
	}
	// A 32 MB in-memory hash for the rebuild (as migration 6 does), then
	// FTS5's default again for the trigger writes.
	for _, t := range []string{"observations_fts", "prompts_fts", "summaries_fts"} {
		for _, stmt := range []string{
			`INSERT INTO ` + t + `(` + t + `, rank) VALUES ('hashsize', 33554432)`,
			`INSERT INTO ` + t + `(` + t + `) VALUES ('rebuild')`,
			`INSERT INTO ` + t + `(` + t + `, rank) VALUES ('hashsize', 1048576)`,
		} {
			if _, err := sqlDB.Exec(stmt); err != nil {
				return nil, err
			}
		}
	}
	for _, def := range triggers {
		if _, err := sqlDB.Exec(def); err != nil {
			return nil, err
		}
	}
	if _, err := sqlDB.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, err
	}
	db.Built = time.Since(start)
	return db, os.WriteFile(done, []byte(db.Built.String()), 0o600)
}

// openRaw opens the store in dir and its database/sql handle, for the
// raw statements that build a benchmark database.
func openRaw(dir string) (*models.Store, *sql.DB, error) {
	store, err := models.Open(filepath.Join(dir, "mneme.db"))
	if err != nil {
		return nil, nil, err
	}
	sqlDB, err := storedb.Of(store).DB()
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return store, sqlDB, nil
}

// fillBenchDB writes the synthetic rows.
func fillBenchDB(sqlDB *sql.DB, db *DB) error {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(benchVocab)-1))
	words := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(benchVocab[zipf.Uint64()])
		}
		return b.String()
	}
	now := time.Now().UTC()
	start := now.AddDate(0, 0, -365)
	span := now.Sub(start)
	at := func(i, n int) time.Time { return start.Add(time.Duration(float64(span) * float64(i) / float64(n))) }
	tools := []string{"Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch", "Task"}
	kinds := []string{models.KindBash, models.KindRead, models.KindFileChange, models.KindFileChange, models.KindSearch, models.KindSearch, models.KindWeb, models.KindAgent}

	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for s := range db.Sessions {
		if _, err := tx.Exec(`INSERT INTO sessions (id, claude_session_id, project, cwd, status, started_at, prompt_counter) VALUES (?, ?, ?, ?, 'completed', ?, 20)`,
			s+1, fmt.Sprintf("bench-%08d", s), db.Projects[s%len(db.Projects)], "/home/dev/"+db.Projects[s%len(db.Projects)],
			at(s, db.Sessions)); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Multi-row INSERTs, 50 rows a statement, 50,000 rows a transaction.
	const perStmt, perTx = 50, 50_000
	obsStmt := "INSERT INTO observations (session_id, project, prompt_number, tool_use_id, tool_name, kind, title, input, output, files, success, importance, duration_ms, created_at) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?,?,?,?,?,?,?),", perStmt), ",")
	for base := 0; base < db.Observations; base += perTx {
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmt, err := tx.Prepare(obsStmt)
		if err != nil {
			tx.Rollback()
			return err
		}
		args := make([]any, 0, perStmt*14)
		for i := base; i < min(base+perTx, db.Observations); i++ {
			sess := i/200 + 1
			if sess > db.Sessions {
				sess = db.Sessions
			}
			t := r.IntN(len(tools))
			var files string
			if kinds[t] == models.KindFileChange || kinds[t] == models.KindRead {
				files = fmt.Sprintf(`["pkg/%s/%s.go"]`, benchVocab[zipf.Uint64()%500], benchVocab[zipf.Uint64()%2000])
			} else {
				files = "[]"
			}
			ok := r.IntN(10) != 0
			args = append(args, sess, db.Projects[(sess-1)%len(db.Projects)], 1+(i%200)/10, fmt.Sprintf("toolu_%09d", i),
				tools[t], kinds[t], tools[t]+" "+words(5), `{"command":"`+words(6)+`"}`, words(30+r.IntN(40)),
				files, ok, 0.5, r.IntN(5000), at(i, db.Observations))
			if len(args) == cap(args) {
				if _, err := stmt.Exec(args...); err != nil {
					tx.Rollback()
					return err
				}
				args = args[:0]
			}
		}
		stmt.Close()
		for len(args) > 0 { // the tail that did not fill a statement
			one := args[:14]
			if _, err := tx.Exec(`INSERT INTO observations (session_id, project, prompt_number, tool_use_id, tool_name, kind, title, input, output, files, success, importance, duration_ms, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, one...); err != nil {
				tx.Rollback()
				return err
			}
			args = args[14:]
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	tx, err = sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for i := range db.Prompts {
		sess := min(i/20+1, db.Sessions)
		if _, err := tx.Exec(`INSERT INTO prompts (session_id, project, number, text, created_at) VALUES (?, ?, ?, ?, ?)`,
			sess, db.Projects[(sess-1)%len(db.Projects)], i%20+1+(i/20/db.Sessions)*20, words(12+r.IntN(20)), at(i, db.Prompts)); err != nil {
			tx.Rollback()
			return err
		}
	}
	for i := range db.Summaries {
		sess := min(i/4+1, db.Sessions)
		if _, err := tx.Exec(`INSERT INTO summaries (session_id, project, kind, request, investigated, learned, completed, next_steps, created_at) VALUES (?, ?, 'turn', ?, ?, ?, ?, ?, ?)`,
			sess, db.Projects[(sess-1)%len(db.Projects)], words(8), words(15), words(15), words(10), words(8), at(i, db.Summaries)); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}
