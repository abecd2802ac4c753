// Command fan_out_merge is the fan-out-and-merge pattern: one cheap one-shot reviewer per
// file, all at once, each writing its findings to review.md in its data dir; then one
// synthesizer on another provider merges them. Agents: review/fanout/file_<i>,
// review/merge. Providers: $ORCR_RECIPE_AGENT reviews, $ORCR_RECIPE_VERIFIER merges.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

var files = []string{"auth.go", "session.go", "token.go"}

func main() {
	ctx := context.Background()
	err := recipe.Scoped(ctx, "review", func(review *socketapi.Client) error {
		// The server queues what exceeds its concurrency caps: starting them all is safe.
		reviewers, err := recipe.Each(len(files), func(i int) (api.RunAgent, error) {
			res, err := review.Run(ctx, api.RunRequest{
				Path: fmt.Sprintf("fanout/file_%d", i), Agent: recipe.Author(), GC: "immediate", Timeout: "20m",
				Prompt: recipe.Prompt(recipe.Author(),
					"Review "+files[i]+" for bugs. Write your main finding as one line to $ORCR_AGENT_DATA_DIR/review.md, then say DONE.",
					fmt.Sprintf("say=finding_%d", i), "write=review.md"),
			})
			return res.Agent, err
		})
		if err != nil {
			return err
		}
		if err := recipe.Settle(ctx, review, "30m", "fanout/*"); err != nil {
			return err
		}
		// The data dirs outlive the gc-immediate reviewers.
		notes := make([]string, len(files))
		for i, r := range reviewers {
			b, err := os.ReadFile(filepath.Join(r.DataDir, "review.md"))
			notes[i] = files[i] + ": " + recipe.FirstLine(string(b))
			if err != nil {
				notes[i] = files[i] + ": (no review written)"
			}
			fmt.Println("review", notes[i])
		}
		merged, err := review.Ask(ctx, api.AskRequest{
			Name: "merge", Agent: recipe.Checker(), Timeout: "15m",
			Prompt: "Merge these reviews into one prioritized list: " + strings.Join(notes, " | "),
		})
		if err != nil {
			return err
		}
		fmt.Println("merged:", recipe.FirstLine(merged.Response.Text))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
