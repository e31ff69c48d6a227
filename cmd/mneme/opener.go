package main

import "runtime"

// opener is the command that opens url in the default browser on goos:
// open on macOS, the URL protocol handler on Windows (rundll32 runs it
// without a console window, and unlike `cmd /c start` it leaves the &s of
// a query alone), xdg-open elsewhere.
func opener(goos, url string) (name string, args []string) {
	switch goos {
	case "darwin":
		return "open", []string{url}
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", url}
	}
	return "xdg-open", []string{url}
}

// browserOpener is opener for this platform.
func browserOpener(url string) (string, []string) { return opener(runtime.GOOS, url) }
