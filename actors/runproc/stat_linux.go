package runproc

import (
	"bytes"
	"os"
	"strconv"
)

// procInfo reads /proc/<pid>/stat.
func procInfo(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	return parseStat(b)
}

// parseStat reads the state (field 3) and the start time (field 22, clock ticks since
// boot) of a /proc/<pid>/stat line. Field 2 is the command name in parentheses, and the
// name itself may hold spaces and parentheses, so fields are counted from the last ")".
func parseStat(b []byte) (proc, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := bytes.Fields(b[i+1:])
	const state, starttime = 3 - 3, 22 - 3 // f[0] is field 3
	if len(f) <= starttime || len(f[state]) != 1 {
		return proc{}, false
	}
	start, err := strconv.ParseInt(string(f[starttime]), 10, 64)
	if err != nil || start < 0 {
		return proc{}, false
	}
	s := f[state][0]
	return proc{start: start, zombie: s == 'Z' || s == 'X' || s == 'x'}, true
}
