package server

import "golang.org/x/sys/unix"

// peerUID is the uid of the peer of the Unix socket fd (SO_PEERCRED).
func peerUID(fd int) (uid int, known bool, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, false, err
	}
	return int(cred.Uid), true, nil
}
