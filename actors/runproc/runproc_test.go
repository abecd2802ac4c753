package runproc_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/orcr-go/orcr/actors/runproc"
	"github.com/orcr-go/orcr/tests/poll"
)

// quickExit spares each shim the second a -race binary otherwise waits at exit.
var quickExit = "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")

// spec is a run of argv through this test binary as the shim, in a fresh directory
// that is also the command's cwd.
func spec(t *testing.T, argv ...string) runproc.Spec {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	return runproc.Spec{
		Shim: []string{self},
		Argv: argv,
		Cwd:  dir,
		Env:  append(os.Environ(), role+"=shim", quickExit),
		Dir:  filepath.Join(dir, "run"),
	}
}

// start starts s; the run's group is killed and the shim reaped at the end of the test.
func start(t *testing.T, s runproc.Spec) *runproc.Process {
	t.Helper()
	p, err := runproc.Start(s)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, true)
		p.Wait()
	})
	return p
}

// sh is the argv of a shell script.
func sh(script string) []string { return []string{"sh", "-c", script} }

// texts returns the text of dir's current run.log records of stream.
func texts(t *testing.T, dir, stream string) []string {
	t.Helper()
	lines, err := runproc.ReadLog(dir)
	if err != nil {
		t.Fatalf("ReadLog: %v", err)
	}
	var out []string
	for _, l := range lines {
		if l.Stream == stream {
			out = append(out, l.Text)
		}
	}
	return out
}

// logged waits until dir's run.log has a stdout record text.
func logged(t *testing.T, dir, text string) {
	t.Helper()
	poll.Eventually(t, 5*time.Second, fmt.Sprintf("%q in run.log", text), func() bool { return slices.Contains(texts(t, dir, runproc.Stdout), text) })
}

func code(n int64) runproc.Exit   { return runproc.Exit{Code: &n} }
func signal(n int64) runproc.Exit { return runproc.Exit{Signal: &n} }

// exitJSON reads exit.json, failing when there is none.
func exitJSON(t *testing.T, dir string) runproc.Exit {
	t.Helper()
	e, ok := runproc.ReadExit(dir)
	if !ok {
		t.Fatalf("no %s in %s", runproc.ExitFile, dir)
	}
	return e
}

// The command's end is what Wait returns, what exit.json records, and how the shim
// itself ended.
func TestExit(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		want runproc.Exit
	}{
		{"exit 0", []string{"true"}, code(0)},
		{"exit 3", sh("exit 3"), code(3)},
		{"killed by SIGKILL", sh("kill -KILL $$"), signal(int64(syscall.SIGKILL))},
		{"killed by SIGTERM", sh("kill -TERM $$"), signal(int64(syscall.SIGTERM))},
		{"killed by SIGSEGV", sh("kill -SEGV $$"), signal(int64(syscall.SIGSEGV))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := spec(t, tc.argv...)
			p := start(t, s)
			if got := p.Wait(); !cmp.Equal(got, tc.want) {
				t.Errorf("Wait: got %v, want %v", got, tc.want)
			}
			if got := exitJSON(t, s.Dir); !cmp.Equal(got, tc.want) {
				t.Errorf("exit.json: got %v, want %v", got, tc.want)
			}
			if got := runproc.ShimExit(p); !cmp.Equal(got, tc.want) {
				t.Errorf("shim's wait status: got %v, want %v", got, tc.want)
			}
		})
	}
}

// exit.json has the documented shape.
func TestExitJSONShape(t *testing.T) {
	s := spec(t, sh("exit 7")...)
	start(t, s).Wait()
	b, err := os.ReadFile(filepath.Join(s.Dir, runproc.ExitFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(b)), `{"exit_code":7,"signal":null}`; got != want {
		t.Errorf("exit.json: got %s, want %s", got, want)
	}
}

// A SIGTERM to the group ends the command; the shim, which ignores it, records that and
// then dies of the same signal.
func TestSignalGroupTerm(t *testing.T) {
	s := spec(t, sh("echo ready; exec sleep 30")...)
	p := start(t, s)
	logged(t, s.Dir, "ready")
	if !runproc.Alive(p.PID, p.StartTime) {
		t.Fatalf("Alive(%d, %d): got false for a running shim", p.PID, p.StartTime)
	}
	sent, err := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGTERM, false)
	if !sent || err != nil {
		t.Fatalf("SignalGroup(TERM): got %v, %v; want sent", sent, err)
	}
	want := signal(int64(syscall.SIGTERM))
	if got := p.Wait(); !cmp.Equal(got, want) {
		t.Errorf("Wait: got %v, want %v", got, want)
	}
	if got := runproc.ShimExit(p); !cmp.Equal(got, want) {
		t.Errorf("shim's wait status: got %v, want %v", got, want)
	}
	if got := exitJSON(t, s.Dir); !cmp.Equal(got, want) {
		t.Errorf("exit.json: got %v, want %v", got, want)
	}
	if runproc.Alive(p.PID, p.StartTime) {
		t.Errorf("Alive after Wait: got true")
	}
}

// A command that ignores SIGTERM survives it, and so does the shim, which goes on
// writing its output; SIGKILL ends both, with no exit.json.
func TestTermIgnoredUntilKill(t *testing.T) {
	s := spec(t, sh(`trap "" TERM; i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.01; done`)...)
	p := start(t, s)
	logged(t, s.Dir, "tick 1")
	for range 2 { // the second TERM too: the shim keeps ignoring
		if sent, err := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGTERM, false); !sent || err != nil {
			t.Fatalf("SignalGroup(TERM): got %v, %v; want sent", sent, err)
		}
	}
	after := len(texts(t, s.Dir, runproc.Stdout))
	poll.Eventually(t, 5*time.Second, "output after SIGTERM", func() bool { return len(texts(t, s.Dir, runproc.Stdout)) >= after+10 })
	if !runproc.Alive(p.PID, p.StartTime) {
		t.Fatalf("the shim died of an ignored SIGTERM")
	}
	if sent, err := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, false); !sent || err != nil {
		t.Fatalf("SignalGroup(KILL): got %v, %v; want sent", sent, err)
	}
	want := signal(int64(syscall.SIGKILL))
	if got := p.Wait(); !cmp.Equal(got, want) {
		t.Errorf("Wait: got %v, want %v", got, want)
	}
	if e, ok := runproc.ReadExit(s.Dir); ok {
		t.Errorf("exit.json after SIGKILL of the group: got %v, want none", e)
	}
	got := texts(t, s.Dir, runproc.Stdout)
	for i, text := range got {
		if want := fmt.Sprintf("tick %d", i+1); text != want {
			t.Fatalf("record %d: got %q, want %q", i, text, want)
		}
	}
}

// Both streams land in run.log line by line, each in order, with a last line that has
// no newline, an empty line, and a line too long for one record cut into several.
func TestLogLines(t *testing.T) {
	s := spec(t, sh(`i=0; while [ $i -lt 300 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done
echo; head -c 150000 /dev/zero | tr '\0' x; echo; printf 'no newline'`)...)
	p := start(t, s)
	if got := p.Wait(); !cmp.Equal(got, code(0)) {
		t.Fatalf("Wait: got %v, want exit 0", got)
	}
	var wantOut, wantErr []string
	for i := range 300 {
		wantOut = append(wantOut, fmt.Sprintf("out %d", i))
		wantErr = append(wantErr, fmt.Sprintf("err %d", i))
	}
	long := 150000
	wantOut = append(wantOut, "")
	for long > 0 {
		n := min(long, runproc.MaxRecordText)
		wantOut = append(wantOut, strings.Repeat("x", n))
		long -= n
	}
	wantOut = append(wantOut, "no newline")
	if diff := cmp.Diff(wantOut, texts(t, s.Dir, runproc.Stdout)); diff != "" {
		t.Errorf("stdout records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantErr, texts(t, s.Dir, runproc.Stderr)); diff != "" {
		t.Errorf("stderr records (-want +got):\n%s", diff)
	}
	lines, _ := runproc.ReadLog(s.Dir)
	for i := 1; i < len(lines); i++ {
		if lines[i].TS < lines[i-1].TS {
			t.Fatalf("record %d: ts %d before the previous record's %d", i, lines[i].TS, lines[i-1].TS)
		}
	}
}

// readFile decodes one run-log file and returns its texts and size.
func readFile(t *testing.T, path string) ([]string, int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var l runproc.Line
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		out = append(out, l.Text)
	}
	return out, int64(len(b))
}

// run.log rotates when the next record would pass max_bytes; with max_files 2 only
// run.log.1 and run.log.2 are kept, the oldest output dropped.
func TestRotation(t *testing.T) {
	const maxBytes = 300
	s := spec(t, sh(`i=10; while [ $i -lt 70 ]; do echo "line $i"; i=$((i+1)); done`)...)
	s.MaxBytes, s.MaxFiles = maxBytes, 2
	start(t, s).Wait()

	log := filepath.Join(s.Dir, runproc.LogFile)
	if _, err := os.Stat(log + ".3"); !os.IsNotExist(err) {
		t.Errorf("run.log.3 exists (err %v); want only 2 rotated files", err)
	}
	var all []string
	for i, path := range []string{log + ".2", log + ".1", log} {
		got, size := readFile(t, path)
		if size > maxBytes {
			t.Errorf("%s: %d bytes, more than max_bytes %d", filepath.Base(path), size, maxBytes)
		}
		// Every record has the same length here; a rotated file had no room for one more.
		if record := size / int64(len(got)); i < 2 && size+record <= maxBytes {
			t.Errorf("%s rotated at %d bytes, with room for another %d-byte record", filepath.Base(path), size, record)
		}
		all = append(all, got...)
	}
	if all[len(all)-1] != "line 69" {
		t.Errorf("last record: got %q, want %q", all[len(all)-1], "line 69")
	}
	if all[0] == "line 10" {
		t.Errorf("the oldest output was kept: %d records in 3 files", len(all))
	}
	var n int
	fmt.Sscanf(all[0], "line %d", &n)
	for i, text := range all {
		if want := fmt.Sprintf("line %d", n+i); text != want {
			t.Fatalf("record %d across the files: got %q, want %q", i, text, want)
		}
	}
}

// A recorded start time that is not the process's own means the pid is someone else's:
// it is never signalled, watched or not.
func TestForgedStartTimeIsNeverSignalled(t *testing.T) {
	s := spec(t, sh("echo ready; exec sleep 30")...)
	p := start(t, s)
	logged(t, s.Dir, "ready")
	if p.StartTime == 0 {
		t.Skip("no start time on this platform")
	}
	forged := p.StartTime + 1
	if got, ok := runproc.StartTime(p.PID); !ok || got != p.StartTime {
		t.Errorf("StartTime(%d): got %d, %v; want %d", p.PID, got, ok, p.StartTime)
	}
	if runproc.Alive(p.PID, forged) {
		t.Errorf("Alive with a forged start time: got true")
	}
	if !runproc.Alive(p.PID, 0) {
		t.Errorf("Alive with an unknown start time: got false")
	}
	for _, watched := range []bool{false, true} {
		if sent, err := runproc.SignalGroup(p.PID, forged, syscall.SIGKILL, watched); sent || err != nil {
			t.Errorf("SignalGroup(forged, watched=%v): got %v, %v; want not sent", watched, sent, err)
		}
	}
	// Had a SIGKILL gone out, the run would end by it, not by this SIGTERM.
	if sent, _ := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGTERM, false); !sent {
		t.Fatalf("SignalGroup(TERM) with the real start time: not sent")
	}
	if got, want := p.Wait(), signal(int64(syscall.SIGTERM)); !cmp.Equal(got, want) {
		t.Errorf("Wait: got %v, want %v", got, want)
	}
}

// SignalGroup refuses group ids that would reach other processes.
func TestSignalGroupRefusesWideGroups(t *testing.T) {
	for _, pgid := range []int{-1, 0, 1, syscall.Getpgrp()} {
		if sent, err := runproc.SignalGroup(pgid, 0, syscall.Signal(0), true); sent || err == nil {
			t.Errorf("SignalGroup(%d): got %v, %v; want an error", pgid, sent, err)
		}
	}
}

// The run is a session and process group of its own: it goes on, with its output
// captured, after the process that started it is gone.
func TestRunOutlivesItsStarter(t *testing.T) {
	s := spec(t, sh(`echo before; while [ ! -e go ]; do sleep 0.01; done; echo after; exit 4`)...)
	b, _ := json.Marshal(s)
	self, _ := os.Executable()
	starter := exec.Command(self)
	starter.Env = append(os.Environ(), role+"=starter", specEnv+"="+string(b), quickExit)
	starter.Stderr = os.Stderr
	// Output returns only once nothing holds the starter's stdout: the run must not.
	out, err := starter.Output()
	if err != nil {
		t.Fatalf("starter: %v", err)
	}
	var p runproc.Process
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("starter printed %q: %v", out, err)
	}
	t.Cleanup(func() { runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, false) })

	if pgid, err := syscall.Getpgid(p.PID); err != nil || pgid != p.PID || pgid == syscall.Getpgrp() {
		t.Errorf("Getpgid(%d): got %d, %v; want its own group (ours is %d)", p.PID, pgid, err, syscall.Getpgrp())
	}
	if sid, err := unix.Getsid(p.PID); err != nil || sid != p.PID {
		t.Errorf("Getsid(%d): got %d, %v; want its own session", p.PID, sid, err)
	}
	logged(t, s.Dir, "before")
	if !runproc.Alive(p.PID, p.StartTime) {
		t.Fatalf("the run died with its starter")
	}
	if err := os.WriteFile(filepath.Join(s.Cwd, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, 5*time.Second, "the run to end", func() bool { return !runproc.Alive(p.PID, p.StartTime) })
	if got := exitJSON(t, s.Dir); !cmp.Equal(got, code(4)) {
		t.Errorf("exit.json: got %v, want exit 4", got)
	}
	if diff := cmp.Diff([]string{"before", "after"}, texts(t, s.Dir, runproc.Stdout)); diff != "" {
		t.Errorf("stdout records (-want +got):\n%s", diff)
	}
}

// A command that cannot start leaves a stderr record, an exit.json with neither code nor
// signal, and a shim that exits 127.
func TestSpawnFailure(t *testing.T) {
	s := spec(t, "/nonexistent/nosuch", "arg")
	p := start(t, s)
	if got := p.Wait(); !cmp.Equal(got, runproc.Exit{}) {
		t.Errorf("Wait: got %v, want neither code nor signal", got)
	}
	if got, want := runproc.ShimExit(p), code(runproc.SpawnFailed); !cmp.Equal(got, want) {
		t.Errorf("shim's wait status: got %v, want %v", got, want)
	}
	if got := exitJSON(t, s.Dir); !cmp.Equal(got, runproc.Exit{}) {
		t.Errorf("exit.json: got %v, want neither code nor signal", got)
	}
	got := texts(t, s.Dir, runproc.Stderr)
	if len(got) != 1 || !strings.HasPrefix(got[0], "failed to spawn command: ") || !strings.Contains(got[0], "/nonexistent/nosuch") {
		t.Errorf("stderr records: got %q, want one \"failed to spawn command: …\"", got)
	}
}

// A shim that cannot be started at all leaves the same record.
func TestShimSpawnFailure(t *testing.T) {
	s := spec(t, "true")
	s.Shim = []string{"/nonexistent/orcr"}
	if _, err := runproc.Start(s); err == nil {
		t.Fatal("Start with a missing shim: got no error")
	}
	got := texts(t, s.Dir, runproc.Stderr)
	if len(got) != 1 || !strings.HasPrefix(got[0], "failed to spawn command: ") {
		t.Errorf("stderr records: got %q, want one \"failed to spawn command: …\"", got)
	}
}

// Decision L6: once the leader has exited while we watched it, the members it left in
// its group are still signalled, but only when the caller says it watched. The member
// here also holds the command's stdout, so the shim stops reading after its linger.
func TestSignalGroupLeaderGone(t *testing.T) {
	s := spec(t, sh("sleep 30 & echo $!")...)
	p := start(t, s)
	if got := p.Wait(); !cmp.Equal(got, code(0)) {
		t.Fatalf("Wait: got %v, want exit 0", got)
	}
	out := texts(t, s.Dir, runproc.Stdout)
	var member int
	if len(out) != 1 {
		t.Fatalf("stdout records: got %q, want the member's pid", out)
	}
	fmt.Sscanf(out[0], "%d", &member)
	if !runproc.Alive(member, 0) {
		t.Fatalf("member %d is not running", member)
	}
	if runproc.Alive(p.PID, p.StartTime) {
		t.Fatalf("leader %d alive after Wait", p.PID)
	}
	if sent, err := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, false); sent || err != nil {
		t.Errorf("SignalGroup(unwatched): got %v, %v; want not sent", sent, err)
	}
	if !runproc.Alive(member, 0) {
		t.Fatalf("member %d killed by an unwatched SignalGroup", member)
	}
	if sent, err := runproc.SignalGroup(p.PID, p.StartTime, syscall.SIGKILL, true); !sent || err != nil {
		t.Fatalf("SignalGroup(watched): got %v, %v; want sent", sent, err)
	}
	poll.Eventually(t, 5*time.Second, "the member to die", func() bool { return !runproc.Alive(member, 0) })
}

func TestStartTime(t *testing.T) {
	if _, ok := runproc.StartTime(os.Getpid()); !ok {
		t.Skip("no start time on this platform")
	}
	if got, ok := runproc.StartTime(1 << 30); ok {
		t.Errorf("StartTime(no such pid): got %d, true", got)
	}
	if runproc.Alive(1<<30, 0) {
		t.Errorf("Alive(no such pid): got true")
	}
}

// ReadLog skips a torn last line (and any other that does not decode).
func TestReadLogTornLine(t *testing.T) {
	dir := t.TempDir()
	body := `{"ts":1,"stream":"stdout","text":"a"}
{"ts":2,"stream":"stderr","text":"b"}
{"ts":3,"stream":"std`
	if err := os.WriteFile(filepath.Join(dir, runproc.LogFile), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := runproc.ReadLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []runproc.Line{{TS: 1, Stream: "stdout", Text: "a"}, {TS: 2, Stream: "stderr", Text: "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadLog (-want +got):\n%s", diff)
	}
	if got, err := runproc.ReadLog(t.TempDir()); got != nil || err != nil {
		t.Errorf("ReadLog(no run.log): got %v, %v; want empty", got, err)
	}
}

func TestRuneCut(t *testing.T) {
	b := []byte("aé€") // a, 2 bytes, 3 bytes
	for _, tc := range []struct{ n, want int }{{1, 1}, {2, 1}, {3, 3}, {4, 3}, {5, 3}} {
		if got := runproc.RuneCut(b, tc.n); got != tc.want {
			t.Errorf("RuneCut(%q, %d): got %d, want %d", b, tc.n, got, tc.want)
		}
	}
	bad := []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80}
	if got := runproc.RuneCut(bad, 5); got != 5 {
		t.Errorf("RuneCut(not UTF-8, 5): got %d, want 5", got)
	}
}

// A relative Dir is the caller's, not one below the command's cwd.
func TestRelativeDir(t *testing.T) {
	s := spec(t, "true")
	here := t.TempDir()
	t.Chdir(here)
	s.Dir = "run"
	start(t, s).Wait()
	if _, ok := runproc.ReadExit(filepath.Join(here, "run")); !ok {
		t.Errorf("no exit.json in %s", filepath.Join(here, "run"))
	}
}
