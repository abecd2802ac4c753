package herdr

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// sessionListMax is how long [sessionCache] reuses a session list while the directory
// of named sessions stays as it was (docs/herdr.md §11).
const sessionListMax = 30 * time.Second

// sessionCache is the session list of a poller that asks every few seconds (discovery,
// every 3 s): listing sessions has no socket method, and `herdr session list` is a
// process started each time — at rest it was most of what orcr made the machine do.
// herdr lists the default session and every directory under <config>/sessions, each
// running when its socket accepts a connection (docs/herdr.md §1.2, §1.4). So the list
// is taken again only when the entries of that directory changed (a session made or
// removed), or after sessionListMax; in between each row's socket is connected to
// again, which is what running means.
type sessionCache struct {
	list func(context.Context) ([]SessionInfo, error)
	now  func() time.Time

	mu    sync.Mutex
	rows  []SessionInfo
	at    time.Time
	dir   string // the directory of named sessions, "" when the rows do not say
	stamp string // its entries' names when rows were listed ("" when absent or empty)
}

// sessions returns the list, taken again or reused as the type says.
func (c *sessionCache) sessions(ctx context.Context) ([]SessionInfo, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.rows != nil && c.dir != "" && now.Sub(c.at) < sessionListMax && dirStamp(c.dir) == c.stamp {
		rows := slices.Clone(c.rows)
		for i := range rows {
			rows[i].Running = socketAnswers(rows[i].SocketPath)
		}
		return rows, nil
	}
	rows, err := c.list(ctx)
	if err != nil {
		c.rows = nil
		return nil, err
	}
	c.rows, c.at, c.dir = slices.Clone(rows), now, sessionsDir(rows)
	if c.dir != "" {
		c.stamp = dirStamp(c.dir)
	}
	return rows, nil
}

// sessionsDir is the directory that holds the named sessions of rows: a named row's
// session dir's parent, else the default row's dir + "/sessions"; "" when neither is
// there.
func sessionsDir(rows []SessionInfo) string {
	for _, r := range rows {
		if !r.Default && r.SessionDir != "" {
			return filepath.Dir(r.SessionDir)
		}
	}
	for _, r := range rows {
		if r.Default && r.SessionDir != "" {
			return filepath.Join(r.SessionDir, "sessions")
		}
	}
	return ""
}

// dirStamp is the names of dir's entries, in order, "" when it cannot be read (absent):
// a directory's modification time may be too coarse to tell two changes apart.
func dirStamp(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range ents {
		b.WriteString(e.Name())
		b.WriteByte(0)
	}
	return b.String()
}

// socketAnswers reports whether the unix socket at path accepts a connection.
func socketAnswers(path string) bool {
	if path == "" {
		return false
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
