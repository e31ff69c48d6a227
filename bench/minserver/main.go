// Command minserver is the smallest Go HTTP server that answers like a
// worker: 200 on /api/health, on 127.0.0.1 at the port given as its only
// argument. Benchmarks build it in the same run as mneme and measure it
// beside `mneme serve` (resident memory, spawn to first 200), as the floor
// any Go HTTP worker pays on this machine.
package main

import (
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: minserver <port>\n")
		os.Exit(2)
	}
	http.HandleFunc("/api/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	})
	if err := http.ListenAndServe("127.0.0.1:"+os.Args[1], nil); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}
