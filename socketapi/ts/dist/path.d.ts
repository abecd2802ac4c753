/** The grammar's limits (docs/cli.md §3.2). */
export declare const MAX_SEGMENT_LEN = 64;
export declare const MAX_PATH_LEN = 256;
export declare const MAX_DEPTH = 8;
/** The reserved level-1 names: no created path may start with one. */
export declare const RESERVED_NAMES: readonly string[];
/** validSegment reports whether s is one segment: 1–64 characters of [a-z0-9_]. */
export declare function validSegment(s: string): boolean;
/**
 * validatePath checks an effective path (absolute, no leading "/") in the order of
 * docs/cli.md §3.2 and returns it: empty_path, path_too_long {path, len} (over 256
 * characters), path_too_deep {path, segments} (over 8), invalid_segment (which also
 * covers a leading or trailing "/" and "//"). Reserved names are not its concern.
 */
export declare function validatePath(p: string): string;
/** randToken is 5 characters drawn uniformly from [a-z0-9]. */
export declare function randToken(): string;
/**
 * expandRand replaces every `{rand}` in s by its own 5 random [a-z0-9] characters (rnd,
 * when given, supplies them). It applies to creation targets and scopes, never to
 * selectors.
 */
export declare function expandRand(s: string, rnd?: () => string): string;
/** join resolves s against scope: a leading "/" makes it absolute (scope ignored). */
export declare function join(scope: string, s: string): string;
/** isPattern reports whether a selector has a whole segment `*` or `**`. */
export declare function isPattern(s: string): boolean;
/** nameOf is a path's last segment (its name). */
export declare function nameOf(path: string): string;
/** scopeOfAgent is an agent's scope: its path without its name ("" for a one-segment path). */
export declare function scopeOfAgent(path: string): string;
/** A creation target: exactly one of name and path. */
export interface CreateTarget {
    /** One segment, created in the scope. */
    name?: string;
    /** Relative to the scope; a leading "/" makes it absolute. */
    path?: string;
}
/**
 * resolveCreate computes where a new agent goes, in the order of docs/cli.md §3.3, and
 * returns it absolute with a leading "/": neither name nor path → name_required, both →
 * name_and_path; `{rand}` expanded; a name holding "/" → invalid_name; the effective path
 * is scope/name, scope/path, or path itself when it starts with "/"; then the grammar of
 * validatePath, and the reserved first segments (reserved_name {name}).
 */
export declare function resolveCreate(target: CreateTarget, scope?: string, rnd?: () => string): string;
/**
 * resolveSelector makes a target or pattern absolute: a uuid (anything holding "-", or
 * 8+ hex digits with an uppercase one, which no path can be) goes as it is; otherwise it
 * is checked as a Pattern joined under scope and returned with a leading "/". Errors:
 * empty_selector, empty_pattern ("/"), invalid_pattern ("phase_*"), invalid_segment.
 */
export declare function resolveSelector(selector: string, scope?: string): string;
/**
 * Pattern is a compiled selector: literal segments, `*` (exactly one segment) and `**`
 * (one or more, never zero), matched against whole paths (docs/cli.md §3.5). The
 * constructor joins the selector under scope and checks it: empty_selector,
 * empty_pattern, invalid_pattern, invalid_segment. Depth and length are not limited.
 */
export declare class Pattern {
    /** The joined pattern, no leading "/". */
    readonly text: string;
    readonly segments: readonly string[];
    /** Whether any segment is `*` or `**`. */
    readonly hasWildcard: boolean;
    constructor(selector: string, scope?: string);
    /** match reports whether path (no leading "/") matches the whole pattern. */
    match(path: string): boolean;
    toString(): string;
}
