// Package schedule holds the pure timing rules of loops (docs/loops.md §3–§5): the cron
// grammar and its next occurrence in a time zone, the --once-at grammar, the zone a loop
// is evaluated in, and the decisions the loop actor takes when a loop is due, resumed or
// recovered.
//
// Nothing here reads the clock, sleeps, starts goroutines or touches the store: every
// function takes the instants it needs as arguments, so the rules are tested with fixed
// times and the loop actor only performs what they return.
//
// The cron field parser is written here rather than taken from a cron library.
// github.com/netresearch/go-cron was measured against our grammar and differs in both
// directions: it accepts what we refuse (month and weekday names, `?`, a `CRON_TZ=`
// prefix, empty list items such as `1,,2`, signs such as `+5`, wrap-around ranges such as
// `22-2`), refuses what we accept (a step not smaller than its range, such as `*/60` or
// `5/59`), reads `*/1` as the unrestricted `*` although it counts as restricted for the
// day-of-month/day-of-week rule, and its errors do not name the field. Matching it would
// mean parsing every term ourselves first, which is the whole parser; its Next is not
// usable either, since our daylight-saving rules differ from it (docs/loops.md §5.2).
package schedule
