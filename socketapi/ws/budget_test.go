package ws_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/api/wire"
	"github.com/orcr-go/orcr/socketapi/remote"
)

// A budget pause over the stream and the dashboard (docs/remote.md §7.1, docs/dashboard.md
// §5): the turn that reaches the limit logs budget/exceeded with a pause id; a wrong id
// is stale_call and a deny unsupported, both changing nothing; a wake sent meanwhile
// waits; approve with the id resumes the agent (budget/resumed, the limit what was spent
// plus the budget's limit) and the wake is delivered; the old id is then stale. The
// dashboard's extend action is budget.extend: state_conflict on an agent not paused,
// and it lifts the next pause.
func TestBudgetPauseApprovedOverTheStreamAndTheDashboard(t *testing.T) {
	t.Parallel()
	r := newRig(t, "", `, "budgets": {"cap": {"path": "bstream/**", "limit": "100"}}`)
	agent, c, from := r.idleLive("bstream/a")
	ctx := ctxT(t, 120*time.Second)
	c.Inject(ctx, "say=over tokens=150,0", true)
	es := events(t, c, from, 60*time.Second, isType("budget/exceeded"))
	p := payloadOf(t, es[len(es)-1])
	pauseID, _ := p["pause_id"].(string)
	if pauseID == "" || p["budget"] != "cap" || p["spent"] != 150.0 || p["limit"] != 100.0 || p["unit"] != "tokens" {
		t.Fatalf("budget/exceeded %v", p)
	}
	c.Approve(ctx, "budget-1", "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.StaleCall {
		t.Errorf("approve of another pause id: %+v", ef)
	}
	c.Deny(ctx, pauseID, "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.Unsupported {
		t.Errorf("deny of a budget pause: %+v", ef)
	}

	c, from = r.liveOn(agent)
	c.Inject(ctx, "say=queued tokens=1,0", true)
	c.Approve(ctx, pauseID, "")
	es = events(t, c, from, 60*time.Second, isType("assistant/message"))
	var resumed map[string]any
	for _, e := range es {
		if e.Type == "budget/resumed" {
			resumed = payloadOf(t, e)
		}
		if e.Type == "turn/start" && payloadOf(t, e)["source"] != "remote" {
			t.Errorf("the queued inject's turn/start %v, want source remote (its sender's)", payloadOf(t, e))
		}
		if e.Type == "user/message" && resumed == nil {
			t.Fatalf("the queued wake was delivered before the pause was lifted: %s", describe(es))
		}
	}
	if resumed == nil || resumed["pause_id"] != pauseID || resumed["limit"] != 250.0 {
		t.Fatalf("budget/resumed %v in %s", resumed, describe(es))
	}
	if text, _ := payloadOf(t, es[len(es)-1])["text"].(string); !strings.HasPrefix(text, "queued") {
		t.Errorf("the delivered turn answered %q, want the queued wake's", text)
	}
	c.Approve(ctx, pauseID, "")
	if ef := errorFrame(t, c, 10*time.Second); ef.Code != remote.StaleCall {
		t.Errorf("approve of a lifted pause: %+v", ef)
	}

	cookie := r.signIn()
	if st, _, _, e := r.action("extend", cookie, `{"target":"`+agent+`","by":"1k"}`); st != http.StatusConflict ||
		e == nil || e.Code != wire.StateConflict {
		t.Errorf("extend through an agent not paused: %d %+v", st, e)
	}
	if st, _, _, e := r.action("extend", cookie, `{"target":"cap","by":"1usd"}`); st != http.StatusBadRequest ||
		e == nil || e.Reason() != wire.ReasonInvalidBudget {
		t.Errorf("extend a token budget in usd: %d %+v", st, e)
	}
	c, from = r.liveOn(agent)
	c.Inject(ctx, "say=again tokens=200,0", true)
	events(t, c, from, 60*time.Second, isType("budget/exceeded"))
	// A send through the socket while paused waits in the inbox too, and its turn is
	// logged with its sender's source when the extension delivers it (orcr, not remote).
	if sent, err := r.c.Send(ctx, api.SendRequest{Target: agent, Prompt: "say=socket tokens=1,0"}); err != nil ||
		sent.Queued != api.QueuedBudget {
		t.Fatalf("send while paused: %+v %v, want queued on the budget", sent, err)
	}
	c, from = r.liveOn(agent)
	st, ok, res, e := r.action("extend", cookie, `{"target":"`+agent+`","by":"1k"}`)
	if got, _ := res["resumed"].([]any); st != http.StatusOK || !ok || len(got) != 1 || got[0] != "bstream/a" {
		t.Fatalf("extend from the dashboard: %d %v %v %+v", st, ok, res, e)
	}
	es = events(t, c, from, 60*time.Second, isType("assistant/message"))
	var starts []any
	for _, e := range es {
		if e.Type == "turn/start" {
			starts = append(starts, payloadOf(t, e)["source"])
		}
	}
	if len(starts) != 1 || starts[0] != "orcr" {
		t.Errorf("turn/start sources %v after the extension, want [orcr] (the socket send's): %s", starts, describe(es))
	}
}
