package server

import "golang.org/x/sys/unix"

// peerUID is the uid of the peer of the Unix socket fd (LOCAL_PEERCRED).
func peerUID(fd int) (uid int, known bool, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, false, err
	}
	return int(cred.Uid), true, nil
}
