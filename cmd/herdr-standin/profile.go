package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrtest"
)

// profile is the herdr the stand-in plays: the protocol ping reports and whose schema
// fixture `api schema` prints, the version it names, and whether agent rows carry
// completion_seq (herdrtest.Options.CompletionSeq), whether it shows toasts
// (herdrtest.Options.Toasts) and the file each shown one is appended to, and its
// headless size (herdrtest.Options.Size; zero: the protocol's).
type profile struct {
	protocol      int
	version       string
	completionSeq bool
	toasts        bool
	toastLog      string
	noDetection   bool
	size          herdrtest.Size
	late          map[string]time.Duration // method → how long its answer (and effect) waits
}

// defaultVersions names a herdr release for every protocol the stand-in can play (the
// ones package herdrschema has a fixture for; 22's is orcr's own construction).
var defaultVersions = map[int]string{16: "0.7.2", 20: "0.8.2", 22: "0.9.0"}

// loadProfile reads the knobs from the environment:
//
//	HERDR_STANDIN_PROTOCOL=16|20|22   default 20
//	HERDR_STANDIN_VERSION=<v>         default the release of that protocol
//	HERDR_STANDIN_COMPLETION_SEQ=0|1  default 1 from protocol 22 on, else 0
//	HERDR_STANDIN_TOASTS=0|1          default 0 (herdr's default config: toasts off)
//	HERDR_STANDIN_TOAST_LOG=<file>    with toasts, each shown notification is appended
//	                                  to it as a JSON line {"title", "body"}
//	HERDR_STANDIN_DETECT=0|1          default 1: detect claude and codex in panes
//	                                  (herdrtest.Options.NoDetection when 0)
//	HERDR_STANDIN_SIZE=<cols>x<rows>  the headless size, as herdr's [server]
//	                                  headless_cols and headless_rows; default
//	                                  120x40 (80x24 for protocol 16); panes get 26
//	                                  columns and a row less
//	HERDR_STANDIN_LATE=<method>=<d>,… requests are carried out one at a time, and
//	                                  each of such a method only d after its turn
//	                                  came, as by a herdr whose application thread is
//	                                  busy (herdrtest.Options.Late): a client that
//	                                  gave up before then still gets its effect
//
// Child processes (a server started by `--session N server`) inherit them.
func loadProfile(getenv func(string) string) (profile, error) {
	p := profile{protocol: 20}
	if v := getenv("HERDR_STANDIN_PROTOCOL"); v != "" {
		n, err := strconv.Atoi(v)
		if _, ok := defaultVersions[n]; err != nil || !ok {
			return p, fmt.Errorf("HERDR_STANDIN_PROTOCOL=%q: the stand-in plays protocol 16, 20 or 22", v)
		}
		p.protocol = n
	}
	p.version = defaultVersions[p.protocol]
	if v := getenv("HERDR_STANDIN_VERSION"); v != "" {
		p.version = v
	}
	p.completionSeq = p.protocol >= 22
	switch v := getenv("HERDR_STANDIN_COMPLETION_SEQ"); v {
	case "":
	case "0", "1":
		p.completionSeq = v == "1"
	default:
		return p, fmt.Errorf("HERDR_STANDIN_COMPLETION_SEQ=%q: want 0 or 1", v)
	}
	switch v := getenv("HERDR_STANDIN_TOASTS"); v {
	case "", "0":
	case "1":
		p.toasts = true
	default:
		return p, fmt.Errorf("HERDR_STANDIN_TOASTS=%q: want 0 or 1", v)
	}
	p.toastLog = getenv("HERDR_STANDIN_TOAST_LOG")
	switch v := getenv("HERDR_STANDIN_DETECT"); v {
	case "", "1":
	case "0":
		p.noDetection = true
	default:
		return p, fmt.Errorf("HERDR_STANDIN_DETECT=%q: want 0 or 1", v)
	}
	if v := getenv("HERDR_STANDIN_SIZE"); v != "" {
		c, r, _ := strings.Cut(v, "x")
		cols, err1 := strconv.Atoi(c)
		rows, err2 := strconv.Atoi(r)
		if err1 != nil || err2 != nil || cols < 65 || rows < 2 {
			return p, fmt.Errorf("HERDR_STANDIN_SIZE=%q: want <cols>x<rows>, at least 65x2", v)
		}
		p.size = herdrtest.Size{Cols: cols, Rows: rows}
	}
	if v := getenv("HERDR_STANDIN_LATE"); v != "" {
		p.late = map[string]time.Duration{}
		for _, item := range strings.Split(v, ",") {
			m, ds, ok := strings.Cut(item, "=")
			d, err := time.ParseDuration(ds)
			if !ok || m == "" || err != nil || d < 0 {
				return p, fmt.Errorf("HERDR_STANDIN_LATE=%q: want <method>=<duration>[,…], e.g. layout.apply=3s", v)
			}
			p.late[m] = d
		}
	}
	return p, nil
}

func envProfile() (profile, error) { return loadProfile(os.Getenv) }
