// Command loop_until_done is the loop-until-done pattern, a durable handoff: it works the
// first items of a backlog now, then creates a loop whose command is this very program
// (by absolute path: build it, do not `go run` it) and exits. Each run of the loop sees
// from its environment that it is a loop run, works one item, and removes its own loop
// once the backlog is empty. The backlog is drain_backlog.json in the working directory,
// which the runs share. Agents: drain_backlog/item_<x> now, then
// drain_backlog/<run_id>/item_<x>. Provider: $ORCR_RECIPE_AGENT, kept in the backlog.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

const (
	loopName    = "drain_backlog"
	backlogFile = "drain_backlog.json"
	workNow     = 2 // items worked before the handoff
)

type backlog struct {
	Agent string   `json:"agent"`
	Todo  []string `json:"todo"`
	Done  []string `json:"done"`
}

func main() {
	ctx := context.Background()
	c := socketapi.FromEnv()
	var err error
	if c.Lineage().Kind == "loop_run" {
		err = runOnce(ctx, c)
	} else {
		err = handOff(ctx)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// handOff works the first items, then leaves the rest to a loop.
func handOff(ctx context.Context) error {
	b := &backlog{Agent: recipe.Author(), Todo: []string{"item_a", "item_b", "item_c", "item_d", "item_e"}}
	err := recipe.Scoped(ctx, loopName, func(s *socketapi.Client) error {
		for range workNow {
			if err := work(ctx, s, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := save(b); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	// Each run gets 5 minutes, less than the 10 between fires.
	_, err = socketapi.FromEnv().LoopCreate(ctx, api.LoopCreateRequest{
		Name: loopName, Cron: "*/10 * * * *", Timeout: "5m", Command: []string{self}, Cwd: wd,
	})
	if err != nil {
		return err
	}
	fmt.Printf("handed %d items to loop %s\n", len(b.Todo), loopName)
	return nil
}

// runOnce is one loop run: one item, then the loop's end when nothing is left.
func runOnce(ctx context.Context, c *socketapi.Client) error {
	b, err := load()
	if err != nil {
		return err
	}
	if len(b.Todo) > 0 {
		// No scope needed: a run's scope is its own path, <loop>/<run_id>.
		if err := work(ctx, c, b); err != nil {
			return err
		}
		if err := save(b); err != nil {
			return err
		}
	}
	if len(b.Todo) == 0 {
		loop, _, _ := strings.Cut(c.Lineage().Path, "/")
		if _, err := c.LoopRm(ctx, api.LoopRmRequest{Names: []string{loop}}); err != nil {
			return err
		}
		fmt.Printf("backlog done (%d items): removed loop %s\n", len(b.Done), loop)
	}
	return nil
}

// work asks an agent to do the first item and moves it to done.
func work(ctx context.Context, c *socketapi.Client, b *backlog) error {
	item := b.Todo[0]
	res, err := c.Ask(ctx, api.AskRequest{
		Name: item, Agent: b.Agent, Timeout: "4m",
		Prompt: recipe.Prompt(b.Agent, "Do backlog item "+item+" and reply with one line saying what you did.", "say="+item+"_done"),
	})
	if err != nil {
		return err
	}
	b.Todo, b.Done = b.Todo[1:], append(b.Done, item)
	fmt.Printf("%s: %s\n", res.Path, recipe.FirstLine(res.Response.Text))
	return nil
}

func load() (*backlog, error) {
	raw, err := os.ReadFile(backlogFile)
	if err != nil {
		return nil, err
	}
	var b backlog
	return &b, json.Unmarshal(raw, &b)
}

// save replaces the backlog file whole (write, then rename), so a run never reads half.
func save(b *backlog) error {
	raw, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(backlogFile+".tmp", raw, 0o644); err != nil {
		return err
	}
	return os.Rename(backlogFile+".tmp", backlogFile)
}
