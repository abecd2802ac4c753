package runproc

import (
	"errors"
	"fmt"
	"syscall"
)

// The identity guard (docs/loops.md §7): a recorded pid names the process it was
// recorded for only while that process's OS start time is still the recorded one,
// because pids are reused. A start time of 0 is unknown: on either side, "alive" is
// then enough.

// StartTime returns pid's OS start time: on Linux field 22 of /proc/<pid>/stat (clock
// ticks since boot), on macOS the start time in Unix milliseconds; false elsewhere, or
// when pid does not exist. A zombie still has its start time.
func StartTime(pid int) (int64, bool) {
	info, ok := procInfo(pid)
	if !ok || info.start == 0 {
		return 0, false
	}
	return info.start, true
}

// Alive reports whether pid is the live process recorded with startTime: kill(pid, 0)
// finds it, it is not a zombie, and its start time is startTime (when both are known).
func Alive(pid int, startTime int64) bool { return lookup(pid, startTime) == leaderSame }

// leader is what a recorded pid and start time find now.
type leader int

const (
	leaderGone  leader = iota // no such process, or a zombie of it
	leaderSame                // alive, and the start time matches or is unknown
	leaderOther               // the pid is another process's now (another start time)
)

func lookup(pid int, startTime int64) leader {
	if pid <= 0 {
		return leaderGone
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return leaderGone
	} // nil or EPERM: it exists
	info, ok := procInfo(pid)
	switch {
	case !ok:
		return leaderSame
	case startTime != 0 && info.start != 0 && info.start != startTime:
		return leaderOther
	case info.zombie:
		return leaderGone
	}
	return leaderSame
}

// SignalGroup sends sig to the process group pgid (kill(-pgid, sig)) when the guard
// lets it: its leader — pid pgid — is alive with startTime ([Alive]). With watched, it
// also signals when the leader is gone but the group still has members: pass watched
// only when this process saw that very leader exit (it waited for it, or polled it dead
// after checking it alive), since a group id cannot be reused while the group has
// members, whereas after a restart nothing is known of what happened in between
// (decision L6). A pgid whose leader is alive with another start time is never
// signalled. sent is false, with a nil error, when the guard refused or nothing was left
// to signal.
func SignalGroup(pgid int, startTime int64, sig syscall.Signal, watched bool) (sent bool, err error) {
	if pgid <= 1 || pgid == syscall.Getpgrp() {
		return false, fmt.Errorf("runproc: will not signal process group %d", pgid)
	}
	switch lookup(pgid, startTime) {
	case leaderOther:
		return false, nil
	case leaderGone:
		if !watched || !groupExists(pgid) {
			return false, nil
		}
	}
	err = syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("runproc: signal process group %d: %w", pgid, err)
	}
	return true, nil
}

// groupExists reports whether some process is in group pgid (kill(-pgid, 0)).
func groupExists(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// proc is what the OS tells of a process.
type proc struct {
	start  int64 // 0: unknown
	zombie bool
}
