package runproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/orcr-go/orcr/config/rotate"
)

// The streams of a [Line].
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// Line is one record of the run log: {"ts":<ms>,"stream":"stdout"|"stderr","text":…},
// one output line without its newline (docs/loops.md §6.5).
type Line struct {
	TS     int64  `json:"ts"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// ReadLog returns the records of <dir>/run.log, the current file only (rotated ones are
// run.log.1 … run.log.N, newest first). A line that does not decode — the last one,
// torn by a write in progress or by a killed shim — is left out. A missing run.log is
// an empty log.
func ReadLog(dir string) ([]Line, error) {
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Line
	for len(b) > 0 {
		line, rest, _ := bytes.Cut(b, []byte{'\n'})
		b = rest
		var l Line
		if json.Unmarshal(line, &l) == nil {
			out = append(out, l)
		}
	}
	return out, nil
}

// runLog appends records to run.log, rotated as [Spec.MaxBytes] says (see
// [rotate.File]): a record larger than the bound on its own still goes whole into a
// fresh file. One record is one write, so a reader never sees two records mixed.
type runLog struct {
	mu  sync.Mutex
	f   *rotate.File
	buf bytes.Buffer
	enc *json.Encoder
	// reported is set once write has returned an error.
	reported bool
}

func openRunLog(dir string, maxBytes int64, maxFiles int) (*runLog, error) {
	f, err := rotate.Open(filepath.Join(dir, LogFile), orDefault(maxBytes, DefaultMaxBytes), orDefault(maxFiles, DefaultMaxFiles))
	if err != nil {
		return nil, err
	}
	l := &runLog{f: f}
	l.enc = json.NewEncoder(&l.buf)
	l.enc.SetEscapeHTML(false)
	return l, nil
}

// write appends one record. Text that is not UTF-8 is stored with U+FFFD in place of
// the bad bytes (JSON strings are Unicode). It reports the first failure of the log, once:
// the shim prints it and keeps draining the command's output.
func (l *runLog) write(stream string, text []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reset()
	// Encoding a Line cannot fail; the encoder appends the newline.
	_ = l.enc.Encode(Line{TS: time.Now().UnixMilli(), Stream: stream, Text: string(text)})
	if _, err := l.f.Write(l.buf.Bytes()); err != nil && !l.reported {
		l.reported = true
		return fmt.Errorf("run log: %w", err)
	}
	return nil
}

func (l *runLog) close() error { return l.f.Close() }

// spawnFailure is the text of the stderr record for a command that could not start.
func spawnFailure(err error) []byte { return []byte("failed to spawn command: " + err.Error()) }

// appendSpawnFailure leaves the spawn failure record in dir's run.log, best effort.
func appendSpawnFailure(dir string, err error) {
	l, oerr := openRunLog(dir, 0, 0)
	if oerr != nil {
		return
	}
	_ = l.write(Stderr, spawnFailure(err))
	_ = l.close()
}

// maxRecordText bounds the text of one record: a longer line is cut into several
// records, each at most this long, cut at a UTF-8 character boundary.
const maxRecordText = 64 << 10

// capture reads r line by line into l as stream until EOF, an error or a read deadline;
// a last line without a newline is a record too.
func capture(r *os.File, stream string, l *runLog, report func(error)) {
	br := bufio.NewReaderSize(r, maxRecordText)
	var line []byte
	emit := func(b []byte) {
		if err := l.write(stream, b); err != nil {
			report(err)
		}
	}
	for {
		b, err := br.ReadSlice('\n')
		complete := err == nil
		if complete {
			b = b[:len(b)-1]
		}
		line = append(line, b...)
		for len(line) > maxRecordText {
			n := runeCut(line, maxRecordText)
			emit(line[:n])
			line = append(line[:0], line[n:]...)
		}
		switch {
		case complete:
			emit(line)
			line = line[:0]
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			if len(line) > 0 {
				emit(line)
			}
			return
		}
	}
}

// runeCut is the largest i <= n at which b can be cut without splitting a UTF-8
// sequence (n itself when b is not UTF-8 there).
func runeCut(b []byte, n int) int {
	for i := n; i > 0 && i > n-4; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return n
}
