package benchdb

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mneme-dev/mneme/models"
)

// The synthetic embeddings of the hybrid-search benchmarks: one random
// unit vector of VectorDims values per observation (all-minilm's size),
// stored under VectorModel exactly as the indexer stores a real model's
// (models.EncodeVector).
const (
	VectorModel = "bench-384"
	VectorDims  = 384
)

// Vector is the synthetic embedding of seed: a random unit vector drawn
// from a PCG seeded by seed, the same on every run and backend. An
// observation's is Vector(its id); queries take negative seeds.
func Vector(seed int64) []float32 {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	v := make([]float32, VectorDims)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i], n = float32(x), n+x*x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

var vecDBs sync.Map // rows → *benchDBOnce

// WithVectors is Build's database copied into a directory of its own with
// the embedding of every observation added (Vector(id), VectorModel), so
// the full-text benchmarks keep reading the database they always read. It
// is made once per process, and kept in $MNEME_BENCH_CACHE like Build's.
func WithVectors(tb testing.TB, rows int) *DB {
	tb.Helper()
	src := Build(tb, rows)
	return onceDB(tb, &vecDBs, rows, func() (*DB, error) { return buildVectorDB(src) })
}

func buildVectorDB(src *DB) (*DB, error) {
	db := *src
	db.Dir, db.Built = src.Dir+fmt.Sprintf("-vec%d", VectorDims), 0
	if os.Getenv("MNEME_BENCH_CACHE") == "" {
		d, err := os.MkdirTemp("", "mneme-bench-vec-")
		if err != nil {
			return nil, err
		}
		db.Dir = d
	}
	done := filepath.Join(db.Dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return &db, nil
	}
	start := time.Now()
	os.RemoveAll(db.Dir)
	if err := os.MkdirAll(db.Dir, 0o700); err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(src.Dir, "mneme.db"), filepath.Join(db.Dir, "mneme.db")); err != nil {
		return nil, err
	}
	store, sqlDB, err := openRaw(db.Dir)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := addVectorsSQLite(sqlDB, db.Observations); err != nil {
		return nil, err
	}
	if _, err := sqlDB.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, err
	}
	db.Built = time.Since(start)
	return &db, os.WriteFile(done, []byte(db.Built.String()), 0o600)
}

// addVectorsSQLite stores the vectors of observations 1…n, 50,000 a
// transaction.
func addVectorsSQLite(sqlDB *sql.DB, n int) error {
	const perTx = 50_000
	for base := 1; base <= n; base += perTx {
		tx, err := sqlDB.Begin()
		if err != nil {
			return err
		}
		stmt, err := tx.Prepare(`INSERT INTO embeddings (item_type, item_id, session_id, project, tool_name, created_at, model, vec)
			SELECT 'observation', c.id, c.session_id, c.project, c.tool_name, c.created_at, ?, ? FROM observations c WHERE c.id = ?`)
		if err != nil {
			tx.Rollback()
			return err
		}
		for id := base; id < min(base+perTx, n+1); id++ {
			if _, err := stmt.Exec(VectorModel, models.EncodeVector(Vector(int64(id))), id); err != nil {
				tx.Rollback()
				return err
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

var pgVecs sync.Map // url → *pgVecOnce

type pgVecOnce struct {
	once sync.Once
	err  error
}

// AddVectorsPostgres stores the same embeddings as WithVectors in the
// PostgreSQL copy pg (once per process), so both backends' hybrid
// figures read the same vectors.
func AddVectorsPostgres(tb testing.TB, pg *PostgresDB) {
	tb.Helper()
	v, _ := pgVecs.LoadOrStore(pg.URL, &pgVecOnce{})
	o := v.(*pgVecOnce)
	o.once.Do(func() { o.err = addVectorsPostgres(pg.URL, pg.Observations) })
	if o.err != nil {
		tb.Fatal(o.err)
	}
}

// addVectorsPostgres stores the vectors of observations 1…n, 10,000 a
// statement.
func addVectorsPostgres(url string, n int) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var have int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM embeddings WHERE model = $1`, VectorModel).Scan(&have); err != nil {
		return err
	}
	if have == n {
		return nil // a database kept by MNEME_BENCH_POSTGRES
	}
	const per = 10_000
	for base := 1; base <= n; base += per {
		var ids []int64
		var vecs [][]byte
		for id := base; id < min(base+per, n+1); id++ {
			ids, vecs = append(ids, int64(id)), append(vecs, models.EncodeVector(Vector(int64(id))))
		}
		if _, err := conn.Exec(ctx, `INSERT INTO embeddings (item_type, item_id, session_id, project, tool_name, created_at, model, vec)
			SELECT 'observation', c.id, c.session_id, c.project, c.tool_name, c.created_at, $1, v.vec
			FROM unnest($2::bigint[], $3::bytea[]) v(id, vec) JOIN observations c ON c.id = v.id
			ON CONFLICT DO NOTHING`, VectorModel, ids, vecs); err != nil {
			return err
		}
	}
	_, err = conn.Exec(ctx, `VACUUM ANALYZE embeddings`)
	return err
}
