package actors

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/orcr-go/orcr/config"
	"github.com/orcr-go/orcr/store"
)

// retentionBatches bounds the batches one gc tick forgets (RetentionBatch rows each), so
// a backlog — a store that had no retention before — drains over a few ticks while the
// tick itself stays short.
const retentionBatches = 10

// keptInDataDir is the entry of an agent's data folder retention never removes: the
// agent's git worktree (docs/lifecycle.md §8.4), which a kept worktree leaves on disk
// and a later agent may be running in.
const keptInDataDir = "worktree"

// forgetEnded is the gc tick's retention step (docs/lifecycle.md §12.4): while ended
// agents are past r's limits, it forgets them through the store actor, at most
// store.RetentionBatch per transaction, and after each commit removes their data
// folders (never before: a folder goes only once its row is gone). Edge code: it runs
// on the gc's sweep goroutine and waits for the store actor.
func forgetEnded(env *AgentEnv, root *actor.RootContext, r config.Retention) {
	if r.EndedFor <= 0 && r.EndedMax <= 0 {
		return
	}
	total := 0
	for range retentionBatches {
		cutoff, ok, err := env.DB.RetentionCutoff(contextBG, time.Now().UnixMilli(), r.EndedFor.Milliseconds(), r.EndedMax)
		if err != nil {
			env.Log.Warn("gc: cannot read the retention cutoff", "err", err)
			return
		}
		if !ok {
			return
		}
		v, err := WriteSync(root, env.Store, func(tx *store.Tx) (any, error) {
			return tx.ForgetEnded(cutoff, store.RetentionBatch)
		})
		if err != nil {
			env.Log.Warn("gc: cannot forget ended agents", "err", err)
			return
		}
		gone, _ := v.([]store.Forgotten)
		for _, f := range gone {
			removeDataDir(env, f)
		}
		total += len(gone)
		if len(gone) < store.RetentionBatch {
			break
		}
	}
	if total > 0 {
		env.Log.Info("gc: ended agents forgotten", "count", total)
	}
}

// removeDataDir removes the data folder of a forgotten agent, all but its worktree;
// the folder itself goes once nothing is left in it. The folders of its path stay.
func removeDataDir(env *AgentEnv, f store.Forgotten) {
	if env.Home == "" || f.UUID == "" {
		return
	}
	dir := AgentDataDir(env.Home, f.Path, f.UUID)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		env.Log.Warn("gc: cannot read a forgotten agent's data folder", "agent", f.UUID, "dir", dir, "err", err)
		return
	}
	kept := false
	for _, e := range entries {
		if e.Name() == keptInDataDir {
			kept = true
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			env.Log.Warn("gc: cannot remove a forgotten agent's data", "agent", f.UUID, "dir", dir, "err", err)
			return
		}
	}
	if !kept {
		if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			env.Log.Warn("gc: cannot remove a forgotten agent's data folder", "agent", f.UUID, "dir", dir, "err", err)
		}
	}
}
