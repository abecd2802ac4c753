// Command adversarial_verification is the adversarial-verification pattern: one worker
// you keep (gc never); in up to 5 rounds a panel of verifiers on another provider, one per
// lens, each told to find a real problem, replies PASS or FAIL; when more than half fail,
// their objections go to the worker and the panel runs again. Agents:
// critical_change/worker, critical_change/verify/round_<r>/lens_<i>. Providers:
// $ORCR_RECIPE_AGENT works, $ORCR_RECIPE_VERIFIER verifies.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

var lenses = []string{"correctness", "security", "failure handling"}

// mockVerdicts is what the mock verifiers answer, per round and lens: two objections,
// then one.
var mockVerdicts = [][]string{
	{"FAIL:no_input_validation", "FAIL:secret_in_log", "PASS"},
	{"FAIL:naming_nit", "PASS", "PASS"},
}

func main() {
	ctx := context.Background()
	author, checker := recipe.Author(), recipe.Checker()
	err := recipe.Scoped(ctx, "critical_change", func(cc *socketapi.Client) error {
		run, err := cc.Run(ctx, api.RunRequest{
			Name: "worker", Agent: author, GC: "never", Timeout: "3h",
			Prompt: recipe.Prompt(author, "Add refunds to the payments module. Describe your change in $ORCR_AGENT_DATA_DIR/change.md, then say DONE.", "say=refunds_added", "write=change.md"),
		})
		if err != nil {
			return err
		}
		worker := run.Agent
		if err := recipe.Settle(ctx, cc, "1h", worker.UUID); err != nil {
			return err
		}
		change := filepath.Join(worker.DataDir, "change.md")
		for round := range 5 {
			verdicts, err := recipe.Each(len(lenses), func(i int) (string, error) {
				mock := "say=PASS"
				if round < len(mockVerdicts) {
					mock = "say=" + mockVerdicts[round][i]
				}
				res, err := cc.Ask(ctx, api.AskRequest{
					Path: fmt.Sprintf("verify/round_%d/lens_%d", round, i), Agent: checker, Timeout: "20m",
					Prompt: recipe.Prompt(checker, "Review the change described in "+change+" for "+lenses[i]+". Find a real problem. Reply PASS, or FAIL: <problem>.", mock),
				})
				return recipe.FirstLine(res.Response.Text), err
			})
			if err != nil {
				return err
			}
			var objections []string
			for i, v := range verdicts {
				if !strings.HasPrefix(strings.ToUpper(v), "PASS") {
					objections = append(objections, lenses[i]+": "+v)
				}
			}
			fmt.Printf("round %d: %d of %d lenses fail\n", round, len(objections), len(lenses))
			if 2*len(objections) <= len(lenses) {
				fmt.Printf("accepted in round %d\n", round)
				_, err := cc.Kill(ctx, api.KillRequest{Targets: []string{worker.UUID}})
				return err
			}
			if _, err := cc.Send(ctx, api.SendRequest{Target: worker.UUID,
				Prompt: recipe.Prompt(author, "Reviewers found problems: "+strings.Join(objections, "; ")+". Fix them and update change.md.", "say=refunds_revised", "write=change.md"),
			}); err != nil {
				return err
			}
			if err := recipe.Settle(ctx, cc, "1h", worker.UUID); err != nil {
				return err
			}
		}
		return errors.New("the panel still objects after 5 rounds")
	})
	if err != nil {
		log.Fatal(err)
	}
}
