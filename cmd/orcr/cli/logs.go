package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// serverLogPoll is how often `server logs --follow` looks for appended bytes.
const serverLogPoll = 200 * time.Millisecond

type serverLogsCmd struct {
	Tail   *uint `help:"Print only the last N lines."`
	Follow bool  `help:"Keep printing appended lines until interrupted."`
}

// Run implements `orcr server logs` (docs/cli.md §5.20): reads <home>/logs/server.log
// directly (current file only); a missing file has no lines.
func (c *serverLogsCmd) Run(a *app) error {
	home, err := a.resolveHome()
	if err != nil {
		return err
	}
	path := config.NewPaths(home).ServerLog
	data, err := readLog(path, 0)
	if err != nil {
		return err
	}
	var lines [][]byte
	var offset int64
	if c.Follow {
		// Only complete lines; a partial last line is printed once it is finished.
		complete := data[:bytes.LastIndexByte(data, '\n')+1]
		lines, offset = splitLines(complete), int64(len(complete))
	} else {
		lines = splitLines(data)
	}
	if c.Tail != nil && uint(len(lines)) > *c.Tail {
		lines = lines[uint(len(lines))-*c.Tail:]
	}
	if !c.Follow {
		if a.json {
			out := make([]json.RawMessage, len(lines))
			for i, l := range lines {
				out[i] = logLineJSON(l)
			}
			a.printOKValue(map[string]any{"lines": out})
			return nil
		}
		for _, l := range lines {
			a.stdout("%s", l)
		}
		return nil
	}
	emitLine := func(l []byte) {
		if a.json {
			a.printOKValue(map[string]any{"line": logLineJSON(l)})
		} else {
			a.stdout("%s", l)
		}
	}
	for _, l := range lines {
		emitLine(l)
	}
	return a.followLog(path, offset, emitLine)
}

// followLog polls path every serverLogPoll from offset and prints complete appended
// lines; a file shorter than offset (rotated or truncated) is read again from the
// start. It returns nil when the context ends.
func (a *app) followLog(path string, offset int64, emitLine func([]byte)) error {
	return a.poll(serverLogPoll, func() (bool, error) {
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, logReadError(path, err)
		}
		if fi.Size() < offset {
			offset = 0
		}
		if fi.Size() == offset {
			return false, nil
		}
		data, err := readLog(path, offset)
		if err != nil {
			return false, err
		}
		complete := data[:bytes.LastIndexByte(data, '\n')+1]
		for _, l := range splitLines(complete) {
			emitLine(l)
		}
		offset += int64(len(complete))
		return false, nil
	})
}

// readLog reads path from offset to its end; a missing file reads as empty.
func readLog(path string, offset int64) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, logReadError(path, err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, logReadError(path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, logReadError(path, err)
	}
	return data, nil
}

// logReadError is environment_error with the reference's cause config_invalid
// (docs/cli.md §8 item 9).
func logReadError(path string, err error) error {
	return wire.Env(wire.CauseConfigInvalid, fmt.Sprintf("cannot read %s: %v", path, err), "path", path).Wrap(err)
}

// writeFile writes data to path; failures are environment_error config_invalid, as
// in the reference (docs/cli.md §8 item 9).
func writeFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return wire.Env(wire.CauseConfigInvalid, fmt.Sprintf("cannot write %s: %v", path, err), "path", path).Wrap(err)
	}
	return nil
}

// splitLines splits data on '\n'; a trailing newline does not start another line.
func splitLines(data []byte) [][]byte {
	data = bytes.TrimSuffix(data, []byte("\n"))
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data, []byte("\n"))
}

// logLineJSON is a log line as a JSON value: the parsed object, else {"raw": line}.
func logLineJSON(l []byte) json.RawMessage {
	t := bytes.TrimSpace(l)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		var b bytes.Buffer
		if json.Compact(&b, t) == nil {
			return b.Bytes()
		}
	}
	return bytes.TrimSuffix(marshal(map[string]string{"raw": string(l)}), []byte("\n"))
}
