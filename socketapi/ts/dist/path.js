// The path grammar of docs/cli.md §3, client-side: segments, limits, {rand}, creation
// targets, selectors and whole-segment pattern matching. The SDK sends every path and
// selector absolute (a leading "/"), so the server never applies a scope a second time.
import { randomInt } from "node:crypto";
import { invalidRequest } from "./errors.js";
/** The grammar's limits (docs/cli.md §3.2). */
export const MAX_SEGMENT_LEN = 64;
export const MAX_PATH_LEN = 256;
export const MAX_DEPTH = 8;
/** The reserved level-1 names: no created path may start with one. */
export const RESERVED_NAMES = Object.freeze(["idle", "unmanaged"]);
const segmentRe = /^[a-z0-9_]{1,64}$/;
const RAND = "{rand}";
const randAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
/** validSegment reports whether s is one segment: 1–64 characters of [a-z0-9_]. */
export function validSegment(s) {
    return segmentRe.test(s);
}
/**
 * validatePath checks an effective path (absolute, no leading "/") in the order of
 * docs/cli.md §3.2 and returns it: empty_path, path_too_long {path, len} (over 256
 * characters), path_too_deep {path, segments} (over 8), invalid_segment (which also
 * covers a leading or trailing "/" and "//"). Reserved names are not its concern.
 */
export function validatePath(p) {
    if (p === "")
        throw invalidRequest("empty_path", "path is empty");
    if (p.length > MAX_PATH_LEN) {
        throw invalidRequest("path_too_long", `path ${JSON.stringify(p)} is ${p.length} characters long; the limit is ${MAX_PATH_LEN}`, {
            path: p,
            len: p.length,
        });
    }
    const segs = p.split("/");
    if (segs.length > MAX_DEPTH) {
        throw invalidRequest("path_too_deep", `path ${JSON.stringify(p)} has ${segs.length} segments; the limit is ${MAX_DEPTH}`, {
            path: p,
            segments: segs.length,
        });
    }
    for (const s of segs) {
        if (!validSegment(s))
            throw invalidSegment(p, s);
    }
    return p;
}
function invalidSegment(p, seg) {
    return invalidRequest("invalid_segment", `invalid segment ${JSON.stringify(seg)} in ${JSON.stringify(p)}: segments are 1-${MAX_SEGMENT_LEN} characters of [a-z0-9_]`, { path: p, segment: seg });
}
/** randToken is 5 characters drawn uniformly from [a-z0-9]. */
export function randToken() {
    let s = "";
    for (let i = 0; i < 5; i++)
        s += randAlphabet[randomInt(randAlphabet.length)];
    return s;
}
/**
 * expandRand replaces every `{rand}` in s by its own 5 random [a-z0-9] characters (rnd,
 * when given, supplies them). It applies to creation targets and scopes, never to
 * selectors.
 */
export function expandRand(s, rnd = randToken) {
    if (!s.includes(RAND))
        return s;
    return s.split(RAND).reduce((acc, part) => acc + rnd() + part);
}
/** join resolves s against scope: a leading "/" makes it absolute (scope ignored). */
export function join(scope, s) {
    if (s.startsWith("/"))
        return s.slice(1);
    if (scope === "")
        return s;
    return s === "" ? scope : `${scope}/${s}`;
}
/** isPattern reports whether a selector has a whole segment `*` or `**`. */
export function isPattern(s) {
    return s.split("/").some((seg) => seg === "*" || seg === "**");
}
/** nameOf is a path's last segment (its name). */
export function nameOf(path) {
    const p = path.startsWith("/") ? path.slice(1) : path;
    return p.slice(p.lastIndexOf("/") + 1);
}
/** scopeOfAgent is an agent's scope: its path without its name ("" for a one-segment path). */
export function scopeOfAgent(path) {
    const p = path.startsWith("/") ? path.slice(1) : path;
    const i = p.lastIndexOf("/");
    return i < 0 ? "" : p.slice(0, i);
}
/**
 * resolveCreate computes where a new agent goes, in the order of docs/cli.md §3.3, and
 * returns it absolute with a leading "/": neither name nor path → name_required, both →
 * name_and_path; `{rand}` expanded; a name holding "/" → invalid_name; the effective path
 * is scope/name, scope/path, or path itself when it starts with "/"; then the grammar of
 * validatePath, and the reserved first segments (reserved_name {name}).
 */
export function resolveCreate(target, scope = "", rnd) {
    const { name, path } = target;
    const hasName = name !== undefined && name !== "";
    const hasPath = path !== undefined && path !== "";
    if (!hasName && !hasPath)
        throw invalidRequest("name_required", "one of name or path is required");
    if (hasName && hasPath)
        throw invalidRequest("name_and_path", "name and path are mutually exclusive");
    let effective;
    if (hasName) {
        const n = expandRand(name, rnd);
        if (n.includes("/")) {
            throw invalidRequest("invalid_name", `name ${JSON.stringify(n)} must be a single segment (no "/"); use path for nesting`);
        }
        effective = join(scope, n);
    }
    else {
        effective = join(scope, expandRand(path, rnd));
    }
    validatePath(effective);
    const first = effective.split("/")[0];
    if (RESERVED_NAMES.includes(first)) {
        throw invalidRequest("reserved_name", `${JSON.stringify(first)} is a reserved top-level name`, { name: first });
    }
    return "/" + effective;
}
/** looksLikeUUID: a target holding "-" is a uuid or uuid prefix (names never hold one). */
function looksLikeUUID(s) {
    return s.includes("-") || /^(?=.*[A-F])[0-9a-fA-F]{8,}$/.test(s);
}
/**
 * resolveSelector makes a target or pattern absolute: a uuid (anything holding "-", or
 * 8+ hex digits with an uppercase one, which no path can be) goes as it is; otherwise it
 * is checked as a Pattern joined under scope and returned with a leading "/". Errors:
 * empty_selector, empty_pattern ("/"), invalid_pattern ("phase_*"), invalid_segment.
 */
export function resolveSelector(selector, scope = "") {
    if (selector !== "" && looksLikeUUID(selector))
        return selector;
    return "/" + new Pattern(selector, scope).text;
}
/**
 * Pattern is a compiled selector: literal segments, `*` (exactly one segment) and `**`
 * (one or more, never zero), matched against whole paths (docs/cli.md §3.5). The
 * constructor joins the selector under scope and checks it: empty_selector,
 * empty_pattern, invalid_pattern, invalid_segment. Depth and length are not limited.
 */
export class Pattern {
    /** The joined pattern, no leading "/". */
    text;
    segments;
    /** Whether any segment is `*` or `**`. */
    hasWildcard;
    constructor(selector, scope = "") {
        if (selector === "")
            throw invalidRequest("empty_selector", "selector is empty");
        const text = join(scope, selector);
        if (text === "")
            throw invalidRequest("empty_pattern", `selector ${JSON.stringify(selector)} names no path`);
        const segments = text.split("/");
        let wild = false;
        for (const s of segments) {
            if (s === "*" || s === "**")
                wild = true;
            else if (s.includes("*")) {
                throw invalidRequest("invalid_pattern", `invalid pattern segment ${JSON.stringify(s)} in ${JSON.stringify(text)}: wildcards are whole segments ("*" or "**")`);
            }
            else if (!validSegment(s))
                throw invalidSegment(text, s);
        }
        this.text = text;
        this.segments = Object.freeze(segments);
        this.hasWildcard = wild;
    }
    /** match reports whether path (no leading "/") matches the whole pattern. */
    match(path) {
        if (!this.hasWildcard)
            return path === this.text;
        if (path === "")
            return false;
        const segs = path.split("/");
        if (segs.some((s) => s === ""))
            return false;
        // reach[j]: the pattern segments so far match segs[0..j).
        let reach = new Array(segs.length + 1).fill(false);
        reach[0] = true;
        for (const ps of this.segments) {
            const next = new Array(segs.length + 1).fill(false);
            if (ps === "**") {
                let seen = false;
                for (let j = 1; j <= segs.length; j++) {
                    seen = seen || reach[j - 1];
                    next[j] = seen;
                }
            }
            else {
                for (let j = 0; j < segs.length; j++)
                    next[j + 1] = reach[j] && (ps === "*" || segs[j] === ps);
            }
            reach = next;
        }
        return reach[segs.length];
    }
    toString() {
        return this.text;
    }
}
