package socketapi

import (
	"context"
	"github.com/orcr-go/orcr/socketapi/api"
	"iter"
	"time"
)

// DefaultFollowInterval is how often [Client.FollowLogs] polls when
// Client.FollowInterval is 0.
const DefaultFollowInterval = 500 * time.Millisecond

// FollowLogs yields an agent's transcript entries as they appear, like `orcr agent logs
// --follow`: first the entries already there (the last *req.Tail of them when Tail is
// set), then new ones, polling agent.logs every FollowInterval. A transcript that is not
// readable yet (transcript_unavailable) counts as no entries. Once the agent has ended,
// one last poll drains what is left and the iteration ends. Any other error is yielded
// once, last; ctx ending ends the iteration without an error. A server that goes away
// does not end it: the next poll goes on, from the entries already yielded, with the
// server that answers again ([Client.Reconnect]). LastResponse and Follow of req are
// ignored.
func (c *Client) FollowLogs(ctx context.Context, req api.LogsRequest) iter.Seq2[api.LogEntry, error] {
	return func(yield func(api.LogEntry, error) bool) {
		every := c.FollowInterval
		if every <= 0 {
			every = DefaultFollowInterval
		}
		tail := req.Tail
		req.Tail, req.LastResponse, req.Follow = nil, false, false
		seen := 0
		uuid := ""
		// failed yields err unless it is the server going away and one answers again
		// (the next poll goes on from seen); it returns whether to go on.
		failed := func(err error) bool {
			if ServerGone(err) && ctx.Err() == nil {
				if err = c.Reconnect(ctx, api.AgentLogs.Name, err); err == nil {
					return true
				}
			}
			if ctx.Err() == nil {
				yield(api.LogEntry{}, err)
			}
			return false
		}
		// poll yields the entries past seen; it returns whether to go on.
		poll := func(first bool) (ended, ok bool) {
			res, err := c.Logs(ctx, req)
			switch {
			case api.IsCode(err, api.CodeTranscriptUnavailable):
				if e, _ := err.(*api.Error); e != nil && uuid == "" {
					uuid, _ = e.Details["uuid"].(string)
				}
			case err != nil:
				return false, failed(err)
			default:
				uuid = res.UUID
				fresh := res.Entries[min(seen, len(res.Entries)):]
				if first && tail != nil && *tail >= 0 && *tail < len(fresh) {
					fresh = fresh[len(fresh)-*tail:]
				}
				seen = max(seen, len(res.Entries))
				for _, e := range fresh {
					if !yield(e, nil) {
						return false, false
					}
				}
				if res.Resolved == "latest_ended" {
					return true, true
				}
			}
			if uuid != "" && req.Target != uuid {
				req.Target = uuid // later polls follow this agent even if the path is reused
			}
			if uuid == "" {
				return false, true
			}
			ls, err := c.Ls(ctx, api.LsRequest{Pattern: uuid, All: true})
			if err != nil {
				return false, failed(err)
			}
			return len(ls.Agents) == 1 && ls.Agents[0].Status == api.StatusEnded, true
		}
		ended, ok := poll(true)
		t := time.NewTicker(every)
		defer t.Stop()
		for ok && !ended {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			ended, ok = poll(false)
		}
		if ok {
			poll(false) // the final drain: entries written just before the end
		}
	}
}
