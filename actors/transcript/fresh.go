package transcript

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"time"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// FreshPollInterval is how often [WaitFresh] re-reads the file's mtime (docs/lifecycle.md
// §11.4).
const FreshPollInterval = 100 * time.Millisecond

// Settled is the transcript condition of turn completion (docs/providers.md §6.4,
// docs/lifecycle.md §10.2). settle is the provider's transcript_settle_ms; path is the
// located transcript, "" when it could not be located.
//
//   - settle <= 0 → true (the condition is disabled);
//   - path "" or a file that does not exist (any more) → false: a turn cannot complete
//     on a missing transcript;
//   - mtime unreadable for another reason → true;
//   - otherwise now − mtime ≥ settle. A file modified "in the future" (clock skew) is
//     not settled until now catches up.
func Settled(path string, settle time.Duration, now time.Time) bool {
	if settle <= 0 {
		return true
	}
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	return now.Sub(fi.ModTime()) >= settle
}

// Cursor is the completion cursor of the file at path: its mtime in whole milliseconds
// since the Unix epoch (truncated), as a decimal string (docs/providers.md §6.3). ok is false
// when the mtime cannot be read.
func Cursor(path string) (cursor string, ok bool) {
	ms, ok := mtimeMS(path)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(ms, 10), true
}

// Stamp is a change stamp of the file at path: its size and its mtime in nanoseconds.
// It tells whether a transcript changed since it was last read (the tool feed, the
// approvals' looks for a call, docs/remote.md §7), where [Cursor], in whole
// milliseconds, can miss an append that lands in the same millisecond as the write
// before it. ok is false when the file cannot be stat'ed.
func Stamp(path string) (stamp string, ok bool) {
	if path == "" {
		return "", false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10), true
}

// Fresh reports whether the file at path has reached cursor: its mtime in ms (as in
// [Cursor]) is ≥ the cursor (docs/providers.md §6.5). The comparison is by mtime alone,
// because the cursor records nothing else; ≥ rather than > because the cursor is the
// mtime the completed turn left behind, and an unchanged file is exactly that state.
// What the gate catches is a file that is behind the cursor: rotated, truncated to an
// older copy, or vanished.
//
// An empty cursor means no gate: true. A cursor that is not a decimal integer never
// matches (fail closed rather than return an unverified answer), and neither does a
// file whose mtime cannot be read.
func Fresh(path, cursor string) bool {
	if cursor == "" {
		return true
	}
	want, err := strconv.ParseInt(cursor, 10, 64)
	if err != nil {
		return false
	}
	ms, ok := mtimeMS(path)
	return ok && ms >= want
}

// WaitFresh is the freshness gate (docs/providers.md §6.5): it checks [Fresh] at once and
// then every [FreshPollInterval] until it holds (nil) or timeout has passed since the
// call (transcript_unavailable stale). A malformed cursor is stale at once. When ctx
// ends first, ctx.Err() is returned unchanged.
func WaitFresh(ctx context.Context, path, cursor string, timeout time.Duration) error {
	if Fresh(path, cursor) {
		return nil
	}
	stale := func() error {
		return Unavailable(wire.CauseStale, "transcript "+path+" did not reach the state recorded at completion (cursor "+
			cursor+") within "+timeout.String()+"; it may have been rotated, truncated or deleted")
	}
	if _, err := strconv.ParseInt(cursor, 10, 64); err != nil {
		return stale()
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(FreshPollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			if Fresh(path, cursor) {
				return nil
			}
			return stale()
		case <-tick.C:
			if Fresh(path, cursor) {
				return nil
			}
		}
	}
}

// mtimeMS is the file's mtime in ms since the epoch.
func mtimeMS(path string) (int64, bool) {
	if path == "" {
		return 0, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	return fi.ModTime().UnixMilli(), true
}
