-- Version 3: a loop's argv is kept in the store, the source of truth for its runs
-- (docs/loops.md, decision L1): a rejected `loop create` can never change what a live
-- definition runs. loop.json is still written beside it for tools that read it. Rows a
-- reference binary created have NULL here and are read from their loop.json.
ALTER TABLE loops ADD COLUMN argv_json TEXT;
