package store_test

import (
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/orcr-go/orcr/store"
	"github.com/orcr-go/orcr/store/storetest"
	"github.com/orcr-go/orcr/tests/poll"
)

// Many concurrent readers share at most store.MaxReaders connections: the others wait
// for one, so a burst of clients cannot exhaust the process's file descriptors.
func TestReadPoolIsCapped(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t)
	const readers = 3 * store.MaxReaders
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, err := db.Reader().Query(`SELECT 1`)
			if err != nil {
				t.Error(err)
				return
			}
			<-release // hold the connection
			rows.Close()
		}()
	}
	// Every reader either holds a connection or waits for one.
	var st sql.DBStats
	poll.Eventually(t, 10*time.Second, "every reader to hold or wait for a connection", func() bool {
		st = db.Reader().Stats()
		return st.InUse+int(st.WaitCount) >= readers || st.OpenConnections > store.MaxReaders
	}, func() string { return fmt.Sprintf("stats %+v", st) })
	close(release)
	wg.Wait()
	if st.OpenConnections > store.MaxReaders {
		t.Errorf("%d concurrent readers opened %d connections, want at most %d", readers, st.OpenConnections, store.MaxReaders)
	}
	if got := db.Reader().Stats().OpenConnections; got > store.MaxReaders {
		t.Errorf("after the burst: %d open connections, want at most %d", got, store.MaxReaders)
	}
}
