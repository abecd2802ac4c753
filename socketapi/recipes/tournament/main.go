// Command tournament is the tournament pattern: candidates meet in pairwise matches, each
// a one-shot judge answering A or B (anything else counts as A); winners advance, an odd
// one out gets a bye, until one remains. Agents: tagline_tournament/round_<r>/match_<m>.
// Provider: $ORCR_RECIPE_VERIFIER judges.
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

var candidates = []string{
	"Agents in panes, not in the dark",
	"One socket, many minds",
	"Delegate, wait, read",
	"Your terminal, staffed",
	"Fan out, merge in",
}

func main() {
	ctx := context.Background()
	err := recipe.Scoped(ctx, "tagline_tournament", func(t *socketapi.Client) error {
		field := candidates
		for round := 0; len(field) > 1; round++ {
			winners, err := recipe.Each(len(field)/2, func(m int) (string, error) {
				a, b := field[2*m], field[2*m+1]
				mock := "say=B" // the mock judge picks B in even matches and mumbles in odd ones
				if m%2 == 1 {
					mock = "say=maybe"
				}
				res, err := t.Ask(ctx, api.AskRequest{
					Path: fmt.Sprintf("round_%d/match_%d", round, m), Agent: recipe.Checker(), Timeout: "10m",
					Prompt: recipe.Prompt(recipe.Checker(),
						fmt.Sprintf("Which tagline is better for a tool that runs coding agents? A: %q B: %q. Answer with the single letter A or B.", a, b),
						mock),
				})
				if err != nil {
					return "", err
				}
				raw := recipe.FirstLine(res.Response.Text)
				switch strings.Trim(strings.ToUpper(raw), ` ."'*`) {
				case "B":
					return b, nil
				case "A":
					return a, nil
				default:
					fmt.Printf("round_%d/match_%d answered %q: A advances\n", round, m, raw)
					return a, nil
				}
			})
			if err != nil {
				return err
			}
			if len(field)%2 == 1 {
				winners = append(winners, field[len(field)-1]) // the bye
			}
			fmt.Printf("round %d: %d left\n", round, len(winners))
			field = winners
		}
		fmt.Println("winner:", field[0])
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
