package store_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

const crashEnv = "ORCR_STORE_CRASH_CHILD_DB"

// TestCrashChild is the child side of TestCrashSafety: it appends events to the store
// named by $ORCR_STORE_CRASH_CHILD_DB as fast as it can, in transactions of 1..40 events
// whose payload n is the expected seq, and prints "ack <last seq>" after each commit, until
// it is killed.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("child process of TestCrashSafety only")
	}
	db, err := store.Open(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	latest, _, err := db.Bounds()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	pad := strings.Repeat("x", 512)
	next := latest + 1
	for i := 0; ; i++ {
		ops := make([]store.Op, 1+i%40)
		for j := range ops {
			n := next + int64(j)
			ops[j] = func(tx *store.Tx) (any, error) {
				return tx.Emit("", storetest.Raw(t, "debug.crash", map[string]any{"n": n, "pad": pad}))
			}
		}
		_, evs, err := db.Apply(ops)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		next += int64(len(evs))
		fmt.Printf("ack %d\n", next-1) // os.Stdout is unbuffered: one write per ack
	}
}

func TestCrashSafety(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	path := filepath.Join(storetest.Dir(t), "orcr.db")
	var acked int64
	for round, killAfter := range []int64{200, 1500, 4000} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		killed := false
		deadline := time.Now().Add(60 * time.Second)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "ack "); ok {
				n, _ := strconv.ParseInt(rest, 10, 64)
				if n <= acked {
					t.Fatalf("round %d: ack %d after %d", round, n, acked)
				}
				acked = n
				if !killed && (n >= killAfter || time.Now().After(deadline)) {
					cmd.Process.Signal(syscall.SIGKILL) // mid-stream: the child is inside its next transaction
					killed = true
				}
			} else if strings.HasPrefix(line, "error") {
				t.Fatalf("round %d: child: %s", round, line)
			}
		}
		cmd.Wait()
		if !killed {
			t.Fatalf("round %d: child exited on its own", round)
		}

		db, err := store.Open(path)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		evs, err := db.EventsAfter(context.Background(), 0, 1_000_000)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(evs)) < acked {
			t.Fatalf("round %d: %d events stored, %d acknowledged", round, len(evs), acked)
		}
		for i, e := range evs {
			var p struct{ N int64 }
			json.Unmarshal(e.Payload, &p)
			if e.Seq != int64(i+1) || p.N != e.Seq {
				t.Fatalf("round %d: event %d has seq %d payload n %d; want %d", round, i, e.Seq, p.N, i+1)
			}
		}
		t.Logf("round %d: acknowledged %d, stored %d", round, acked, len(evs))
		acked = int64(len(evs)) // the next child continues after what survived
	}
}
