package transcript_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/orcr-go/orcr/actors/transcript"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// mtime is a fixed file time with a sub-millisecond part, so truncation to ms shows.
var mtime = time.Date(2026, 3, 2, 9, 14, 40, 518_900_000, time.UTC)

func TestSettled(t *testing.T) {
	dir := t.TempDir()
	p := touch(t, filepath.Join(dir, "t.jsonl"), mtime)
	const settle = 1500 * time.Millisecond
	for _, tc := range []struct {
		name   string
		path   string
		settle time.Duration
		now    time.Time
		want   bool
	}{
		{"disabled", "", 0, mtime, true},
		{"disabled, missing file", filepath.Join(dir, "gone"), 0, mtime, true},
		{"not locatable", "", settle, mtime.Add(time.Hour), false},
		{"vanished", filepath.Join(dir, "gone"), settle, mtime.Add(time.Hour), false},
		{"just written", p, settle, mtime, false},
		{"almost quiet", p, settle, mtime.Add(settle - time.Millisecond), false},
		{"quiet exactly settle", p, settle, mtime.Add(settle), true},
		{"long quiet", p, settle, mtime.Add(time.Minute), true},
		{"mtime in the future", p, settle, mtime.Add(-time.Minute), false},
	} {
		if got := transcript.Settled(tc.path, tc.settle, tc.now); got != tc.want {
			t.Errorf("Settled(%s): got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A file whose mtime cannot be read (a parent dir without search permission) counts as
// settled, per docs/providers.md §6.4.
func TestSettledUnreadableMtime(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root stats anything")
	}
	dir := filepath.Join(t.TempDir(), "locked")
	p := touch(t, filepath.Join(dir, "t.jsonl"), mtime)
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if !transcript.Settled(p, time.Second, mtime) {
		t.Errorf("Settled(unreadable mtime): got false, want true")
	}
}

func TestCursor(t *testing.T) {
	dir := t.TempDir()
	p := touch(t, filepath.Join(dir, "t.jsonl"), mtime)
	got, ok := transcript.Cursor(p)
	if want := strconv.FormatInt(mtime.UnixMilli(), 10); !ok || got != want {
		t.Errorf("Cursor: got %q, %v; want %q, true", got, ok, want)
	}
	if got != "1772442880518" {
		t.Errorf("Cursor: got %q, want the truncated ms 1772442880518", got)
	}
	if got, ok := transcript.Cursor(filepath.Join(dir, "gone")); ok || got != "" {
		t.Errorf("Cursor(missing): got %q, %v; want \"\", false", got, ok)
	}
}

// An append within the same millisecond as the write before it leaves the Cursor as it
// was; the Stamp changes, so a look that reads the transcript only when it changed
// still sees the appended line (the call a blocked claude waits on, docs/remote.md §7).
func TestStampSeesAnAppendTheCursorMisses(t *testing.T) {
	dir := t.TempDir()
	p := touch(t, filepath.Join(dir, "t.jsonl"), mtime)
	cur0, _ := transcript.Cursor(p)
	st0, ok := transcript.Stamp(p)
	if !ok {
		t.Fatal("Stamp of a file: not ok")
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"assistant"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	same := mtime.Add(50 * time.Microsecond) // the same millisecond
	if err := os.Chtimes(p, same, same); err != nil {
		t.Fatal(err)
	}
	if cur1, _ := transcript.Cursor(p); cur1 != cur0 {
		t.Fatalf("the premise: Cursor moved from %s to %s within one millisecond", cur0, cur1)
	}
	if st1, _ := transcript.Stamp(p); st1 == st0 {
		t.Errorf("Stamp after an append in the same millisecond: %q, unchanged", st1)
	}
	// A rewrite of the same size at another instant changes it too.
	later := mtime.Add(time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	st2, _ := transcript.Stamp(p)
	if st3, _ := transcript.Stamp(p); st3 != st2 {
		t.Errorf("Stamp of an unchanged file moved: %q then %q", st2, st3)
	}
	if st2 == st0 {
		t.Errorf("Stamp after the mtime moved: %q, unchanged", st2)
	}
	if got, ok := transcript.Stamp(filepath.Join(dir, "gone")); ok || got != "" {
		t.Errorf("Stamp(missing): got %q, %v; want \"\", false", got, ok)
	}
}

func TestFresh(t *testing.T) {
	dir := t.TempDir()
	p := touch(t, filepath.Join(dir, "t.jsonl"), mtime)
	cur, _ := transcript.Cursor(p)
	ms := mtime.UnixMilli()
	for _, tc := range []struct {
		name, path, cursor string
		want               bool
	}{
		{"no cursor", filepath.Join(dir, "gone"), "", true},
		{"unchanged since completion", p, cur, true},
		{"advanced", p, strconv.FormatInt(ms-1, 10), true},
		{"behind (rotated to an older copy)", p, strconv.FormatInt(ms+1, 10), false},
		{"vanished", filepath.Join(dir, "gone"), cur, false},
		{"malformed cursor", p, "17.5e3", false},
	} {
		if got := transcript.Fresh(tc.path, tc.cursor); got != tc.want {
			t.Errorf("Fresh(%s): got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWaitFreshAlreadyFresh(t *testing.T) {
	p := touch(t, filepath.Join(t.TempDir(), "t.jsonl"), mtime)
	cur, _ := transcript.Cursor(p)
	// A timeout of zero still gets the immediate check.
	if err := transcript.WaitFresh(context.Background(), p, cur, 0); err != nil {
		t.Errorf("WaitFresh(fresh, 0): got %v, want nil", err)
	}
}

func TestWaitFreshStale(t *testing.T) {
	p := touch(t, filepath.Join(t.TempDir(), "t.jsonl"), mtime)
	ahead := strconv.FormatInt(mtime.UnixMilli()+1, 10)
	err := transcript.WaitFresh(context.Background(), p, ahead, 250*time.Millisecond)
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseStale) {
		t.Errorf("WaitFresh(behind): got %v, want transcript_unavailable stale", err)
	}
	err = transcript.WaitFresh(context.Background(), p, "not-a-number", time.Hour)
	if !wire.Is(err, wire.TranscriptUnavailable, wire.CauseStale) {
		t.Errorf("WaitFresh(malformed cursor): got %v, want transcript_unavailable stale at once", err)
	}
}

// The file catching up while WaitFresh polls ends the wait with nil. The timeout is
// far beyond the test's run time, so only the poll can end it.
func TestWaitFreshCatchesUp(t *testing.T) {
	dir := t.TempDir()
	p := touch(t, filepath.Join(dir, "t.jsonl"), mtime)
	cursor := strconv.FormatInt(mtime.Add(time.Second).UnixMilli(), 10)
	done := make(chan error, 1)
	go func() { done <- transcript.WaitFresh(context.Background(), p, cursor, time.Hour) }()
	later := mtime.Add(2 * time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("WaitFresh: got %v, want nil after the file advanced", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WaitFresh did not notice the file advancing")
	}
}

// A file that appears (re-created after rotation) at the cursor also ends the wait.
func TestWaitFreshFileReappears(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	cursor := strconv.FormatInt(mtime.UnixMilli(), 10)
	done := make(chan error, 1)
	go func() { done <- transcript.WaitFresh(context.Background(), p, cursor, time.Hour) }()
	touch(t, p, mtime)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("WaitFresh: got %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WaitFresh did not notice the file appearing")
	}
}

func TestWaitFreshCanceled(t *testing.T) {
	p := touch(t, filepath.Join(t.TempDir(), "t.jsonl"), mtime)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ahead := strconv.FormatInt(mtime.UnixMilli()+1, 10)
	if err := transcript.WaitFresh(ctx, p, ahead, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitFresh(canceled): got %v, want context.Canceled", err)
	}
}
