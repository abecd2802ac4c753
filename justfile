# orcr tasks. `just` is optional: every recipe is a plain go command (see README).

# build the orcr binary, the herdr stand-in and the mock agent into ./bin
build:
    go build -o bin/ ./cmd/...

# the test suite, as CI runs it
test:
    go test -race -timeout 15m ./...

# the provider fidelity tests against the claude and codex on PATH (or in
# $ORCR_TEST_PROVIDER_BIN_DIR): orcr's flags, codex's app-server schema and catalogue,
# the real TUIs in herdr stand-in panes
providers:
    go test -race -count=1 -v -run 'Live$' ./actors/provider/
    go test -race -count=1 -v -run 'TUIInStandinPaneLive$' ./tests/

# vet and formatting
lint:
    go vet ./...
    test -z "$(gofmt -l .)"

# benchmarks (ratios against raw baselines measured in the same run)
bench:
    go test -run '^$' -bench . -benchtime 2s ./actors/ ./socketapi/server/

# the self-contained demo (no herdr or provider needed)
demo:
    go run ./cmd/orcr-demo
