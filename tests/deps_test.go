package tests

// The module's chosen dependencies, pinned here so `go mod tidy` keeps them while the
// packages that use them are being written. Remove a line once real code imports it.
import (
	_ "github.com/alecthomas/kong"
	_ "github.com/creack/pty"
	_ "github.com/gofrs/flock"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/uuid"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "modernc.org/sqlite"
	_ "pgregory.net/rapid"
)
