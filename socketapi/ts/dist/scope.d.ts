/** activeScope is the scope of the innermost frame around the caller, or undefined outside any. */
export declare function activeScope(): string | undefined;
/**
 * composeScope puts fragment onto current: `{rand}` is expanded, a leading "/" makes the
 * fragment absolute, otherwise it nests under current; the result (no leading "/") must
 * be a valid path (empty_path for "" or "/", path_too_long, path_too_deep,
 * invalid_segment).
 */
export declare function composeScope(current: string, fragment: string, rnd?: () => string): string;
/** runInScope runs fn inside a frame whose scope is scope. */
export declare function runInScope<T>(scope: string, fn: () => T): T;
