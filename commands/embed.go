// Package commands holds mneme's Claude Code slash commands: the plugin
// ships this directory, and `mneme install` writes the same files into
// Claude Code's commands directory.
package commands

import _ "embed"

// MemSearchName is the file name of the /mem-search command.
const MemSearchName = "mem-search.md"

// MemSearch is the /mem-search command: search mneme's memory in layers.
//
//go:embed mem-search.md
var MemSearch string
