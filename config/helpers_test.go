package config_test

import (
	"testing"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/socketapi/api/wire"
)

// env returns a getenv over m (nothing else is visible).
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// noEnv is a getenv with every variable unset.
func noEnv(string) string { return "" }

// parse runs config.Parse over src with env vars m.
func parse(t testing.TB, src string, m map[string]string) (*config.Config, []string, error) {
	t.Helper()
	return config.Parse([]byte(src), env(m))
}

// checkEnvErr fails t unless err is environment_error with the given cause and, when
// msg is not empty, exactly that message.
func checkEnvErr(t testing.TB, what string, err error, cause, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got nil error, want environment_error %s %q", what, cause, msg)
	}
	pe, ok := wire.As(err)
	if !ok {
		t.Fatalf("%s: got %T %v, want *wire.Error", what, err, err)
	}
	if pe.Code != wire.EnvironmentError || pe.Cause() != cause {
		t.Errorf("%s: got code %s cause %q, want environment_error cause %q (%v)", what, pe.Code, pe.Cause(), cause, err)
	}
	if msg != "" && pe.Message != msg {
		t.Errorf("%s: got message\n\t%q\nwant\n\t%q", what, pe.Message, msg)
	}
}
