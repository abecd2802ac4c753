//go:build !linux

package herdr

import "net"

// unreadBytes is not available here: a call's bound is its Timeout alone.
func unreadBytes(net.Conn) (int, bool) { return 0, false }
