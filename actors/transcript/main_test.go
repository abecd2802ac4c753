package transcript_test

import (
	"flag"
	"testing"

	"go.uber.org/goleak"
)

// update rewrites the .golden.json files from the current parser output.
var update = flag.Bool("update", false, "rewrite testdata/*/*.golden.json")

// No goroutine or timer of WaitFresh outlives the test that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
