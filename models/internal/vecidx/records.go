package vecidx

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Records keeps the exact vectors of an Index, entry i the i-th appended,
// each as stored (RecordBytes): in memory for a small index (MemRecords),
// in a file for a large one (FileRecords), where rescoring a few thousand
// candidates reads them back.
//
// Like an Index, records are appended by one writer, which the caller
// serialises, and read by many: a reader reads only the entries of the
// index it holds, all appended (and flushed) before it got it.
type Records interface {
	// Append appends one record.
	Append(rec []byte) error
	// Flush makes the records appended so far readable.
	Flush() error
	// Score sets the Score of each candidate (sorted by entry) to the
	// exact similarity of its record to q (DotRecord).
	Score(q []float32, cands []Candidate) error
	// Grown is the records an index grown from one holding these
	// appends to (Index.Grown).
	Grown() Records
	// Bytes is the memory the records hold.
	Bytes() int
}

// MemRecords keeps records in memory, in chunks of ChunkEntries.
type MemRecords struct {
	size   int
	chunks [][]byte
	n      int
}

// NewMemRecords keeps records of size bytes in memory.
func NewMemRecords(size int) *MemRecords { return &MemRecords{size: size} }

// Append implements Records.
func (m *MemRecords) Append(rec []byte) error {
	k := m.n % ChunkEntries
	if k == 0 {
		m.chunks = append(m.chunks, make([]byte, ChunkEntries*m.size))
	}
	copy(m.chunks[len(m.chunks)-1][k*m.size:(k+1)*m.size], rec)
	m.n++
	return nil
}

// Flush implements Records.
func (m *MemRecords) Flush() error { return nil }

// record is entry i's record.
func (m *MemRecords) record(i int) []byte {
	k := i % ChunkEntries
	return m.chunks[i/ChunkEntries][k*m.size : (k+1)*m.size]
}

// Score implements Records.
func (m *MemRecords) Score(q []float32, cands []Candidate) error {
	for j := range cands {
		cands[j].Score = DotRecord(q, m.record(int(cands[j].Entry)))
	}
	return nil
}

// Grown implements Records: a copy whose chunk list is its own.
func (m *MemRecords) Grown() Records {
	nm := *m
	nm.chunks = append([][]byte(nil), m.chunks...)
	return &nm
}

// Bytes implements Records.
func (m *MemRecords) Bytes() int { return len(m.chunks) * ChunkEntries * m.size }

// Len is the number of records.
func (m *MemRecords) Len() int { return m.n }

// Each calls f with each record in order, until it returns an error.
func (m *MemRecords) Each(f func(rec []byte) error) error {
	for i := range m.n {
		if err := f(m.record(i)); err != nil {
			return err
		}
	}
	return nil
}

// FileRecords keeps records in a file of their own, which nothing else
// opens: on Linux and macOS it is removed from its directory as soon as
// it is made (its space is freed when it is closed, and a crash leaves
// nothing behind); on Windows, which cannot remove an open file, when it
// is closed (RemoveStale removes what a crash left).
//
// It is closed when its last holder releases it (Acquire, Release): the
// index that holds it, and each search reading it meanwhile.
type FileRecords struct {
	f      *os.File
	path   string // "" once removed
	size   int
	n      int64
	w      *bufio.Writer
	refs   atomic.Int32
	wipe   atomic.Bool
	closed sync.Once
	err    error
}

// FilePattern is the name of the records files in their directory.
const FilePattern = "vectors-*.tmp"

// CreateFileRecords makes an empty records file of records of size bytes
// in dir, held once (Release closes it).
func CreateFileRecords(dir string, size int) (*FileRecords, error) {
	f, err := os.CreateTemp(dir, FilePattern)
	if err != nil {
		return nil, err
	}
	r := &FileRecords{f: f, path: f.Name(), size: size, w: bufio.NewWriterSize(f, 1<<20)}
	if os.Remove(r.path) == nil {
		r.path = ""
	}
	r.refs.Store(1)
	return r, nil
}

// RemoveStale removes the records files a process that ended without
// closing them left in dir (on Windows; elsewhere none are left), and
// that no one holds open.
func RemoveStale(dir string) {
	names, _ := os.ReadDir(dir)
	for _, e := range names {
		if ok, _ := filepath.Match(FilePattern, e.Name()); ok {
			os.Remove(filepath.Join(dir, e.Name())) // fails while open: kept
		}
	}
}

// Append implements Records.
func (r *FileRecords) Append(rec []byte) error {
	if _, err := r.w.Write(rec[:r.size]); err != nil {
		return err
	}
	r.n++
	return nil
}

// Flush implements Records.
func (r *FileRecords) Flush() error { return r.w.Flush() }

// Grown implements Records: the same file.
func (r *FileRecords) Grown() Records { return r }

// Bytes implements Records: the file is on disk, not in memory.
func (r *FileRecords) Bytes() int { return 0 }

// DiskBytes is the size of the file.
func (r *FileRecords) DiskBytes() int64 { return r.n * int64(r.size) }

// Score implements Records: one read a record, in entry order, in two
// halves at once when there are many.
func (r *FileRecords) Score(q []float32, cands []Candidate) error {
	if len(cands) < 512 {
		return r.score(q, cands)
	}
	half := len(cands) / 2
	var err1 error
	var wg sync.WaitGroup
	wg.Go(func() { err1 = r.score(q, cands[:half]) })
	err2 := r.score(q, cands[half:])
	wg.Wait()
	return errors.Join(err1, err2)
}

func (r *FileRecords) score(q []float32, cands []Candidate) error {
	buf := make([]byte, r.size)
	for j := range cands {
		if _, err := r.f.ReadAt(buf, int64(cands[j].Entry)*int64(r.size)); err != nil {
			return err
		}
		cands[j].Score = DotRecord(q, buf)
	}
	return nil
}

// Erase zeroes entry i's record (its row is gone): later reads of it
// score 0.
func (r *FileRecords) Erase(i int) error {
	_, err := r.f.WriteAt(make([]byte, r.size), int64(i)*int64(r.size))
	return err
}

// Acquire holds the file open for one more reader.
func (r *FileRecords) Acquire() { r.refs.Add(1) }

// Release lets go of one hold; the last closes the file (zeroing it
// first when Wipe was called) and removes it where it was not yet.
func (r *FileRecords) Release() {
	if r.refs.Add(-1) == 0 {
		r.close()
	}
}

// Wipe has the file zeroed on disk before it is closed: the vectors of
// rows forgotten since it was written go with it.
func (r *FileRecords) Wipe() { r.wipe.Store(true) }

func (r *FileRecords) close() {
	r.closed.Do(func() {
		if r.wipe.Load() {
			r.err = r.zero()
		}
		r.err = errors.Join(r.err, r.f.Close())
		if r.path != "" {
			r.err = errors.Join(r.err, os.Remove(r.path))
		}
	})
}

// zero overwrites the records with zeros and waits for the disk.
func (r *FileRecords) zero() error {
	if err := r.w.Flush(); err != nil {
		return err
	}
	block := make([]byte, 1<<20)
	size := r.n * int64(r.size)
	for off := int64(0); off < size; off += int64(len(block)) {
		if _, err := r.f.WriteAt(block[:min(int64(len(block)), size-off)], off); err != nil {
			return err
		}
	}
	return r.f.Sync()
}

// Err is what closing the file went wrong with, if anything.
func (r *FileRecords) Err() error { return r.err }
