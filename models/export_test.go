package models

// SetVectorIndexLimits sets, before its first semantic search, the most
// rows s's vector index keeps exactly in memory and how many candidates
// a search over its codes rescores (0: the defaults), for the tests and
// benchmarks outside the package.
func SetVectorIndexLimits(s *Store, exactRows, rescore int) {
	s.vecs.exactRows, s.vecs.rescore = exactRows, rescore
}

// VectorsRescored is how many candidates s's semantic searches have read
// back so far.
func VectorsRescored(s *Store) int64 { return s.vecs.rescored.Load() }

// VectorIndexBytes is the memory of s's loaded vector index snapshots of
// model, for the benchmarks outside the package.
func VectorIndexBytes(s *Store, model string) int { return s.vectorIndexBytes(model) }
