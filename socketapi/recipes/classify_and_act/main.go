// Command classify_and_act is the classify-and-act pattern: for each issue a cheap
// classifier must answer one word; the word is normalized through a fixed list (anything
// else is the safe class, question) and only then becomes a path, where that class's
// handler runs. Agents: triage/issue_<i>/classify, triage/issue_<i>/<class>/handler.
// Provider: $ORCR_RECIPE_AGENT.
package main

import (
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/orcr-go/orcr/socketapi"
	"github.com/orcr-go/orcr/socketapi/api"
	"github.com/orcr-go/orcr/socketapi/recipes/recipe"
)

var classes = []string{"bug", "feature", "question"} // question is the safe default

var issues = []struct{ text, mock string }{ // mock: what the mock classifier answers
	{"The CLI crashes when the config file is empty", "say=Bug."},
	{"Please look at this as soon as you can", "say=urgent!!"},
}

func main() {
	ctx := context.Background()
	err := recipe.Scoped(ctx, "triage", func(triage *socketapi.Client) error {
		_, err := recipe.Each(len(issues), func(i int) (struct{}, error) {
			return struct{}{}, handle(ctx, triage, i)
		})
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}

func handle(ctx context.Context, triage *socketapi.Client, i int) error {
	issue, err := triage.Scope(fmt.Sprintf("issue_%d", i))
	if err != nil {
		return err
	}
	res, err := issue.Ask(ctx, api.AskRequest{
		Name: "classify", Agent: recipe.Author(), Timeout: "5m",
		Prompt: recipe.Prompt(recipe.Author(), "Classify this issue as exactly one word, bug, feature or question: "+issues[i].text, issues[i].mock),
	})
	if err != nil {
		return err
	}
	raw := recipe.FirstLine(res.Response.Text)
	word := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, strings.ToLower(raw))
	class := "question"
	if slices.Contains(classes, word) {
		class = word
	}
	handled, err := issue.Ask(ctx, api.AskRequest{
		Path: class + "/handler", Agent: recipe.Author(), Timeout: "30m",
		Prompt: recipe.Prompt(recipe.Author(), "Handle this "+class+" report and reply with one line: "+issues[i].text, "say="+class+"_handled"),
	})
	if err != nil {
		return err
	}
	fmt.Printf("issue_%d: %q is %s; %s/handler: %s\n", i, raw, class, class, recipe.FirstLine(handled.Response.Text))
	return nil
}
