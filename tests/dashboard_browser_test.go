package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/tests/poll"
)

// chromium finds the browser of the dashboard test: $ORCR_TEST_CHROMIUM, else chromium
// (Debian's package; .ci/run installs it) on PATH. Under CI=1 a missing browser fails
// the test; elsewhere it is a logged skip.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ORCR_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "1" {
		t.Fatal("no chromium on PATH (apt-get install chromium); CI=1 requires the browser test")
	}
	t.Skip("no chromium on PATH (apt-get install chromium, or set ORCR_TEST_CHROMIUM): the browser test is skipped")
	return ""
}

// artifacts is where the browser test writes its screenshots:
// $ORCR_TEST_ARTIFACTS/<test name> when that is set (kept), else a temporary
// directory removed with the test. The directory is logged.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if base := os.Getenv("ORCR_TEST_ARTIFACTS"); base != "" {
		dir = filepath.Join(base, t.Name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// browserCtx is a headless chromium at browser, 1280×900, for 120 s; it ends with the
// test.
func browserCtx(t *testing.T, browser string) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-gpu", true))...)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	ctx, cancel := context.WithTimeout(bctx, 120*time.Second)
	t.Cleanup(func() { cancel(); cancelBrowser(); cancelAlloc() })
	return ctx
}

// dashboardLink is the sign-in link `orcr dashboard --json` gives on h.
func dashboardLink(t *testing.T, h *home) string {
	t.Helper()
	ok, res, _ := h.jsonRun(t, "dashboard.login", 0, "dashboard")
	link, _ := res["url"].(string)
	if !ok || !strings.Contains(link, "/?token=") {
		t.Fatalf("orcr dashboard: %v", res)
	}
	return link
}

// The other members of the fleet on a hub's dashboard (docs/dashboard.md §6.1): the
// member web's agent under "Other hosts" as web:<path> with its status; web's server
// stopped, the page marks it unreachable with its last-seen age and keeps the agent it
// last read.
func TestDashboardBrowserFleet(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	hub, web, _, _ := fleetPairMock(t, `"remote": {"listen": "127.0.0.1:0"}, `)
	setDebugAgent(t, web, "0190a000-0000-7000-8000-0000000000d1", "webwork/two", "working")
	if r := web.run("agent", "run", "-a", "mock", "--path", "webwork/mock", "-p", "say=from-web"); r.exit != 0 {
		t.Fatalf("a mock on web: %+v", r)
	}
	if r := web.run("agent", "wait", "webwork/mock", "--timeout", "30s"); r.exit != 0 {
		t.Fatalf("web's mock's turn: %+v", r)
	}
	link := dashboardLink(t, hub)
	ctx := browserCtx(t, browser)
	host := `#hosts li[data-host="web"]`
	agent := host + ` li[data-path="web:webwork/two"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(host+`[data-reachable="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(agent))); err != nil {
		t.Fatalf("web's agent under Other hosts: %v", err)
	}
	line, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(agent)))
	if err != nil || !strings.HasPrefix(line, "web:webwork/two") || !strings.Contains(line, "working") {
		t.Errorf("web's agent line %q (%v), want web:webwork/two … working", line, err)
	}
	// Send and Kill on web's agent go over the fleet: web's default policy refuses both,
	// and the page shows the member's refusal.
	toastSays := func(what, prefix string) {
		t.Helper()
		var text string
		poll.Eventually(t, 30*time.Second, what, func() bool {
			text, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#toast`)))
			return strings.HasPrefix(text, prefix)
		}, func() string { return "the toast says " + text })
	}
	// Log reads an agent over the fleet (a read verb: web's default policy allows it):
	// the last entries, then the screen.
	mockRow := host + ` li[data-path="web:webwork/mock"]`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(mockRow)), chromedp.Click(chromedp.CSS(mockRow+` button[data-act="log"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#host-log`))); err != nil {
		t.Fatalf("log of web:webwork/mock from the page: %v", err)
	}
	panelSays := func(what, wantOf, wantText string) {
		t.Helper()
		var of, text string
		poll.Eventually(t, 30*time.Second, what, func() bool {
			of, _ = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#host-log-of`)))
			text, _ = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#host-log-text`)))
			return of == wantOf && strings.Contains(text, wantText)
		}, func() string {
			toast, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#toast`)))
			return fmt.Sprintf("the panel says %q: %q; the toast %q", of, text, toast)
		})
	}
	panelSays("web:webwork/mock's log on the page", "Log of web:webwork/mock", "user: say=from-web\n\nassistant: from-web")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#host-log-screen`))); err != nil {
		t.Fatal(err)
	}
	panelSays("web:webwork/mock's screen on the page", "Screen of web:webwork/mock", "from-web")
	kill := agent + ` button[data-act="kill"]`
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(kill)), chromedp.WaitVisible(chromedp.CSS(kill+`.armed`)),
		chromedp.Click(chromedp.CSS(kill))); err != nil {
		t.Fatalf("kill web:webwork/two from the page: %v", err)
	}
	toastSays("the kill's refusal", "kill: invalid_request (fleet_not_allowed): ")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(agent+` button[data-act="send"]`)), chromedp.WaitVisible(chromedp.CSS(`#host-send`)),
		chromedp.SendKeys(chromedp.CSS(`#host-prompt`), "from the hub's page"), chromedp.Click(chromedp.CSS(`#host-send-btn`))); err != nil {
		t.Fatalf("send to web:webwork/two from the page: %v", err)
	}
	toastSays("the send's refusal", "send: invalid_request (fleet_not_allowed): ")
	if to, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#host-send-to`))); err != nil || to != "Send to web:webwork/two" {
		t.Errorf("the send form's target %q (%v)", to, err)
	}
	if r := web.run("server", "stop"); r.exit != 0 {
		t.Fatalf("web's server stop: %+v", r)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(host+`[data-reachable="false"]`))); err != nil {
		t.Fatalf("web unreachable after its stop: %v", err)
	}
	state, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(host+` .host-state`)))
	if err != nil || !regexp.MustCompile(`^unreachable · seen \d+[smhd] ago$`).MatchString(state) {
		t.Errorf("web's state %q (%v), want unreachable · seen <age> ago", state, err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(agent))); err != nil {
		t.Errorf("the agent last read of web is gone: %v", err)
	}
}

// On a member's dashboard whose hub stops (docs/dashboard.md §6.1): the fleet itself no
// longer answers, so the page says so under Other hosts — `fleet: <code> (<cause>):
// <message>` — and keeps the host it had.
func TestDashboardBrowserFleetItselfUnreachable(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	hub, web, _, _ := fleetPairKeys(t, "", `"remote": {"listen": "127.0.0.1:0"}, `)
	link := dashboardLink(t, web)
	ctx := browserCtx(t, browser)
	host := `#hosts li[data-host="hub"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(host+`[data-reachable="true"]`))); err != nil {
		t.Fatalf("the hub under Other hosts: %v", err)
	}
	if r := hub.run("server", "stop"); r.exit != 0 {
		t.Fatalf("hub's server stop: %+v", r)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#hosts-error`))); err != nil {
		t.Fatalf("the fleet's own error after the hub's stop: %v", err)
	}
	line, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#hosts-error`)))
	if err != nil || !strings.HasPrefix(line, "fleet: environment_error (fleet_unreachable): ") {
		t.Errorf("the fleet's line %q (%v), want fleet: environment_error (fleet_unreachable): <message>", line, err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(host))); err != nil {
		t.Errorf("the host the page had is gone: %v", err)
	}
}

// The web dashboard in a real browser (docs/dashboard.md): a real server (the CLI's
// auto-start, the herdr stand-in, the mock agent with approvals on), headless chromium
// opens the sign-in link of `orcr dashboard`; the page shows the fleet tree, opens an
// agent's log, approves a parked tool call and sees the turn continue (the row back to
// idle, the tool's result in the log), sends and kills, and shows a protocol error code;
// on a phone-sized viewport too; then signs out, and a reload shows no fleet.
func TestDashboardBrowser(t *testing.T) {
	t.Parallel() // mostly waits (turn windows, TUIs booting): see main_test.go
	// mock-1 is priced so the turn's cost shows: 1,000 input and 2,000 output tokens at
	// $3 and $15 per million are $0.033.
	h, _ := herdrHome(t, `{"remote": {"listen": "127.0.0.1:0", "approvals": true},
		"prices": {"mock-1": {"input": 3, "output": 15}}}`)
	// `orcr dashboard` prints the link alone on stdout.
	r := h.run("dashboard")
	if out := strings.TrimSpace(r.stdout); r.exit != 0 || strings.Contains(out, "\n") ||
		!strings.HasPrefix(out, remoteBase(t, h)+"/?token=") || !strings.Contains(r.stderr, "once") {
		t.Errorf("orcr dashboard: exit %d stdout %q stderr %q", r.exit, r.stdout, r.stderr)
	}
	h.jsonRun(t, "dashboard.login", 1, "dashboard", "--rotate", "--revoke")
	browser := chromium(t)
	shots := artifacts(t)
	for _, args := range [][]string{{"--path", "web/a"}, {"--path", "web/team/b"},
		{"--path", "web/team/c", "-p", "say=hi tokens=1000,2000,0,0,mock-1"}} {
		if ok, _, _ := h.jsonRun(t, "agent.run", 0, append([]string{"agent", "run", "-a", "mock"}, args...)...); !ok {
			t.Fatalf("agent run %v failed", args)
		}
	}
	if r := h.run("agent", "wait", "web/**", "--timeout", "60s"); r.exit != 0 {
		t.Fatalf("agent wait: %d %s %s", r.exit, r.stdout, r.stderr)
	}
	link := dashboardLink(t, h)

	ctx := browserCtx(t, browser)

	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	row := func(path, status string) chromedp.CSS {
		return chromedp.CSS(`#tree li[data-path="` + path + `"][data-status="` + status + `"]`)
	}

	// The fleet tree, live from the feed: both agents at their paths under scope rows.
	step("sign in and see the tree", chromedp.Navigate(link), chromedp.WaitVisible(row("web/a", "idle")),
		chromedp.WaitVisible(row("web/team/b", "idle")))
	if got := text("#tree"); !strings.Contains(got, "web/") || !strings.Contains(got, "team/") {
		t.Errorf("tree text %q lacks its scope rows", got)
	}
	// The cost of c's turn on its row, on both scope rows above it and in the fleet's
	// summary; b has reported nothing.
	for sel, want := range map[string]string{
		`#tree li[data-path="web/team/c"] .cost`: "$0.03", `#tree li[data-scope="web/team"] .cost`: "$0.03",
		`#tree li[data-scope="web"] .cost`: "$0.03", `#tree li[data-path="web/team/b"] .cost`: "",
	} {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+sel+`').textContent`))
		if err != nil || got != want {
			t.Errorf("cost %s: %q (%v), want %q", sel, got, err, want)
		}
	}
	if got := text("#summary"); !strings.HasSuffix(got, " · $0.03") {
		t.Errorf("summary %q lacks the fleet's cost", got)
	}
	// The quota windows (docs/dashboard.md §6): codex's 5h at quota.pause_at pauses codex,
	// and provider.paused on the feed makes the page read them; the 7d's reset is past.
	qc := &socketapi.Client{Socket: filepath.Join(h.dir, "orcr.sock")}
	if _, err := qc.QuotaRecord(context.Background(), api.QuotaRecordRequest{Provider: "codex", Windows: []api.QuotaWindow{
		{Window: "primary", UsedPercent: 96, WindowMinutes: 300, ResetsAt: time.Now().Add(72*time.Minute + 30*time.Second).UnixMilli()},
		{Window: "secondary", UsedPercent: 50, WindowMinutes: 10080, ResetsAt: time.Now().Add(-time.Minute).UnixMilli()},
	}}); err != nil {
		t.Fatalf("quota.record: %v", err)
	}
	step("see the quota windows", chromedp.WaitVisible(chromedp.CSS(
		`#quota li[data-provider="codex"] .window[data-window="primary"][data-state="paused"]`)))
	if got := text(`#quota li[data-provider="codex"]`); !regexp.MustCompile(`^codex\s*5h 96% paused \(1h1[23]m\)\s*7d reset$`).MatchString(got) {
		t.Errorf("quota %q, want codex 5h 96%% paused (1h12m) 7d reset", got)
	}
	shot("01-fleet")

	// The agent's log, then a prompt whose tool call parks on an approval.
	step("open the log", chromedp.Click(chromedp.CSS(`#tree li[data-path="web/a"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="session/created"]`)))
	step("send a tool turn", chromedp.SetValue(chromedp.CSS("#prompt"), "tool=Bash say=ran"),
		chromedp.Click(chromedp.CSS("#send-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#approvals button[data-verdict="approve"]`)),
		chromedp.WaitVisible(row("web/a", "blocked")))
	if got := text("#approvals"); !strings.Contains(got, "Bash") {
		t.Errorf("the approval box %q does not name the tool", got)
	}
	shot("02-approval")

	// Approve: the turn goes on; the row returns to idle and the log shows the result.
	step("approve", chromedp.Click(chromedp.CSS(`#approvals button[data-verdict="approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="approval/resolved"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="tool/result"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="assistant/message"]`)),
		chromedp.WaitVisible(row("web/a", "idle")),
		chromedp.WaitNotPresent(chromedp.CSS(`#approvals .approval`)))
	if got := text(`#log li[data-type="tool/result"]`); !strings.Contains(got, "ok") {
		t.Errorf("tool/result reads %q", got)
	}
	if got := text(`#log li[data-type="approval/resolved"]`); !strings.Contains(got, "approved") {
		t.Errorf("approval/resolved reads %q", got)
	}
	shot("03-approved")

	// A phone: the agent view fills the screen, the buttons are touch-sized, and the
	// back button returns to the tree.
	step("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile,
		chromedp.EmulateTouch), chromedp.WaitVisible(chromedp.CSS("#back")))
	small, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#send-btn, #kill, #back, #signout')]
		.filter(b => b.getBoundingClientRect().height < 48 || b.getBoundingClientRect().width < 48).map(b => b.id)`))
	if err != nil || len(small) != 0 {
		t.Errorf("buttons under 48px on a phone: %v %v", small, err)
	}
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.getElementById('fleet')).display === 'none'`)); err != nil || !hidden {
		t.Errorf("on a phone the tree should give way to the open agent: %v %v", hidden, err)
	}
	shot("04-phone-agent")
	step("back to the tree", chromedp.Click(chromedp.CSS("#back")), chromedp.WaitVisible(row("web/team/b", "idle")))
	shot("05-phone-fleet")

	// Send from the page, then kill (the button asks twice): the row leaves the tree
	// and the log ends.
	step("send", chromedp.Click(chromedp.CSS(`#tree li[data-path="web/team/b"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="session/created"]`)),
		chromedp.SetValue(chromedp.CSS("#prompt"), "say=phone_hello"),
		chromedp.Click(chromedp.CSS("#send-btn")),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="assistant/message"]`)))
	if got := text(`#log li[data-type="assistant/message"]`); !strings.Contains(got, "phone_hello") {
		t.Errorf("the response reads %q", got)
	}
	step("kill", chromedp.Click(chromedp.CSS("#kill")), chromedp.WaitVisible(chromedp.CSS("#kill.armed")),
		chromedp.Click(chromedp.CSS("#kill")),
		chromedp.WaitVisible(chromedp.CSS(`#log li[data-type="session/ended"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#tree li[data-path="web/team/b"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#agent[data-status="ended"]`)))
	shot("06-phone-killed")

	// A refused action shows its protocol error code: a send to the ended agent.
	step("send to the ended agent", chromedp.SetValue(chromedp.CSS("#prompt"), "say=too late"),
		chromedp.Click(chromedp.CSS("#send-btn")), chromedp.WaitVisible(chromedp.CSS(`#toast[data-kind="error"]`)))
	codes := regexp.MustCompile(`\b(not_found|invalid_request|state_conflict|blocked|timeout|integration_missing|transcript_unavailable|environment_error|server_error)\b`)
	if got := text("#toast"); !codes.MatchString(got) {
		t.Errorf("the error toast %q shows none of the nine codes", got)
	}
	shot("07-phone-error")

	// Sign out: the page says so and how to sign in again, and a reload shows the
	// server's signed-out page, not the fleet (the cookie is gone and the session dead).
	step("sign out", chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#signed-out")),
		chromedp.WaitNotVisible(chromedp.CSS("#layout")),
		chromedp.Poll[chromedp.Void](`document.getElementById('signed-out-why').textContent.includes('This browser is signed out')`))
	if got := text("#signed-out"); !strings.Contains(got, "orcr dashboard") {
		t.Errorf("the signed-out notice %q does not say how to sign in again", got)
	}
	shot("08-signed-out")
	// The 401 page is the server's, complete when loaded: nothing to wait for.
	step("reload", chromedp.Reload())
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.className + ': ' + document.body.innerText`)); err != nil ||
		!strings.HasPrefix(got, "notice: Not signed in") || !strings.Contains(got, "orcr dashboard") {
		t.Errorf("the page after a reload reads %q (%v), want the server's signed-out page", got, err)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#tree, #tree li').length`)); err != nil || n != 0 {
		t.Errorf("the reloaded page shows the fleet (%d elements): %v", n, err)
	}
	shot("09-reloaded")
}
