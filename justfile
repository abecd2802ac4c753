# orcr tasks. `just` is optional: every recipe is a plain go command (see README).

# build the orcr binary, the herdr stand-in and the mock agent into ./bin
build:
    go build -o bin/ ./cmd/...

# the test suite, as CI runs it: four packages at a time (-p 4), since most of their
# tests wait on other processes and two (GOMAXPROCS) left the cores a third idle
test:
    go test -race -p 4 -timeout 15m ./...

# the provider fidelity tests against the claude, codex, pi, gemini, qwen and opencode
# on PATH (or in $ORCR_TEST_PROVIDER_BIN_DIR, a list like PATH): orcr's flags, codex's
# app-server schema and catalogue, the real TUIs in herdr stand-in panes
providers:
    go test -race -count=1 -v -run 'Live$' ./actors/provider/
    go test -race -count=1 -v -run 'Live$' ./tests/
    go test -run '^$' -bench RealCompletionLatency -benchtime 1x ./tests/

# the herdr-facing suites against a real herdr instead of the stand-in
# (docs/herdr.md §12.1): ORCR_TEST_HERDR_BIN=/path/to/herdr just herdr-live; each test
# runs its own herdr sessions in a private config dir. ORCR_TEST_HERDR_RECORD=1 also
# writes what herdr answered to herdr/testdata/live/<version>/ for the CI replay. The
# adoption tests are left out: they need an agent_session for the mock, which a real
# herdr never records (README, "What only a real herdr can confirm").
herdr-live:
    test -n "$ORCR_TEST_HERDR_BIN" || { echo "set ORCR_TEST_HERDR_BIN to a herdr binary" >&2; exit 2; }
    go test -race -count=1 -v -run '^TestLiveHerdr$' ./herdr/
    go test -race -count=1 -v -timeout 20m -run '^(TestRunSpawnsMockAgentWithEnvContract|TestTurnsComplete|TestAgentTimeout|TestTurnNoStaleIdle|TestTurnToolGapsCompleteOnce|TestTurnBlockedThenSend|TestSubmitConfirmationRetypesDroppedPrompt|TestWaitSingleTargetSettlesOnIdle|TestWaitBlocked|TestWaitEndedExitReasons|TestGCParksIdleAgent|TestGCSendUnparks|TestGCReapsParkedAgentAndPromotes|TestGCMoveRecoveryAtRestart|TestPaneClosedBehindOrcrsBackIsLostThenEnded|TestLostRowRevivesWhenItsTerminalIsVisible|TestDriftCountsUnclaimedPanes|TestStopDuringSpawnResumesAtRestart)$' ./socketapi/server/
    go test -race -count=1 -v -timeout 20m -run '^(TestAgentVerbsJSONAndExitCodes|TestKill9MidSpawnNoDuplicatePane|TestVerbRightAfterStop|TestAttachTakeoverInATerminal|TestUnmanagedDiscovery|TestHerdrKilled|TestCrashMidTurnResumes|TestCrashCampaign|TestWaitAnyCLI|TestHerdrIntegrationsLive)$' ./tests/

# vet and formatting
lint:
    go vet ./...
    test -z "$(gofmt -l .)"

# benchmarks (ratios against raw baselines measured in the same run)
bench:
    go test -run '^$' -bench . -benchtime 2s ./actors/ ./socketapi/server/

# a fleet of N mock agents with the real binaries (orcr, the herdr stand-in, the mock
# agent): spawn, rest, one bulk kill, retention's trim, then a table of what it cost
# (wall times, idle CPU against no agent, memory and fds per agent). Without -race: it
# measures orcr, not the race detector. CI runs the same test at N = 60.
scale n="1000":
    ORCR_TEST_SCALE_N={{n}} ORCR_TEST_SCALE_WINDOW=30 go test -count=1 -v -timeout 60m -run '^TestScale$' ./tests/

# the self-contained demo (no herdr or provider needed)
demo:
    go run ./cmd/orcr-demo

# short coverage-guided runs of every fuzz target beyond its seed corpus (the seeds
# run with the tests); a crasher is saved under testdata/fuzz and fails the tests
fuzz:
    go test -run '^$' -fuzz '^FuzzCheckPrompt$' -fuzztime 5s ./actors
    go test -run '^$' -fuzz '^FuzzOrcrPane$' -fuzztime 5s ./actors
    go test -run '^$' -fuzz '^FuzzParseLimitReset$' -fuzztime 5s ./actors
    go test -run '^$' -fuzz '^FuzzParseRetryAfter$' -fuzztime 5s ./actors/notify
    go test -run '^$' -fuzz '^FuzzParseCodexModelList$' -fuzztime 5s ./actors/provider
    go test -run '^$' -fuzz '^FuzzScreenAnswer$' -fuzztime 5s ./actors/provider
    go test -run '^$' -fuzz '^FuzzScreenStatus$' -fuzztime 5s ./actors/provider
    go test -run '^$' -fuzz '^FuzzParseChat$' -fuzztime 5s ./actors/provider/modeltest
    go test -run '^$' -fuzz '^FuzzParseDirectives$' -fuzztime 5s ./actors/provider/modeltest
    go test -run '^$' -fuzz '^FuzzParseGemini$' -fuzztime 5s ./actors/provider/modeltest
    go test -run '^$' -fuzz '^FuzzParseCron$' -fuzztime 5s ./actors/schedule
    go test -run '^$' -fuzz '^FuzzParseOnceAt$' -fuzztime 5s ./actors/schedule
    go test -run '^$' -fuzz '^FuzzParseClaude$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzParseCodex$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzParseGemini$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzParseOpencode$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzParsePi$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzParseQwen$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzQuota$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzLoginEmail$' -fuzztime 5s ./actors/transcript
    go test -run '^$' -fuzz '^FuzzCodexSessionHook$' -fuzztime 5s ./cmd/orcr-mock-agent
    go test -run '^$' -fuzz '^FuzzParseDirectives$' -fuzztime 5s ./cmd/orcr-mock-agent
    go test -run '^$' -fuzz '^FuzzParseSince$' -fuzztime 5s ./cmd/orcr/cli
    go test -run '^$' -fuzz '^FuzzCheckLine$' -fuzztime 5s ./cmd/orcr/mcp
    go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 5s ./config
    go test -run '^$' -fuzz '^FuzzParseDuration$' -fuzztime 5s ./config
    go test -run '^$' -fuzz '^FuzzProviderSpec$' -fuzztime 5s ./config
    go test -run '^$' -fuzz '^FuzzHandle$' -fuzztime 5s ./socketapi/fleet
    go test -run '^$' -fuzz '^FuzzDecodeReply$' -fuzztime 5s ./socketapi/fleet
    go test -run '^$' -fuzz '^FuzzChunkHeader$' -fuzztime 5s ./socketapi/fleet
    go test -run '^$' -fuzz '^FuzzDecodeEventMsg$' -fuzztime 5s ./socketapi/fleet
    go test -run '^$' -fuzz '^FuzzParseAttach$' -fuzztime 5s ./socketapi/fleet
    go test -run '^$' -fuzz '^FuzzParseResize$' -fuzztime 5s ./socketapi/fleet
    go test -run '^$' -fuzz '^FuzzDecodeResponse$' -fuzztime 5s ./herdr
    go test -run '^$' -fuzz '^FuzzReadLine$' -fuzztime 5s ./herdr
    go test -run '^$' -fuzz '^FuzzParseIntegrationStatus$' -fuzztime 5s ./herdr
    go test -run '^$' -fuzz '^FuzzParseSessionList$' -fuzztime 5s ./herdr
    go test -run '^$' -fuzz '^FuzzDetectAgentScreen$' -fuzztime 5s ./herdr/herdrtest
    go test -run '^$' -fuzz '^FuzzRequest$' -fuzztime 5s ./herdr/herdrtest
    go test -run '^$' -fuzz '^FuzzDecodeParams$' -fuzztime 5s ./socketapi/api
    go test -run '^$' -fuzz '^FuzzParseBudget$' -fuzztime 5s ./socketapi/api
    go test -run '^$' -fuzz '^FuzzModelApply$' -fuzztime 5s ./socketapi
    go test -run '^$' -fuzz '^FuzzDecodeClient$' -fuzztime 5s ./socketapi/remote
    go test -run '^$' -fuzz '^FuzzReplyFramesAreUTF8JSON$' -fuzztime 5s ./socketapi/server
    go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 5s ./socketapi/api/wire
    go test -run '^$' -fuzz '^FuzzDecodeSameAsReference$' -fuzztime 5s ./socketapi/api/wire
    go test -run '^$' -fuzz '^FuzzCompilePattern$' -fuzztime 5s ./store/agentpath
    go test -run '^$' -fuzz '^FuzzCreation$' -fuzztime 5s ./store/agentpath
