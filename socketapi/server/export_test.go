package server

// Internals for the black-box tests in package server_test.
var (
	AcceptConns     = acceptConns
	NextAcceptDelay = nextAcceptDelay
)
