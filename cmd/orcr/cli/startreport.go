package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"syscall"

	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// startReportFlag is the hidden `server start` flag through which [SpawnDetached] hands
// the server it starts the descriptor of its start report (docs/protocol.md §1.7). It
// must match the name tag of serverStartCmd.StartReportFD.
const startReportFlag = "--start-report-fd"

// maxStartReport bounds what is read from a start report.
const maxStartReport = 1 << 20

// openStartReport returns what `server start --foreground --start-report-fd N` calls
// with the outcome of its run: an error is written to descriptor fd as one JSON line
// (the error object of the --json envelope) for the CLI that started this process to
// read, then fd is closed. fd is marked close-on-exec at once, so the herdr, agent and
// loop processes the server starts never inherit it. fd <= 0 reports nothing.
func openStartReport(fd int) func(error) {
	if fd <= 0 {
		return func(error) {}
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "start-report")
	return func(err error) {
		defer f.Close()
		if err == nil {
			return
		}
		pe, ok := wire.As(err)
		if !ok {
			pe = wire.Internal(wire.CauseCLI, err.Error())
		}
		_, _ = f.Write(marshal(pe))
	}
}

// startFailure is what Spawned.Exited delivers once a spawned server has exited: the
// error it reported; else, for one that died without a report (a crash, a signal),
// server_start_failed naming how it ended; else nil (a clean exit without a report is a
// losing start racer: another server answers).
func startFailure(report []byte, exit error) error {
	if text := strings.TrimSpace(string(report)); text != "" {
		var e wire.Error
		if json.Unmarshal(bytes.TrimSpace(report), &e) == nil && e.Code.Known() {
			return &e
		}
		return wire.Env(wire.CauseServerStartFailed, "the orcr server failed to start: "+text)
	}
	if exit != nil {
		return wire.Env(wire.CauseServerStartFailed, "the orcr server exited while starting: "+exit.Error())
	}
	return nil
}
