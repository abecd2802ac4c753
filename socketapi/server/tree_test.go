package server_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/remote"
	"github.com/orcr-go/orcr/socketapi/sockettest"
	"github.com/orcr-go/orcr/tests/poll"
)

// docTree reads the actor tree written in actors/doc.go (the block that starts with
// "//\troot") and returns one regexp per node, matching the node's full actor id.
// Placeholders (<...>) match one id segment.
func docTree(t *testing.T) map[string]*regexp.Regexp {
	t.Helper()
	src, err := os.ReadFile("../../actors/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	start := -1
	for i, l := range lines {
		if l == "//\troot" {
			start = i + 1
			break
		}
	}
	if start < 0 {
		t.Fatal("actors/doc.go has no tree block starting with //\\troot")
	}
	nodes := map[string]*regexp.Regexp{}
	var stack []string // parent patterns by depth
	placeholder := regexp.MustCompile(`<[^>]+>`)
	for _, l := range lines[start:] {
		body, ok := strings.CutPrefix(l, "//\t")
		if !ok || strings.TrimSpace(body) == "" {
			break
		}
		i := strings.Index(body, "── ")
		if i < 0 {
			t.Fatalf("actors/doc.go tree line without a branch: %q", l)
		}
		depth := len([]rune(body[:i])) / 4
		name := strings.Fields(body[i+len("── "):])[0]
		pat := placeholder.ReplaceAllString(regexp.QuoteMeta(name), "[^/]+")
		stack = append(stack[:depth], pat)
		nodes[strings.Join(stack[:depth+1], "/")] = regexp.MustCompile("^" + strings.Join(stack[:depth+1], "/") + "$")
	}
	return nodes
}

// The running actors are exactly the tree written in actors/doc.go: every actor id
// matches a node there, and with a running agent, an open watch and a blocked wait,
// every node has at least one actor.
func TestActorTreeMatchesDoc(t *testing.T) {
	t.Parallel()
	nodes := docTree(t)
	if len(nodes) < 10 {
		t.Fatalf("parsed %d nodes from actors/doc.go: %v", len(nodes), nodes)
	}
	srv := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithConfig(`{"remote": {"listen": "127.0.0.1:0"},
		"notify": {"targets": {"desk": {"type": "herdr"}}, "rules": [{"events": ["blocked"], "targets": ["desk"]}]},
		"fleet": {"host": "tree", "hub": {"listen": "127.0.0.1:0"}, "caps": {"mock": 5}}}`))
	c := srv.Client(t)
	a, err := run(t, c, map[string]any{"path": "tree/one"})
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, c, a.UUID, "idle")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An open remote stream keeps its connection actor.
	tok, err := c.Token(ctx, api.TokenRequest{Target: a.UUID})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := (&remote.Dialer{}).Dial(ctx, "http://"+srv.RemoteAddr(), a.UUID, *tok.Token)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	// An open dashboard fleet feed keeps its subscription actor.
	cookie := sockettest.DashboardCookie(t, c)
	feed, _, err := websocket.Dial(ctx, "ws://"+srv.RemoteAddr()+"/dashboard/ws", &websocket.DialOptions{
		HTTPHeader: http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}, "Origin": {"http://" + srv.RemoteAddr()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.CloseNow()
	st, err := c.Subscribe(ctx, "watch.open", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	send(t, c, "tree/one", "say=busy turn_ms=60000")
	// A loop with a running run keeps its loop actor.
	if err := c.Call(ctx, "loop.create", map[string]any{"name": "treeloop", "cron": "0 0 1 1 *", "cwd": "/",
		"command": []string{"sleep", "60"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "loop.run.start", map[string]any{"name": "treeloop"}, nil); err != nil {
		t.Fatal(err)
	}
	defer c.Call(context.Background(), "loop.rm", map[string]any{"names": []string{"treeloop"}, "kill_active": true}, nil)
	waitDone := make(chan error, 1)
	go func() {
		// A busy agent does not settle: the wait stays blocked until canceled.
		waitDone <- c.Call(ctx, "agent.wait", map[string]any{"targets": []string{"tree/*"}, "timeout": "1m"}, nil)
	}()

	seen := map[string]bool{}
	poll.Eventually(t, 20*time.Second, "a running actor for every tree node of actors/doc.go", func() bool {
		var unknown []string
		for _, id := range srv.ActorIDs() {
			if strings.HasPrefix(id, "future$") || id == "eventstream" || id == "deadletter" {
				continue // the library's own processes
			}
			matched := false
			for n, re := range nodes {
				if re.MatchString(id) {
					seen[n], matched = true, true
				}
			}
			if !matched {
				unknown = append(unknown, id)
			}
		}
		if len(unknown) > 0 {
			t.Fatalf("running actors not in the tree of actors/doc.go: %v (tree: %v)", unknown, keys(nodes))
		}
		return len(seen) == len(nodes)
	}, func() string {
		var missing []string
		for n := range nodes {
			if !seen[n] {
				missing = append(missing, n)
			}
		}
		return fmt.Sprintf("nodes with no running actor: %v", missing)
	})
	cancel()
	<-waitDone
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// ORCR_DISABLE_DISCOVERY=1 in the server's environment: no discovery actor runs
// (docs/lifecycle.md §13.5), while the rest of the tree is up.
func TestDiscoveryCanBeDisabled(t *testing.T) {
	t.Parallel()
	has := func(srv *sockettest.Server) (discovery, gc bool) {
		for _, id := range srv.ActorIDs() {
			discovery = discovery || id == "discovery"
			gc = gc || id == "gc"
		}
		return
	}
	off := sockettest.NewServer(t, sockettest.WithHerdr(t), sockettest.WithEnv("ORCR_DISABLE_DISCOVERY", "1"))
	if d, gc := has(off); d || !gc {
		t.Errorf("with ORCR_DISABLE_DISCOVERY=1: discovery running %v, gc running %v", d, gc)
	}
	on := sockettest.NewServer(t, sockettest.WithHerdr(t))
	if d, _ := has(on); !d {
		t.Error("discovery is not running by default")
	}
}
