// Scopes: where relative names and paths land. A scope frame lives in an AsyncLocalStorage,
// so it follows the async calls made inside it and never leaks into concurrent work that
// was started outside it.
import { AsyncLocalStorage } from "node:async_hooks";
import { invalidRequest } from "./errors.js";
import { expandRand, join, validatePath } from "./path.js";
const frames = new AsyncLocalStorage();
/** activeScope is the scope of the innermost frame around the caller, or undefined outside any. */
export function activeScope() {
    return frames.getStore();
}
/**
 * composeScope puts fragment onto current: `{rand}` is expanded, a leading "/" makes the
 * fragment absolute, otherwise it nests under current; the result (no leading "/") must
 * be a valid path (empty_path for "" or "/", path_too_long, path_too_deep,
 * invalid_segment).
 */
export function composeScope(current, fragment, rnd) {
    if (fragment === "" || fragment === "/")
        throw invalidRequest("empty_path", "a scope needs at least one segment");
    return validatePath(join(current, expandRand(fragment, rnd)));
}
/** runInScope runs fn inside a frame whose scope is scope. */
export function runInScope(scope, fn) {
    return frames.run(scope, fn);
}
