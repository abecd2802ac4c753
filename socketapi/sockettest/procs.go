package sockettest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// ProcsWithEnv returns the pids of the live (not zombie) processes whose environment
// holds the entry kv ("KEY=VALUE", whole).
func ProcsWithEnv(kv string) []int {
	want := []byte("\x00" + kv + "\x00")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && zombie(st) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// zombie reports whether a /proc/<pid>/stat line is a zombie's (state Z).
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// EndProcsWithEnv waits up to grace for the processes whose environment holds kv to
// exit, then kills those left with SIGKILL. A cleanup helper, not an assertion: herdr's
// stop signals its panes and returns, and a test's temp dirs, or goleak's check of the
// goroutine that reaps a herdr process, must not race their exits.
func EndProcsWithEnv(kv string, grace time.Duration) {
	deadline := time.Now().Add(grace)
	for {
		pids := ProcsWithEnv(kv)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
