//go:build !linux

package pgtest

import "errors"

// start fails: the throwaway cluster is run as Debian's postgres user with
// a parent-death signal, which only Linux has. The tests run on SQLite
// there; MNEME_TEST_BACKEND=postgres fails them with this message.
func (c *cluster) start() error {
	return errors.New("pgtest: the throwaway PostgreSQL cluster runs on Linux only")
}
