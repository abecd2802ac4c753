package herdrtest_test

import (
	"testing"

	"github.com/orcr-go/orcr/herdr/herdrtest"
)

var (
	validateResponse = herdrtest.ValidateResponse
	validateRequest  = herdrtest.ValidateRequest
)

func TestSchemaValidatorRejectsDrift(t *testing.T) {
	good := `{"id":"x","result":{"type":"pong","version":"0.8.0","protocol":20}}`
	if err := validateResponse([]byte(good)); err != nil {
		t.Fatalf("valid pong rejected: %v", err)
	}
	for _, bad := range []string{
		`{"id":"x","result":{"type":"pong","version":"0.8.0"}}`,
		`{"id":1,"result":{"type":"ok"}}`,
		`{"id":"x","result":{"type":"pane_info","pane":{"pane_id":"w1:p1"}}}`,
		`{"id":"x","error":{"code":"pane_not_found"}}`,
		`{"id":"x","result":{"type":"agent_list","agents":[{"terminal_id":"t","agent_status":"busy","workspace_id":"w1","tab_id":"w1:t1","pane_id":"w1:p1","focused":false,"revision":0}]}}`,
	} {
		if err := validateResponse([]byte(bad)); err == nil {
			t.Errorf("drift not detected: %s", bad)
		}
	}
	if err := validateRequest([]byte(`{"id":"a","method":"ping","params":{}}`)); err != nil {
		t.Errorf("valid request rejected: %v", err)
	}
	if err := validateRequest([]byte(`{"id":"a","method":"pane.get","params":{}}`)); err == nil {
		t.Errorf("request without pane_id accepted")
	}
}

// The protocol-22 fixture knows completion_seq's type; the protocol-20 one lets any
// extra field through, so answers of a stand-in playing 22 are checked against 22.
func TestSchemaValidatorProtocol22(t *testing.T) {
	row := func(seq string) []byte {
		return []byte(`{"id":"x","result":{"type":"agent_list","agents":[{"terminal_id":"t","agent_status":"idle","workspace_id":"w1","tab_id":"w1:t1","pane_id":"w1:p1","focused":false,"revision":0,"completion_seq":` + seq + `}]}}`)
	}
	if err := herdrtest.ValidateResponseAt(22, row("3")); err != nil {
		t.Errorf("protocol 22, completion_seq 3: %v", err)
	}
	if err := herdrtest.ValidateResponseAt(22, row(`"3"`)); err == nil {
		t.Error("protocol 22 accepted a string completion_seq")
	}
	if err := herdrtest.ValidateResponseAt(20, row(`"3"`)); err != nil {
		t.Errorf("protocol 20 should not know completion_seq: %v", err)
	}
	if err := herdrtest.ValidateResponseAt(22, []byte(`{"id":"x","result":{"type":"pong","version":"0.9.0","protocol":22}}`)); err != nil {
		t.Errorf("protocol 22 pong: %v", err)
	}
	if err := herdrtest.ValidateResponseAt(21, row("3")); err == nil {
		t.Error("protocol 21 has no fixture, yet validation passed")
	}
}
