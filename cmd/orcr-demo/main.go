// Command orcr-demo is the README's main job: a self-contained tour of orcr on a machine
// with no herdr and no provider installed. It builds the real binaries (orcr, the herdr
// stand-in, the mock provider) into a temporary directory, points a throwaway ORCR_HOME
// and herdr config dir at them, and drives everything through the real CLI — the same
// code paths a user's run takes: auto-start, a fan-out of agents under one scope with
// admission control, `agent ls` while they work, a send, a pattern kill, and a stop.
//
// Run it from the repository: go run ./cmd/orcr-demo
//
// With --sandbox DIR it runs no tour: it builds the binaries into DIR, prepares a home
// and the stand-in's state there, and prints the shell exports that let you drive orcr
// with the mock provider yourself (see sandbox.go, README "Try it without herdr").
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/remote"
)

const agents = 6

func main() {
	sandboxDir := flag.String("sandbox", "", "build the binaries into `DIR`, prepare a home there and print its shell exports, instead of the tour")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *sandboxDir != "" {
		if err := sandbox(ctx, *sandboxDir, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox:", err)
			os.Exit(1)
		}
		return
	}
	d, err := newDemo()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	err = d.run(ctx)
	d.cleanup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo failed:", err)
		os.Exit(1)
	}
	fmt.Println("\ndemo finished: every step above ran through the real orcr CLI and server.")
	fmt.Println("to drive it yourself: go run ./cmd/orcr-demo --sandbox /tmp/orcr-sandbox (README: Try it without herdr)")
}

type demo struct {
	tmp, bin, home, xdg string
	env                 []string
}

func newDemo() (*demo, error) {
	tmp, err := os.MkdirTemp("", "orcr-demo")
	if err != nil {
		return nil, err
	}
	d := &demo{tmp: tmp, bin: filepath.Join(tmp, "bin"), home: filepath.Join(tmp, "home"), xdg: filepath.Join(tmp, "xdg")}
	return d, nil
}

func (d *demo) step(format string, args ...any) {
	fmt.Printf("\n\033[1m==> "+format+"\033[0m\n", args...)
}

func (d *demo) run(ctx context.Context) error {
	d.step("building orcr, the herdr stand-in and the mock provider")
	if err := buildBinaries(ctx, d.bin, os.Stderr); err != nil {
		return err
	}
	for _, dir := range []string{d.home, d.xdg} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	// At most 3 agents hold a slot at once: the rest wait in the admission queue.
	// The remote stream listens on a loopback port the kernel picks.
	if err := os.WriteFile(filepath.Join(d.home, "config.json"),
		[]byte(`{"concurrency": {"max": 3}, "remote": {"listen": "127.0.0.1:0"}}`), 0o600); err != nil {
		return err
	}
	d.env = append(os.Environ(),
		"ORCR_HOME="+d.home,
		"XDG_CONFIG_HOME="+d.xdg,
		"ORCR_HERDR_BIN="+filepath.Join(d.bin, "herdr-standin"),
		"ORCR_ALLOW_MOCK_PROVIDER=1",
		"ORCR_MOCK_AGENT_BIN="+filepath.Join(d.bin, "orcr-mock-agent"),
		"ORCR_MOCK_TURN_MS=1500", // each mock turn "works" for 1.5 s
	)
	fmt.Printf("throwaway home: %s (config: concurrency.max = 3)\n", d.home)

	d.step("orcr server status   (auto-starts the server)")
	if err := d.orcr(ctx, os.Stdout, "server", "status"); err != nil {
		return err
	}

	d.step("fan-out: %d mock agents under demo/ (--gc immediate: each frees its slot when its turn is done)", agents)
	var wg sync.WaitGroup
	errs := make([]error, agents)
	outs := make([]bytes.Buffer, agents)
	for i := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.orcr(ctx, &outs[i], "agent", "run", "--path", fmt.Sprintf("demo/worker_%d", i+1),
				"-a", "mock", "--gc", "immediate", "-p", fmt.Sprintf("say=hello_from_%d", i+1))
		}()
	}
	wg.Wait()
	for i := range agents {
		if errs[i] != nil {
			return errs[i]
		}
		fmt.Print(outs[i].String())
	}

	d.step("orcr agent ls   (3 hold slots and work, the rest wait in the admission queue)")
	if err := d.orcr(ctx, os.Stdout, "agent", "ls"); err != nil {
		return err
	}
	d.step("orcr agent wait 'demo/*'   (blocks until every agent's turn is complete)")
	if err := d.orcr(ctx, os.Stdout, "agent", "wait", "demo/*"); err != nil {
		return err
	}
	d.step("each agent's answer: orcr agent logs <path> --last-response")
	for i := range agents {
		path := fmt.Sprintf("demo/worker_%d", i+1)
		var out bytes.Buffer
		if err := d.orcr(ctx, &out, "agent", "logs", path, "--last-response"); err != nil {
			return err
		}
		fmt.Printf("%-14s %s\n", path, strings.ReplaceAll(strings.TrimSpace(out.String()), "\n", " / "))
	}

	d.step("a conversation: run, wait, send, wait, read the answer")
	for _, args := range [][]string{
		{"agent", "run", "--path", "demo/chat", "-a", "mock", "-p", "say=first_answer"},
		{"agent", "wait", "demo/chat"},
		{"agent", "send", "demo/chat", "say=second_answer"},
		{"agent", "wait", "demo/chat"},
		{"agent", "logs", "demo/chat", "--last-response"},
	} {
		if err := d.orcr(ctx, os.Stdout, args...); err != nil {
			return err
		}
	}

	if err := d.remoteStream(ctx); err != nil {
		return err
	}

	d.step("orcr agent ask   (run + wait + answer in one call)")
	if err := d.orcr(ctx, os.Stdout, "agent", "ask", "--path", "demo/asker", "-a", "mock", "-p", "say=asked_and_answered"); err != nil {
		return err
	}
	if err := d.orcr(ctx, os.Stdout, "agent", "ls"); err != nil {
		return err
	}

	d.step("orcr agent kill 'demo/*' -y   (a pattern kill: whatever still runs under demo/)")
	if err := d.orcr(ctx, os.Stdout, "agent", "kill", "demo/*", "-y"); err != nil {
		return err
	}
	d.step("orcr agent ls --all")
	if err := d.orcr(ctx, os.Stdout, "agent", "ls", "--all"); err != nil {
		return err
	}

	d.step("what the mock agents wrote (transcripts in each agent's data dir)")
	files, _ := filepath.Glob(filepath.Join(d.home, "data", "demo", "*", "*", "transcript.jsonl"))
	for _, f := range files {
		rel, _ := filepath.Rel(d.home, f)
		fmt.Printf("%s: %d lines\n", rel, countLines(f))
	}

	d.step("orcr server stop   (agent panes are never touched by a stop)")
	return d.orcr(ctx, os.Stdout, "server", "stop")
}

func (d *demo) orcr(ctx context.Context, out io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(d.bin, "orcr"), args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = d.env, out, os.Stderr
	if out == os.Stdout {
		fmt.Printf("$ orcr %s\n", strings.Join(args, " "))
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("orcr %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// cleanup stops the server (if still up) and the herdr stand-in session it used, which
// ends the agent processes, then removes the temporary tree.
func (d *demo) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if d.env != nil {
		stopSrv := exec.CommandContext(ctx, filepath.Join(d.bin, "orcr"), "server", "stop")
		stopSrv.Env = d.env
		stopSrv.Run()
		stopHerdr := exec.CommandContext(ctx, filepath.Join(d.bin, "herdr-standin"), "session", "stop", d.session())
		stopHerdr.Env = d.env
		stopHerdr.Run()
	}
	os.RemoveAll(d.tmp)
}

// session is the herdr session the demo's server owns: herdr.session of its config as
// the server resolves it, so ORCR_HERDR_SESSION in the shell that ran the demo counts
// (docs/config.md §1.2).
func (d *demo) session() string {
	cfg, _, err := config.Load(d.home, func(key string) string {
		v, _ := envValue(d.env, key)
		return v
	})
	if err != nil {
		return "orcr"
	}
	return cfg.Herdr.Session
}

// envValue is the last value of key in env (exec uses the last of duplicates).
func envValue(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// buildBinaries builds orcr, the herdr stand-in and the mock provider into dir; the
// compiler's output goes to out.
func buildBinaries(ctx context.Context, dir string, out io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", dir+"/", "./cmd/orcr", "./cmd/herdr-standin", "./cmd/orcr-mock-agent")
	build.Dir, build.Stdout, build.Stderr = root, out, out
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("run the demo from the orcr repository (go list -m: %w)", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

// remoteStream shows the per-agent WebSocket stream (docs/remote.md): a token from the
// CLI, then a remote client that replays demo/chat's durable session log and injects a
// wake that starts a turn, whose entries arrive live.
func (d *demo) remoteStream(ctx context.Context) error {
	d.step("the remote stream: orcr agent token demo/chat, then a WebSocket client replays its session log and wakes it")
	var st bytes.Buffer
	if err := d.orcr(ctx, &st, "server", "status", "--json"); err != nil {
		return err
	}
	var status struct {
		Result struct {
			Remote struct {
				Address string `json:"address"`
			} `json:"remote"`
		} `json:"result"`
	}
	if err := json.Unmarshal(st.Bytes(), &status); err != nil || status.Result.Remote.Address == "" {
		return fmt.Errorf("the remote listener is not up: %s", st.String())
	}
	var tok, id bytes.Buffer
	if err := d.orcr(ctx, &tok, "agent", "token", "demo/chat"); err != nil {
		return err
	}
	if err := d.orcr(ctx, &id, "agent", "ls", "demo/chat", "--json"); err != nil {
		return err
	}
	var ls struct {
		Result struct {
			Agents []struct {
				UUID string `json:"uuid"`
			} `json:"agents"`
		} `json:"result"`
	}
	if err := json.Unmarshal(id.Bytes(), &ls); err != nil || len(ls.Result.Agents) != 1 {
		return fmt.Errorf("cannot find demo/chat: %s", id.String())
	}
	base := "http://" + status.Result.Remote.Address
	fmt.Printf("listening on %s; GET /agents/%s/ws with the token as a bearer\n", base, ls.Result.Agents[0].UUID)
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := (&remote.Dialer{}).Dial(sctx, base, ls.Result.Agents[0].UUID, strings.TrimSpace(tok.String()))
	if err != nil {
		return err
	}
	defer c.Close()
	tip := c.Hello().LastSeq
	if err := c.Subscribe(sctx, 0); err != nil {
		return err
	}
	woke := false
	for {
		f, err := c.Next(sctx)
		if err != nil {
			return err
		}
		e, ok := f.(remote.Event)
		if !ok {
			continue
		}
		fmt.Printf("  seq %-3d %-18s %s\n", e.Seq, e.Type, string(e.Payload))
		if e.Seq == tip && !woke {
			woke = true
			fmt.Println("  -- replayed; now a remote wake: inject {text: \"say=from_afar\", wake: true}")
			if err := c.Inject(sctx, "say=from_afar", true); err != nil {
				return err
			}
		}
		if woke && e.Type == "turn/end" {
			return nil
		}
	}
}
