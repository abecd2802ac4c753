package runproc

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// raise ends this process with sig, the way the command it mirrors ended. The Go
// runtime keeps its own handler for most signals (a SIGSEGV or SIGPIPE sent with kill
// would be swallowed), so the default action is put back with rt_sigaction directly
// before the signal is sent. No core file is written: the command's crash is not ours.
// It returns only if the signal did not end the process within a second.
func raise(sig syscall.Signal) {
	if sig != syscall.SIGKILL && sig != syscall.SIGSTOP {
		// A zeroed kernel struct sigaction is SIG_DFL with no flags and an empty mask;
		// 64 bytes covers its layout on every architecture. The last argument is the
		// size of the kernel's sigset_t.
		var act [8]uint64
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	}
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
}
