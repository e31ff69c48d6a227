package main

import "time"

// stamp is a moment as the CLI prints it, in local time: 2026-11-28
// 14:05, as the viewer, MCP and the context write it (`mneme tail`
// keeps the seconds of a live stream).
func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }
