// Command fix_until_green is the fix-until-green pattern: one long-lived fixer (gc never);
// for up to 10 rounds this program runs the build, sends its errors to the fixer and
// waits; once green, a fresh verifier on another provider answers PASS or FAIL, and a
// FAIL goes back to the fixer. Then the fixer is killed. Agents: fix_build/fixer,
// fix_build/verify/round_<r>. Providers: $ORCR_RECIPE_AGENT fixes,
// $ORCR_RECIPE_VERIFIER verifies.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

// build stands in for a real build (go build ./..., npm test): the "program" is the first
// line of patch.txt in dir, which must be a sum of at least two whole numbers equal to 42.
// It returns "" when green, else the error.
func build(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
	if err != nil {
		return "patch.txt is missing"
	}
	line := recipe.FirstLine(string(b))
	terms, sum := strings.Split(line, "+"), 0
	for _, term := range terms {
		n, err := strconv.Atoi(strings.TrimSpace(term))
		if err != nil || len(terms) < 2 {
			return fmt.Sprintf("%q is not a sum of whole numbers", line)
		}
		sum += n
	}
	if sum != 42 {
		return fmt.Sprintf("%q is %d, want 42", line, sum)
	}
	return ""
}

func main() {
	ctx := context.Background()
	author, checker := recipe.Author(), recipe.Checker()
	err := recipe.Scoped(ctx, "fix_build", func(fb *socketapi.Client) error {
		run, err := fb.Run(ctx, api.RunRequest{
			Name: "fixer", Agent: author, GC: "never", Timeout: "2h",
			Prompt: recipe.Prompt(author, "You fix a broken build: the first line of $ORCR_AGENT_DATA_DIR/patch.txt must be a sum of at least two whole numbers equal to 42. You will be sent the build errors; say DONE after each fix.", "say=ready"),
		})
		if err != nil {
			return err
		}
		fixer := run.Agent
		// send hands the fixer a prompt and waits for that very turn (an earlier idle never
		// satisfies a wait after a send).
		send := func(prompt string) error {
			if _, err := fb.Send(ctx, api.SendRequest{Target: fixer.UUID, Prompt: prompt}); err != nil {
				return err
			}
			return recipe.Settle(ctx, fb, "30m", fixer.UUID)
		}
		if err := recipe.Settle(ctx, fb, "10m", fixer.UUID); err != nil {
			return err
		}
		fixes, rejections := 0, 0
		for round := range 10 {
			if errs := build(fixer.DataDir); errs != "" {
				fmt.Printf("round %d: build fails: %s\n", round, errs)
				mock := "say=40+1" // the mock's first fix is off by one, its next one right
				if fixes > 0 {
					mock = "say=40+2"
				}
				fixes++
				if err := send(recipe.Prompt(author, "The build fails: "+errs+". Fix it.", mock, "write=patch.txt")); err != nil {
					return err
				}
				continue
			}
			mock := "say=FAIL:looks_hardcoded" // the mock verifier rejects the first green build
			if rejections > 0 {
				mock = "say=PASS"
			}
			res, err := fb.Ask(ctx, api.AskRequest{
				Path: fmt.Sprintf("verify/round_%d", round), Agent: checker, Timeout: "15m",
				Prompt: recipe.Prompt(checker, "The build is green after a fix in "+filepath.Join(fixer.DataDir, "patch.txt")+". Is it a real fix rather than a hack? Reply PASS, or FAIL: <reason>.", mock),
			})
			if err != nil {
				return err
			}
			verdict := recipe.FirstLine(res.Response.Text)
			if strings.HasPrefix(strings.ToUpper(verdict), "PASS") {
				fmt.Printf("round %d: green and verified after %d fixes and %d rejections\n", round, fixes, rejections)
				_, err := fb.Kill(ctx, api.KillRequest{Targets: []string{fixer.UUID}})
				return err
			}
			fmt.Printf("round %d: green, but the verifier says %s\n", round, verdict)
			rejections++
			if err := send(recipe.Prompt(author, "A reviewer rejected your fix: "+verdict+". Improve it.", "say=40+2", "write=patch.txt")); err != nil {
				return err
			}
		}
		return errors.New("still not green and verified after 10 rounds")
	})
	if err != nil {
		log.Fatal(err)
	}
}
