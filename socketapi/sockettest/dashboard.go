package sockettest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
)

// DashboardCookie signs a browser in to the dashboard of the server c talks to
// (docs/dashboard.md §2): it issues a sign-in link with dashboard.login, redeems it and
// returns the session cookie the server set.
func DashboardCookie(t testing.TB, c *socketapi.Client) *http.Cookie {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.DashboardLogin(ctx, api.DashboardLoginRequest{})
	if err != nil || res.URL == nil {
		t.Fatalf("dashboard.login: %+v %v", res, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *res.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatalf("redeem the sign-in link: %v", err)
	}
	resp.Body.Close()
	cs := resp.Cookies()
	if resp.StatusCode != http.StatusOK || len(cs) != 1 {
		t.Fatalf("redeem the sign-in link: %d, cookies %v", resp.StatusCode, cs)
	}
	return cs[0]
}
