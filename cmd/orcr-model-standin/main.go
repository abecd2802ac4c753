// Command orcr-model-standin runs the model stand-in of package modeltest on loopback
// for trying the real claude, codex and other agent CLIs against it by hand
// (docs/providers.md §10.1):
//
//	orcr-model-standin -addr 127.0.0.1:8765
//	ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=x claude -p "say=hi"
//
// It prints its base URL on stdout and one line per request on stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/actors/provider/modeltest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	bodies := flag.String("bodies", "", "a directory to write each request's body into (<n>.json)")
	flag.Parse()
	s, err := modeltest.Listen(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "orcr-model-standin:", err)
		os.Exit(2)
	}
	fmt.Println(s.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	seen := 0
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			s.Close()
			return
		case <-tick.C:
			reqs := s.Requests()
			for i, r := range reqs[seen:] {
				if *bodies != "" {
					os.WriteFile(fmt.Sprintf("%s/%d.json", *bodies, seen+i+1), r.Body, 0o600) //nolint:errcheck // best effort
				}
				fmt.Fprintf(os.Stderr, "%s %s %s %d model=%q stream=%v tools=%d follow_up=%v prompt=%q\n",
					r.At.Format(time.TimeOnly), r.Method, r.Path, r.Status, r.Model, r.Stream, len(r.Tools), r.FollowUp, clip(r.Prompt, 120))
			}
			seen = len(reqs)
		}
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
