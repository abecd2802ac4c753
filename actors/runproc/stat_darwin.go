package runproc

import "golang.org/x/sys/unix"

// szomb is p_stat of a zombie (<sys/proc.h> SZOMB).
const szomb = 5

// procInfo asks sysctl kern.proc.pid; the start time is in Unix milliseconds.
func procInfo(pid int) (proc, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k == nil || int(k.Proc.P_pid) != pid {
		return proc{}, false
	}
	t := k.Proc.P_starttime
	return proc{start: t.Sec*1000 + int64(t.Usec)/1000, zombie: k.Proc.P_stat == szomb}, true
}
