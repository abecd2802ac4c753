package herdr

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unreadBytes is how much of what was written to conn its reader has not taken yet
// (SIOCOUTQ: on a Unix socket, the memory of the queued data the peer has not read),
// and whether it could be read.
func unreadBytes(conn net.Conn) (int, bool) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}
