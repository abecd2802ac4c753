package server_test

import (
	"bufio"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// echoServer is the baseline: a raw newline-echo server on the same kind of socket.
func echoServer(b *testing.B) string {
	dir, err := os.MkdirTemp("", "e")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	path := dir + "/echo.sock"
	ln, err := net.Listen("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadBytes('\n')
					if err != nil {
						return
					}
					if _, err := c.Write(line); err != nil {
						return
					}
				}
			}()
		}
	}()
	return path
}

var handshake = []byte(`{"protocol":1,"id":1,"method":"server.handshake"}` + "\n")

// roundTrips runs n request/reply round trips on each of conns connections at once and
// returns the elapsed time.
func roundTrips(b *testing.B, socket string, conns, n int) time.Duration {
	cs := make([]net.Conn, conns)
	for i := range cs {
		c, err := net.Dial("unix", socket)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	var wg sync.WaitGroup
	start := time.Now()
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := bufio.NewReader(c)
			for range n {
				if _, err := c.Write(handshake); err != nil {
					b.Error(err)
					return
				}
				if _, err := br.ReadBytes('\n'); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkHandshake measures the server.handshake round trip on one connection and on
// 64 concurrent connections, against a raw newline-echo server in the same run, and
// reports the ratio (aim: within 2x of the echo).
func BenchmarkHandshake(b *testing.B) {
	for _, conns := range []int{1, 64} {
		b.Run(map[int]string{1: "conns=1", 64: "conns=64"}[conns], func(b *testing.B) {
			srv := sockettest.NewServer(b)
			echo := echoServer(b)
			per := max(b.N/conns, 1)
			roundTrips(b, echo, conns, min(per, 100)) // warm up both
			roundTrips(b, srv.Socket(), conns, min(per, 100))
			b.ResetTimer()
			base := roundTrips(b, echo, conns, per)
			orcr := roundTrips(b, srv.Socket(), conns, per)
			b.StopTimer()
			total := float64(per * conns)
			b.ReportMetric(float64(orcr.Nanoseconds())/total, "orcr-ns/rt")
			b.ReportMetric(float64(base.Nanoseconds())/total, "echo-ns/rt")
			b.ReportMetric(float64(orcr)/float64(base), "ratio-vs-echo")
		})
	}
}
