//go:build !race

package fleet

import (
	_ "unsafe" // for go:linkname

	_ "github.com/nats-io/nats-server/v2/server/pse"
)

// natsStatFile is the NATS server's process sampler's file (its package pse reads it
// once a second, from its init on, in every process that links the NATS server: every
// orcr process, the server at rest, `orcr top`, a loop's run process). orcr serves no
// NATS monitoring page, the sampler's only reader, and the timer cost an idle process
// milliseconds of CPU a second (docs/fleet.md §6.1). An empty name makes the sampler's
// next read fail, and it stops.
//
// By the memory model's letter the write below races with that read, a second later,
// on the timer's goroutine (nothing else orders them); so the race detector's builds,
// the tests', leave the sampler alone, and tests/idle_process_test.go holds the binary
// users run to it.
//
//go:linkname natsStatFile github.com/nats-io/nats-server/v2/server/pse.procStatFile
var natsStatFile string

// natsStatFileWas is what the sampler had set, kept so that a test can tell the
// linkname names its variable and not a new one of the same name.
var natsStatFileWas string

func init() {
	natsStatFileWas, natsStatFile = natsStatFile, ""
}
