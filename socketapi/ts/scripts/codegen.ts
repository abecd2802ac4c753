// codegen writes src/generated.ts from the schema document `orcr api schema` prints
// (docs/protocol.md §10): the method, event and error-code lists, a Params and a Result
// interface per method, an interface per event kind with the OrcrEvent union of them,
// and GeneratedClient with one method per socket method.
//
//   tsx scripts/codegen.ts                 regenerate src/generated.ts ($ORCR_BIN, default orcr)
//   tsx scripts/codegen.ts --check         exit 1 when the committed file differs
//   tsx scripts/codegen.ts --schema FILE   read the document from FILE instead
//   tsx scripts/codegen.ts --out FILE      write (or check) FILE instead

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A JSON Schema node as the schema document writes them. */
export interface SchemaNode {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
}

/** The parts of the schema document codegen reads. */
export interface SchemaDoc {
  methods: Record<string, { summary?: string; implemented?: boolean; streaming?: boolean; params?: SchemaNode; result?: SchemaNode }>;
  events?: Record<string, SchemaNode>;
  errorCodes?: { code: string; exit: number; description?: string }[];
}

/** pascal turns a wire name into a type name: `loop.run.start` → `LoopRunStart`. */
export function pascal(name: string): string {
  return name
    .split(/[._]/)
    .filter((p) => p !== "")
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("");
}

/** camel turns a wire name into a method name: `loop.run.start` → `loopRunStart`. */
export function camel(name: string): string {
  const p = pascal(name);
  return p[0].toLowerCase() + p.slice(1);
}

function docComment(text: string | undefined, indent: string): string[] {
  if (!text || text.trim() === "") return [];
  const lines = text.trim().replaceAll("*/", "*\\/").split("\n").map((l) => l.trimEnd());
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((l) => (l === "" ? `${indent} *` : `${indent} * ${l}`)), `${indent} */`];
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyKey(k: string): string {
  return identifier.test(k) ? k : JSON.stringify(k);
}

/**
 * tsType is the TypeScript type of a schema node: string, number (integer and number),
 * boolean, T[] (array), an object literal for an object with properties (every property
 * optional, an open index signature kept), Record<string, T> for a map, and T | null for
 * a type [T, "null"]; anything else is unknown.
 */
export function tsType(node: SchemaNode | undefined, indent = ""): string {
  if (!node || typeof node !== "object") return "unknown";
  let t = node.type;
  let nullable = false;
  if (Array.isArray(t)) {
    nullable = t.includes("null");
    const rest = t.filter((x) => x !== "null");
    t = rest.length === 1 ? rest[0] : undefined;
  }
  let base: string;
  switch (t) {
    case "string":
      base = "string";
      break;
    case "integer":
    case "number":
      base = "number";
      break;
    case "boolean":
      base = "boolean";
      break;
    case "array": {
      const item = tsType(node.items, indent);
      base = item.includes(" | ") && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
      break;
    }
    case "object":
      if (node.properties && Object.keys(node.properties).length > 0) {
        base = objectLiteral(node.properties, indent);
      } else if (node.additionalProperties && typeof node.additionalProperties === "object") {
        base = `Record<string, ${tsType(node.additionalProperties, indent)}>`;
      } else {
        base = "Record<string, unknown>";
      }
      break;
    default:
      return "unknown";
  }
  return nullable ? `${base} | null` : base;
}

function members(props: Record<string, SchemaNode> | undefined, indent: string): string[] {
  const out: string[] = [];
  for (const key of Object.keys(props ?? {}).sort()) {
    const p = props![key];
    out.push(...docComment(p.description, indent));
    out.push(`${indent}${propertyKey(key)}?: ${tsType(p, indent)};`);
  }
  out.push(`${indent}[key: string]: unknown;`);
  return out;
}

function objectLiteral(props: Record<string, SchemaNode>, indent: string): string {
  const inner = indent + "  ";
  return ["{", ...members(props, inner), `${indent}}`].join("\n");
}

function iface(name: string, node: SchemaNode | undefined, comment: string): string[] {
  return [...docComment(comment, ""), `export interface ${name} {`, ...members(node?.properties, "  "), "}", ""];
}

function constList(name: string, comment: string, values: string[]): string[] {
  return [...docComment(comment, ""), `export const ${name} = [`, ...values.map((v) => `  ${JSON.stringify(v)},`), "] as const;", ""];
}

/** generate is the text of src/generated.ts for a schema document. */
export function generate(doc: SchemaDoc): string {
  const names = Object.keys(doc.methods).sort();
  const streaming = names.filter((n) => doc.methods[n].streaming === true);
  const events = Object.keys(doc.events ?? {}).sort();
  const codes = doc.errorCodes ?? [];
  const out: string[] = [
    "// Code generated by scripts/codegen.ts from `orcr api schema`. DO NOT EDIT.",
    "// Regenerate with `npm run codegen`; `npm run codegen:check` fails when this file is stale.",
    "",
    'import type { MethodTransport, Subscription } from "./wire.js";',
    "",
  ];
  out.push(...constList("PROTOCOL_METHODS", "Every method of the socket protocol, sorted.", names));
  out.push("/** A method name of PROTOCOL_METHODS. */", "export type ProtocolMethod = (typeof PROTOCOL_METHODS)[number];", "");
  out.push(...constList("STREAMING_METHODS", "The methods that answer with an initial result, then event frames.", streaming));
  out.push(...constList("EVENT_KINDS", "The event kinds the schema registers, sorted.", events));
  out.push(...docComment("The error codes of protocol 1 with their CLI exit codes, in the schema's order.", ""));
  out.push("export const ERROR_CODES = [");
  for (const c of codes) {
    const desc = c.description !== undefined ? `, description: ${JSON.stringify(c.description)}` : "";
    out.push(`  { code: ${JSON.stringify(c.code)}, exit: ${c.exit}${desc} },`);
  }
  out.push("] as const;", "");

  for (const n of names) {
    const m = doc.methods[n];
    const what = m.summary ? ` (${m.summary})` : "";
    out.push(...iface(`${pascal(n)}Params`, m.params, `Params of \`${n}\`${what}.${m.params?.description ? "\n" + m.params.description : ""}`));
    const resultNote = m.streaming ? `The initial result of \`${n}\`; event frames follow it.` : `Result of \`${n}\`.`;
    out.push(...iface(`${pascal(n)}Result`, m.result, `${resultNote}${m.result?.description ? "\n" + m.result.description : ""}`));
  }

  for (const k of events) {
    const node = doc.events![k];
    out.push(...docComment(`The event object of \`${k}\` frames.${node?.description ? "\n" + node.description : ""}`, ""));
    out.push(`export interface ${pascal(k)}Event {`, `  kind: ${JSON.stringify(k)};`);
    out.push("  /** The uuid of the row the event is about, when it names one. */", "  ref_uuid?: string;");
    // A frame's kind and ref_uuid overwrite payload keys of the same name (docs/protocol.md §2.4).
    const props = Object.fromEntries(Object.entries(node?.properties ?? {}).filter(([p]) => p !== "kind" && p !== "ref_uuid"));
    out.push(...members(props, "  "), "}", "");
  }
  out.push("/** The event object type of each event kind. */", "export interface EventPayloads {");
  for (const k of events) out.push(`  ${JSON.stringify(k)}: ${pascal(k)}Event;`);
  out.push("}", "");
  out.push(
    "/** An event object of a stream frame, discriminated by `kind` (narrow with `ev.kind === …`). */",
    "export type OrcrEvent = EventPayloads[keyof EventPayloads];",
    "",
  );

  out.push("/** The params type of each method. */", "export interface MethodParams {");
  for (const n of names) out.push(`  ${JSON.stringify(n)}: ${pascal(n)}Params;`);
  out.push("}", "");
  out.push("/** What each method's call resolves to: its result, or a Subscription for a stream. */", "export interface MethodResults {");
  for (const n of names) {
    const r = `${pascal(n)}Result`;
    out.push(`  ${JSON.stringify(n)}: ${doc.methods[n].streaming ? `Subscription<${r}>` : r};`);
  }
  out.push("}", "");

  out.push(
    "/**",
    " * GeneratedClient has one method per socket method, 1:1: raw params in, the raw result",
    " * out (a Subscription for a stream). It adds no caller identity, resolves no path and",
    " * never starts a server.",
    " */",
    "export class GeneratedClient {",
    "  readonly transport: MethodTransport;",
    "",
    "  constructor(transport: MethodTransport) {",
    "    this.transport = transport;",
    "  }",
    "",
    "  /** call sends any method by name; a streaming method opens its stream. */",
    "  call<M extends ProtocolMethod>(method: M, params?: MethodParams[M]): Promise<MethodResults[M]>;",
    "  call(method: string, params?: object): Promise<unknown>;",
    "  call(method: string, params: object = {}): Promise<unknown> {",
    "    return (STREAMING_METHODS as readonly string[]).includes(method)",
    "      ? this.transport.openStream(method, params)",
    "      : this.transport.request(method, params);",
    "  }",
  );
  for (const n of names) {
    const m = doc.methods[n];
    const p = pascal(n);
    const tag = m.implemented === false ? ", not implemented by this server yet" : "";
    out.push("");
    out.push(...docComment(`${m.summary ?? n} (\`${n}\`${m.streaming ? ", streaming" : ""}${tag}).`, "  "));
    if (m.streaming) {
      out.push(
        `  ${camel(n)}(params: ${p}Params = {}): Promise<Subscription<${p}Result>> {`,
        `    return this.transport.openStream(${JSON.stringify(n)}, params) as Promise<Subscription<${p}Result>>;`,
        "  }",
      );
    } else {
      out.push(
        `  ${camel(n)}(params: ${p}Params = {}): Promise<${p}Result> {`,
        `    return this.transport.request(${JSON.stringify(n)}, params) as Promise<${p}Result>;`,
        "  }",
      );
    }
  }
  out.push("}", "");
  return out.join("\n");
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function main(args: string[]): number {
  const check = args.includes("--check");
  const outPath = flag(args, "--out") ?? fileURLToPath(new URL("../src/generated.ts", import.meta.url));
  const schemaFile = flag(args, "--schema");
  const bin = process.env.ORCR_BIN || "orcr";
  let text: string;
  try {
    text = schemaFile
      ? readFileSync(schemaFile, "utf8")
      : execFileSync(bin, ["api", "schema"], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "inherit"] });
  } catch (e) {
    console.error(`codegen: cannot read the schema (${schemaFile ?? `${bin} api schema`}): ${(e as Error).message}`);
    return 2;
  }
  const doc = JSON.parse(text) as SchemaDoc;
  if (!doc || typeof doc.methods !== "object") {
    console.error("codegen: the schema document has no methods (was it printed with --json?)");
    return 2;
  }
  const generated = generate(doc);
  if (check) {
    let current = "";
    try {
      current = readFileSync(outPath, "utf8");
    } catch {
      // missing: stale
    }
    if (current.trim() !== generated.trim()) {
      console.error(`codegen: ${outPath} is stale; run \`npm run codegen\``);
      return 1;
    }
    console.log(`codegen: ${outPath} is up to date`);
    return 0;
  }
  writeFileSync(outPath, generated);
  console.log(`codegen: wrote ${outPath} (${Object.keys(doc.methods).length} methods)`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
