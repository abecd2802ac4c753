package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/herdr/herdrschema"
	"github.com/orcr-go/orcr/herdr/herdrtest"
)

func cmdServer(session string, prof profile, stderr io.Writer) int {
	if session == "" {
		session = "default"
	}
	exe, err := os.Executable()
	if err == nil {
		exe, _ = filepath.Abs(exe)
	}
	opts := herdrtest.Options{
		ConfigDir:     herdrtest.ConfigDirFromEnv(),
		Version:       prof.version,
		Protocol:      prof.protocol,
		CompletionSeq: prof.completionSeq,
		Toasts:        prof.toasts,
		NoDetection:   prof.noDetection,
		Size:          prof.size,
		OnNotify:      toastLogger(prof.toastLog, stderr),
		Late:          prof.late,
		BinPath:       exe,
		Logf:          func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) },
	}
	if session != "default" {
		// A named-session server has HERDR_SESSION in its own environment.
		opts.Env = append(os.Environ(), "HERDR_SESSION="+session)
	}
	// Catch the signals before the socket answers: a client that sees the socket and
	// stops the server at once must get a clean stop, not the default signal death.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	s, err := herdrtest.NewSession(opts, session)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	select {
	case <-sig:
		_ = s.Close()
	case <-s.Done():
	}
	return 0
}

// toastLogger appends each shown notification to path as a JSON line; nil without a path.
func toastLogger(path string, stderr io.Writer) func(title, body string) {
	if path == "" {
		return nil
	}
	var mu sync.Mutex
	return func(title, body string) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "toast log: %v\n", err)
			return
		}
		defer f.Close()
		writeJSON(f, map[string]string{"title": title, "body": body})
	}
}

func writeJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "%s\n", b)
}

func cmdSessionList(jsonOut bool, stdout io.Writer) int {
	rows := herdrtest.ListSessions(herdrtest.ConfigDirFromEnv())
	if jsonOut {
		writeJSON(stdout, map[string]any{"sessions": rows})
		return 0
	}
	for _, r := range rows {
		state := "stopped"
		if r.Running {
			state = "running"
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", r.Name, state, r.SocketPath)
	}
	return 0
}

func findSession(name string) (herdrtest.SessionRow, bool) {
	c := herdrtest.ConfigDirFromEnv()
	if name == "default" {
		return herdrtest.SessionRowFor(c, name), true
	}
	if !herdrtest.ValidSessionName(name) {
		return herdrtest.SessionRow{}, false
	}
	if st, err := os.Stat(herdrtest.SessionDir(c, name)); err != nil || !st.IsDir() {
		return herdrtest.SessionRow{}, false
	}
	return herdrtest.SessionRowFor(c, name), true
}

func cmdSessionStop(name string, jsonOut bool, stdout, stderr io.Writer) int {
	row, ok := findSession(name)
	if !ok {
		fmt.Fprintf(stderr, "error: session %s not found\n", name)
		return 1
	}
	if !row.Running {
		fmt.Fprintf(stderr, "error: session %s is not running\n", name)
		return 1
	}
	if err := stopServer(row.SocketPath); err != nil {
		fmt.Fprintf(stderr, "error: stop session %s: %v\n", name, err)
		return 1
	}
	deadline := time.Now().Add(15 * time.Second)
	for herdrtest.SocketAnswers(row.SocketPath) {
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "error: session %s did not stop within 15s\n", name)
			return 1
		}
		time.Sleep(50 * time.Millisecond)
	}
	row = herdrtest.SessionRowFor(herdrtest.ConfigDirFromEnv(), name)
	if jsonOut {
		writeJSON(stdout, map[string]any{"stopped": true, "session": row})
	} else {
		fmt.Fprintf(stdout, "stopped session %s\n", name)
	}
	return 0
}

func stopServer(sock string) error {
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := c.Write([]byte(`{"id":"herdr-standin:stop","method":"server.stop","params":{}}` + "\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return err
	}
	var resp struct {
		Error *struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return err
	}
	if resp.Error != nil {
		return errors.New(resp.Error.Code + ": " + resp.Error.Message)
	}
	return nil
}

func cmdSessionDelete(name string, jsonOut bool, stdout, stderr io.Writer) int {
	if name == "default" {
		fmt.Fprintln(stderr, "error: the default session cannot be deleted")
		return 1
	}
	row, ok := findSession(name)
	if !ok {
		fmt.Fprintf(stderr, "error: session %s not found\n", name)
		return 1
	}
	if row.Running {
		fmt.Fprintf(stderr, "error: session %s is running; stop it first\n", name)
		return 1
	}
	if err := os.RemoveAll(row.SessionDir); err != nil {
		fmt.Fprintf(stderr, "error: delete session %s: %v\n", name, err)
		return 1
	}
	if jsonOut {
		writeJSON(stdout, map[string]any{"deleted": true, "session": row})
	} else {
		fmt.Fprintf(stdout, "deleted session %s\n", name)
	}
	return 0
}

func cmdAPISchema(prof profile, stdout io.Writer) int {
	b := herdrschema.For(prof.protocol)
	stdout.Write(b)
	if len(b) == 0 || b[len(b)-1] != '\n' {
		fmt.Fprintln(stdout)
	}
	return 0
}
