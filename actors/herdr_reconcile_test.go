package actors

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/herdr"
	"github.com/orcr-go/orcr/store"
)

// The rule of one reconciliation pass (docs/lifecycle.md §13.2, Q4), row by row.
func TestPlanReconcile(t *testing.T) {
	row := func(uuid string, st store.Status, terminal string, move store.MoveState, turnOpen bool) store.ReconRow {
		return store.ReconRow{UUID: uuid, Path: "p/" + uuid, Status: st, TerminalID: terminal, MoveState: move, TurnOpen: turnOpen}
	}
	pane := func(terminal string, st herdr.Status, marked bool) reconPane {
		return reconPane{Terminal: terminal, Pane: "w1:" + terminal, Status: st, Marked: marked}
	}
	none := store.MoveNone
	tests := []struct {
		name  string
		rows  []store.ReconRow
		panes []reconPane
		want  []reconAct
		drift Drift
	}{
		{"every running row present: nothing", []store.ReconRow{
			row("a", store.StatusWorking, "t1", none, true), row("b", store.StatusIdle, "t2", none, false),
			row("c", store.StatusBlocked, "t3", none, true), row("d", store.StatusParked, "t4", none, false)},
			[]reconPane{pane("t1", herdr.StatusWorking, true), pane("t2", herdr.StatusIdle, true),
				pane("t3", herdr.StatusBlocked, true), pane("t4", herdr.StatusIdle, true)}, nil, Drift{}},
		{"running rows whose terminal is gone are lost", []store.ReconRow{
			row("a", store.StatusWorking, "t1", none, true), row("b", store.StatusIdle, "t2", none, false),
			row("c", store.StatusBlocked, "t3", none, true), row("d", store.StatusParked, "t4", none, false)},
			nil, []reconAct{
				{UUID: "a", Path: "p/a", Terminal: "t1", Action: reconLost}, {UUID: "b", Path: "p/b", Terminal: "t2", Action: reconLost},
				{UUID: "c", Path: "p/c", Terminal: "t3", Action: reconLost}, {UUID: "d", Path: "p/d", Terminal: "t4", Action: reconLost}},
			Drift{Lost: 4}},
		{"a running row with no terminal recorded is lost", []store.ReconRow{row("a", store.StatusIdle, "", none, false)},
			[]reconPane{pane("t9", herdr.StatusIdle, false)},
			[]reconAct{{UUID: "a", Path: "p/a", Action: reconLost}}, Drift{Lost: 1, UnmarkedPanes: 1}},
		{"starting rows belong to their spawn", []store.ReconRow{row("a", store.StatusStarting, "t1", none, false),
			row("b", store.StatusStarting, "", none, false)}, nil, nil, Drift{}},
		{"a move in flight belongs to the move", []store.ReconRow{row("a", store.StatusIdle, "t1", store.MoveParking, false),
			row("b", store.StatusParked, "t2", store.MoveUnparking, false)}, nil, nil, Drift{}},
		{"lost and still gone: ended", []store.ReconRow{row("a", store.StatusLost, "t1", none, true),
			row("b", store.StatusLost, "", none, false)}, nil,
			[]reconAct{{UUID: "a", Path: "p/a", Terminal: "t1", Action: reconEndLost}, {UUID: "b", Path: "p/b", Action: reconEndLost}},
			Drift{Lost: 2}},
		{"lost and visible again: revived by herdr's status and the open turn", []store.ReconRow{
			row("a", store.StatusLost, "t1", none, true), row("b", store.StatusLost, "t2", none, false),
			row("c", store.StatusLost, "t3", none, true), row("d", store.StatusLost, "t4", none, false),
			row("e", store.StatusLost, "t5", none, false)},
			[]reconPane{pane("t1", herdr.StatusIdle, true), pane("t2", herdr.StatusIdle, true),
				pane("t3", herdr.StatusBlocked, true), pane("t4", herdr.StatusWorking, true), pane("t5", herdr.StatusBlocked, true)},
			[]reconAct{
				{UUID: "a", Path: "p/a", Terminal: "t1", Action: reconRevive, To: store.StatusWorking},
				{UUID: "b", Path: "p/b", Terminal: "t2", Action: reconRevive, To: store.StatusIdle},
				{UUID: "c", Path: "p/c", Terminal: "t3", Action: reconRevive, To: store.StatusBlocked},
				// herdr working with no open turn: idle now; the monitor's next report opens
				// the external turn (M14) through the ordinary rules.
				{UUID: "d", Path: "p/d", Terminal: "t4", Action: reconRevive, To: store.StatusIdle},
				{UUID: "e", Path: "p/e", Terminal: "t5", Action: reconRevive, To: store.StatusBlocked}},
			Drift{}},
		{"panes no row claims are drift, marked or not", []store.ReconRow{row("a", store.StatusIdle, "t1", none, false)},
			[]reconPane{pane("t1", herdr.StatusIdle, true), pane("t2", herdr.StatusIdle, true), pane("t3", herdr.StatusUnknown, false),
				pane("t4", herdr.StatusWorking, true)},
			nil, Drift{UnknownMarkedPanes: 2, UnmarkedPanes: 1}},
		{"root shells left behind are counted apart from plain shells", []store.ReconRow{row("a", store.StatusIdle, "t1", none, false)},
			[]reconPane{pane("t1", herdr.StatusIdle, true), {Terminal: "t2", Pane: "w2:p1", RootShell: true},
				{Terminal: "t3", Pane: "w3:p1", RootShell: true}, pane("t4", herdr.StatusUnknown, false)},
			nil, Drift{RootShellPanes: 2, UnmarkedPanes: 1}},
		{"a starting row's pane is claimed, not drift", []store.ReconRow{row("a", store.StatusStarting, "t1", none, false)},
			[]reconPane{pane("t1", herdr.StatusUnknown, false)}, nil, Drift{}},
		{"a lost row's pane is claimed while it revives", []store.ReconRow{row("a", store.StatusLost, "t1", none, false)},
			[]reconPane{pane("t1", herdr.StatusIdle, true)},
			[]reconAct{{UUID: "a", Path: "p/a", Terminal: "t1", Action: reconRevive, To: store.StatusIdle}}, Drift{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			acts, drift := planReconcile(tc.rows, tc.panes)
			if diff := cmp.Diff(tc.want, acts); diff != "" {
				t.Errorf("acts (-want +got):\n%s", diff)
			}
			if drift != tc.drift {
				t.Errorf("drift: got %+v, want %+v", drift, tc.drift)
			}
		})
	}
}

// A pass's work is proportional to the rows and panes it reads, and a row that changes
// nothing costs nothing after the pass: with every row present, no act at all.
func TestPlanReconcileQuietFleet(t *testing.T) {
	const n = 10000
	rows := make([]store.ReconRow, n)
	panes := make([]reconPane, n)
	for i := range n {
		term := "t" + strconv.Itoa(i)
		rows[i] = store.ReconRow{UUID: "u" + term, Status: store.StatusIdle, TerminalID: term, MoveState: store.MoveNone}
		panes[i] = reconPane{Terminal: term, Status: herdr.StatusIdle, Marked: true}
	}
	if acts, d := planReconcile(rows, panes); len(acts) != 0 || d != (Drift{}) {
		t.Fatalf("quiet fleet: %d acts, drift %+v", len(acts), d)
	}
}
