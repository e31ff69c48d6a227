package main

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes, the same for every command (the README's table):
const (
	exitOK = 0
	// exitNotFound: nothing found or nothing done: a search without
	// matches, an id that is not stored, a forget declined, a check
	// (doctor) that found a problem.
	exitNotFound = 1
	// exitUsage: the command line is wrong: an unknown command or flag, a
	// missing argument, an id or a value that cannot be read or that the
	// worker refuses as invalid (400).
	exitUsage = 2
	// exitWorker: the worker cannot be asked: it is not running, does not
	// answer, or does not accept who you are (MNEME_TOKEN).
	exitWorker = 3
	// exitFailed: the worker or the command tried and failed.
	exitFailed = 4
)

// usageError is a wrong command line.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// apiError is the worker's answer to a request it did not carry out.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// isNotFound reports whether err is the worker saying what was asked for
// is not stored.
func isNotFound(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.status == http.StatusNotFound
}

// exitCode is the exit code for a command that failed with err and set
// none itself.
func exitCode(err error) int {
	var (
		ue usageError
		we *workerError
		ae *apiError
	)
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &we):
		return exitWorker
	case errors.As(err, &ae):
		switch ae.status {
		case http.StatusNotFound:
			return exitNotFound
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
			return exitUsage
		case http.StatusUnauthorized, http.StatusForbidden:
			return exitWorker
		}
		return exitFailed
	}
	// Cobra's own: an unknown command.
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return exitUsage
	}
	return exitFailed
}

// usageErrors makes cobra's flag and argument errors usage errors, in
// cmd and every command under it.
func usageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{plainFlagError(err)} })
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return usageError{fmt.Errorf("%w (see mneme %s --help)", err, c.Name())}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		usageErrors(sub)
	}
}

// strconvRe: what a number or boolean flag's parse error says in Go's words.
var strconvRe = regexp.MustCompile(`: strconv\.Parse(Int|Uint|Float|Bool): parsing "[^"]*": (?:invalid syntax|value out of range)`)

// plainFlagError says a flag's bad value in words, not Go's
// (`strconv.ParseInt: parsing "abc": invalid syntax`).
func plainFlagError(err error) error {
	m := strconvRe.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := map[string]string{"Int": "a whole number", "Uint": "a whole number ≥ 0", "Float": "a number", "Bool": "true or false"}[m[1]]
	return errors.New(strings.Replace(err.Error(), m[0], ": give "+want, 1))
}
