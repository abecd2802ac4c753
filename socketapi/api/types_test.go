package api_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/orcr-go/orcr/socketapi/api"
)

// An ask carries every one of its params into the run it stands for and back: a field
// added to AskRequest (as the worktree ones were) that Run or Ask forgets fails here.
func TestAskRequestRunRoundTrip(t *testing.T) {
	var ask api.AskRequest
	v := reflect.ValueOf(&ask).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(v.Type().Field(i).Name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Struct: // Caller
			for j := range f.NumField() {
				f.Field(j).SetString(f.Type().Field(j).Name)
			}
		default:
			t.Fatalf("AskRequest.%s: kind %v not covered", v.Type().Field(i).Name, f.Kind())
		}
	}
	ask.Resume = "" // not a creation param: the run of an ask never carries it
	run := ask.Run()
	if run.GC != "immediate" {
		t.Errorf("ask.Run().GC: got %q, want immediate", run.GC)
	}
	if diff := cmp.Diff(ask, run.Ask()); diff != "" {
		t.Errorf("ask.Run().Ask() (-want +got):\n%s", diff)
	}
}
