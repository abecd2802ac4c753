package server

import (
	"net"
	"os"
)

// peerIsUser reports (ok) whether the process at the other end of nc runs as this
// server's effective uid, and the peer's uid when it is known (docs/protocol.md §1.3).
// The socket's 0600 mode and the 0700 home keep other users out already; this holds
// where they were loosened (the socket re-moded, a hard link outside the home). ok is
// true where the platform gives no peer credentials, and for a connection that is no
// Unix socket (the tests' in-memory pipes); false when the credentials cannot be read.
func peerIsUser(nc net.Conn) (uid int, ok bool) {
	uc, isUnix := nc.(*net.UnixConn)
	if !isUnix {
		return -1, true
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, false
	}
	uid, known := -1, false
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, known, credErr = peerUID(int(fd)) }); err != nil || credErr != nil {
		return -1, false
	}
	if !known {
		return -1, true
	}
	return uid, uid == os.Geteuid()
}
