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

// Family is a kind of synthetic embedding, for measuring an approximate
// vector index against the exact scan: what it finds depends on how the
// vectors are spread, and real embeddings are neither uniform nor one
// tidy cluster each.
type Family string

// The families. Uniform (Vector) is the worst case for an approximate
// index: at a million rows the nearest neighbours of a query are barely
// nearer than any other vector (cosine ≈0.27 against ≈0.05), so there is
// no structure for a coarse code to keep. Clustered vectors lie around a
// few thousand centroids; text-like ones are shaped as sentence
// embeddings are: a common mean direction every vector shares (random
// pairs have a cosine near 0.3), low-rank topic structure (each text a
// mix of one to three of 2,048 topics spanning a 64-dimension subspace,
// topics Zipf-popular) and noise stronger along a few "rogue" axes.
const (
	Uniform   Family = "uniform"
	Clustered Family = "clustered"
	TextLike  Family = "textlike"
)

// Families are the families in the order the benchmarks report them.
var Families = []Family{Uniform, Clustered, TextLike}

// Vector is the embedding of seed in family f, the same on every run:
// Vector(seed) for Uniform. Rows take their id as seed, queries negative
// seeds (for Clustered and TextLike a query is drawn as a row is: a new
// member of a cluster, a new mix of topics).
func (f Family) Vector(seed int64) []float32 {
	switch f {
	case Clustered:
		return clusteredVector(seed)
	case TextLike:
		return textLikeVector(seed)
	}
	return Vector(seed)
}

const (
	clusters     = 4096 // centroids of Clustered
	clusterNoise = 0.8  // noise norm around a unit centroid: cos(row, centroid) ≈ 0.78
	topics       = 2048 // TextLike's topics
	topicRank    = 64   // the dimension of the subspace they span
	rogueAxes    = 4    // TextLike's axes of stronger noise
)

// gaussian fills v with standard normal values from r and returns it.
func gaussian(r *rand.Rand, v []float32) []float32 {
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// normalize scales v to unit length and returns it.
func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n > 0 {
		s := float32(1 / math.Sqrt(n))
		for i := range v {
			v[i] *= s
		}
	}
	return v
}

var centroids = sync.OnceValue(func() [][]float32 {
	r := rand.New(rand.NewPCG(0xc1, 0x05))
	out := make([][]float32, clusters)
	for i := range out {
		out[i] = normalize(gaussian(r, make([]float32, VectorDims)))
	}
	return out
})

func clusteredVector(seed int64) []float32 {
	r := rand.New(rand.NewPCG(uint64(seed), 0xc1c1c1))
	c := centroids()[r.IntN(clusters)]
	v := normalize(gaussian(r, make([]float32, VectorDims)))
	for i := range v {
		v[i] = c[i] + clusterNoise*v[i]
	}
	return normalize(v)
}

// textModel is TextLike's fixed parts: the mean direction, the topics and
// the rogue axes.
type textModel struct {
	mean   []float32
	topics [][]float32
	rogue  []int
	zipf   func(r *rand.Rand) int
}

var textLike = sync.OnceValue(func() *textModel {
	r := rand.New(rand.NewPCG(0x7e, 0x47))
	m := &textModel{mean: normalize(gaussian(r, make([]float32, VectorDims)))}
	basis := make([][]float32, topicRank)
	for i := range basis {
		basis[i] = normalize(gaussian(r, make([]float32, VectorDims)))
	}
	for range topics {
		t := make([]float32, VectorDims)
		for k, b := range basis {
			// A decaying spectrum: the first directions carry most.
			w := float32(r.NormFloat64() / math.Sqrt(float64(k+1)))
			for i := range t {
				t[i] += w * b[i]
			}
		}
		m.topics = append(m.topics, normalize(t))
	}
	m.rogue = r.Perm(VectorDims)[:rogueAxes]
	// Topic popularity: Zipf over the topics (s = 1.1), drawn with a
	// table of cumulative weights.
	cum := make([]float64, topics)
	var total float64
	for i := range cum {
		total += 1 / math.Pow(float64(i+1), 1.1)
		cum[i] = total
	}
	m.zipf = func(r *rand.Rand) int {
		x := r.Float64() * total
		lo, hi := 0, topics-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cum[mid] < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
	return m
})

func textLikeVector(seed int64) []float32 {
	m := textLike()
	r := rand.New(rand.NewPCG(uint64(seed), 0x7e7e7e))
	v := make([]float32, VectorDims)
	for range 1 + r.IntN(3) {
		t, w := m.topics[m.zipf(r)], float32(r.ExpFloat64())
		for i := range v {
			v[i] += w * t[i]
		}
	}
	normalize(v)
	noise := gaussian(r, make([]float32, VectorDims))
	for _, a := range m.rogue {
		noise[a] *= 6
	}
	sd := float32(0.5 / math.Sqrt(VectorDims))
	for i := range v {
		v[i] += 0.8*m.mean[i] + sd*noise[i]
	}
	return normalize(v)
}

var vecDBs = map[Family]*sync.Map{Uniform: {}, Clustered: {}, TextLike: {}} // rows → *benchDBOnce

// WithVectors is Build's database copied into a directory of its own with
// the embedding of every observation added (Vector(id), VectorModel), so
// the full-text benchmarks keep reading the database they always read. It
// is made once per process, and kept in $MNEME_BENCH_CACHE like Build's.
func WithVectors(tb testing.TB, rows int) *DB {
	tb.Helper()
	return WithFamily(tb, rows, Uniform)
}

// WithFamily is WithVectors with the vectors of family f (f.Vector(id)),
// each family in a database of its own.
func WithFamily(tb testing.TB, rows int, f Family) *DB {
	tb.Helper()
	src := Build(tb, rows)
	return onceDB(tb, vecDBs[f], rows, func() (*DB, error) { return buildVectorDB(src, f) })
}

func buildVectorDB(src *DB, f Family) (*DB, error) {
	db := *src
	db.Dir, db.Built = src.Dir+fmt.Sprintf("-vec%d", VectorDims), 0
	if f != Uniform {
		db.Dir += "-" + string(f)
	}
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
	if err := addVectorsSQLite(sqlDB, db.Observations, f); err != nil {
		return nil, err
	}
	if _, err := sqlDB.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return nil, err
	}
	db.Built = time.Since(start)
	return &db, os.WriteFile(done, []byte(db.Built.String()), 0o600)
}

// addVectorsSQLite stores the vectors of family f of observations 1…n,
// 50,000 a transaction.
func addVectorsSQLite(sqlDB *sql.DB, n int, f Family) error {
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
			if _, err := stmt.Exec(VectorModel, models.EncodeVector(f.Vector(int64(id))), id); err != nil {
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
