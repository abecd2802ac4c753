package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
)

// A dashboard sign-in token redeems once, and only while it is young enough
// (docs/dashboard.md §2); sessions are read by age.
func TestRedeemToken(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	var issued int64
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		issued = tx.Now()
		_, err := tx.IssueToken(store.DashboardLogins, "h1", false)
		return nil, err
	})
	redeem := func(hash string, notBefore int64) bool {
		return storetest.Write(t, db, func(tx *store.Tx) (any, error) {
			return tx.RedeemToken(store.DashboardLogins, hash, notBefore)
		}).(bool)
	}
	if redeem("h1", issued+1) {
		t.Error("a token older than notBefore redeemed")
	}
	if redeem("nosuch", 0) {
		t.Error("an unknown token redeemed")
	}
	if !redeem("h1", issued) {
		t.Fatal("a live token did not redeem")
	}
	if redeem("h1", 0) {
		t.Error("a token redeemed twice")
	}
	storetest.Write(t, db, func(tx *store.Tx) (any, error) {
		return tx.IssueToken(store.DashboardSessions, "s1", false)
	})
	ctx := context.Background()
	if got, _ := store.LiveTokensSince(ctx, db.Reader(), store.DashboardSessions, 0); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("live sessions: %v", got)
	}
	if got, _ := store.LiveTokensSince(ctx, db.Reader(), store.DashboardSessions, issued+1<<40); len(got) != 0 {
		t.Errorf("sessions younger than the future: %v", got)
	}
	if got, _ := store.LiveTokens(ctx, db.Reader(), store.DashboardLogins); len(got) != 0 {
		t.Errorf("a spent link is still live: %v", got)
	}
}
