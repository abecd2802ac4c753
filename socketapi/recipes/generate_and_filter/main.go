// Command generate_and_filter is the generate-and-filter pattern: the same prompt runs
// across a roster of provider, model and effort combinations at once, then one judge on
// a fixed provider picks a draft by its number (an unparsable pick is draft 0). Agents:
// tagline_drafts/generate/gen_<i>, tagline_drafts/judge. Providers: $ORCR_RECIPE_AGENT
// and $ORCR_RECIPE_VERIFIER write, $ORCR_RECIPE_VERIFIER judges.
package main

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

type combo struct{ agent, model, effort string } // "" is the provider's configured default

var roster = []combo{
	{recipe.Author(), "", "low"},
	{recipe.Author(), "", "high"},
	{recipe.Checker(), "", ""},
}

const task = "Write a one-line tagline for a tool that runs coding agents in terminal panes."

func main() {
	ctx := context.Background()
	err := recipe.Scoped(ctx, "tagline_drafts", func(td *socketapi.Client) error {
		drafts, err := recipe.Each(len(roster), func(i int) (string, error) {
			c := roster[i]
			res, err := td.Ask(ctx, api.AskRequest{
				Path: fmt.Sprintf("generate/gen_%d", i), Agent: c.agent, Model: c.model, Effort: c.effort, Timeout: "10m",
				Prompt: recipe.Prompt(c.agent, task, fmt.Sprintf("say=draft_from_gen_%d", i)),
			})
			return recipe.FirstLine(res.Response.Text), err
		})
		if err != nil {
			return err
		}
		listed := make([]string, len(drafts))
		for i, d := range drafts {
			listed[i] = fmt.Sprintf("%d: %s", i, d)
		}
		judge := recipe.Checker()
		res, err := td.Ask(ctx, api.AskRequest{
			Name: "judge", Agent: judge, Timeout: "10m",
			Prompt: recipe.Prompt(judge, "Pick the best tagline. "+strings.Join(listed, " | ")+". Answer with its number only.", "say=2"),
		})
		if err != nil {
			return err
		}
		pick, err := strconv.Atoi(regexp.MustCompile(`\d+`).FindString(recipe.FirstLine(res.Response.Text)))
		if err != nil || pick >= len(drafts) {
			pick = 0
		}
		fmt.Printf("judge picked draft %d of %d: %s\n", pick, len(drafts), drafts[pick])
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
