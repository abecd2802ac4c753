package herdr

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// shortDir returns a short temporary directory (unix socket paths are limited).
func shortDir(tb testing.TB) string {
	tb.Helper()
	d, err := os.MkdirTemp("", "d")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// scripted is a tiny herdr-like socket: one request line in, handler's line out, close.
type scripted struct {
	path    string
	ln      net.Listener
	handler func(req map[string]any) string
	mu      sync.Mutex
	reqs    []map[string]any
	sizes   []int // the length of each request line read, newline included
	wg      sync.WaitGroup
}

func newScripted(tb testing.TB, handler func(req map[string]any) string) *scripted {
	tb.Helper()
	s := &scripted{path: filepath.Join(shortDir(tb), "h.sock"), handler: handler}
	s.listen(tb)
	tb.Cleanup(s.close)
	return s
}

func (s *scripted) listen(tb testing.TB) {
	ln, err := net.Listen("unix", s.path)
	if err != nil {
		tb.Fatal(err)
	}
	s.ln = ln
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				line, err := bufio.NewReader(c).ReadBytes('\n')
				if err != nil {
					return
				}
				var req map[string]any
				if json.Unmarshal(line, &req) != nil {
					c.Write([]byte(`{"id":"","error":{"code":"invalid_request","message":"invalid request: bad json"}}` + "\n"))
					return
				}
				s.mu.Lock()
				s.reqs = append(s.reqs, req)
				s.sizes = append(s.sizes, len(line))
				s.mu.Unlock()
				out := s.handler(req)
				if out != "" {
					c.Write([]byte(out + "\n"))
				}
			}()
		}
	}()
}

func (s *scripted) close() {
	if s.ln != nil {
		s.ln.Close()
	}
	s.wg.Wait()
}

func (s *scripted) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.reqs...)
}

// lineSizes are the lengths of the request lines read so far, newline included.
func (s *scripted) lineSizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.sizes...)
}

func ok(req map[string]any, result string) string {
	id, _ := json.Marshal(req["id"])
	return `{"id":` + string(id) + `,"result":` + result + `}`
}
