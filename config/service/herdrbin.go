package service

import (
	"os"
	"path/filepath"

	"github.com/orcr-go/orcr/config"
)

// HerdrBin is the ORCR_HERDR_BIN a unit carries (docs/loops.md §12.1): the caller's
// $ORCR_HERDR_BIN when it is set, else the herdr that discovery finds now — configured
// (config herdr.bin) when that is an executable file, else herdr on $PATH — else "".
// Paths are made absolute against the working directory, because the service manager
// starts the server elsewhere.
//
// "" leaves the variable out of the unit, so the server looks herdr up on its own PATH
// at every call. Writing the name "herdr" instead would stop that: the server takes a
// set ORCR_HERDR_BIN as a path and never searches PATH for it.
func HerdrBin(getenv func(string) string, configured string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if env := getenv(config.EnvHerdrBin); env != "" {
		return absolute(env)
	}
	if configured != "" && executable(configured) {
		return absolute(configured)
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, "herdr"); executable(p) {
			return absolute(p)
		}
	}
	return ""
}

// executable reports whether p is a regular file with an execute bit.
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// absolute is p made absolute, or p when the working directory cannot be read.
func absolute(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
