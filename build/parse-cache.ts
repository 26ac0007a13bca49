// asc parses AssemblyScript's standard library and gpsimd's kernel library again for every compile, though only the
// kernel changed: in a watch rebuild that parse was the largest stage (0.2-0.55 s on a busy machine). This keeps,
// per thread, the syntax tree of each library file (`~lib/...`, never a kernel or an entry file) by its text, and
// gives it to the next compile's parser instead of parsing the text again.
//
// What asc's Parser.parseFile does besides building the tree is replayed exactly: it marks the file done and seen,
// appends its Source to the program's sources, and, at each import or re-export, queues the imported path unless it
// was seen (`if (!seenlog.has(p)) { dependees.set(p, new Dependee(source, pathNode)); backlog.push(p); [seenlog.add(p)] }`,
// the add only at `export ... from`). Recording runs the real parse with those three collections swapped for
// recorders whose has() answers "not seen", so every site is captured with its path node in order; the sites are
// then applied to the real collections with the real logic, at the recording and at each reuse, so the queue
// follows what this program has seen. The tree itself is not changed by a compile but for `Source.debugInfoIndex`
// (the module's index of the file in its source map), which is reset before each reuse. A file whose parse
// reported anything is never kept. GPSIMD_PARSE_CACHE=0 turns the reuse off.
import { Parser } from "assemblyscript";

/** The parts of asc's Parser and Source this reads and writes (asc's typings keep most of them private). */
interface SourceLike { internalPath: string; debugInfoIndex: number }
interface DependeeLike { reportNode: unknown }
interface ParserLike {
  backlog: string[];
  seenlog: Set<string>;
  donelog: Set<string>;
  dependees: Map<string, DependeeLike>;
  sources: SourceLike[];
  diagnostics: unknown[];
  currentSource: SourceLike | null;
  currentModuleName: string | null;
  onComment: unknown;
}
type ParseFile = (this: ParserLike, text: string | null, path: string, isEntry: boolean) => void;

/** One import or re-export of a parsed file, in source order. */
interface Site { path: string; node: unknown; addsSeen: boolean }
interface Parsed { text: string; source: SourceLike; sites: Site[]; moduleName: string | null }

const parsed = new Map<string, Parsed>();
let dependeeClass: (new (source: SourceLike, reportNode: unknown) => DependeeLike) | null = null;
let installed = false;

/** Makes this thread's asc reuse the parsed library files (once per thread; asc.ts calls it before each compile). */
export function installParseCache(): void {
  if (installed) return;
  installed = true;
  const proto = Parser.prototype as unknown as { parseFile: ParseFile };
  const parseFile = proto.parseFile;
  proto.parseFile = function (text, path, isEntry) {
    if (isEntry || text === null || !path.startsWith("~lib/") || this.onComment || process.env.GPSIMD_PARSE_CACHE === "0") {
      return parseFile.call(this, text, path, isEntry);
    }
    const hit = parsed.get(path);
    if (hit && hit.text === text && dependeeClass) return reuse(this, hit);
    record(this, parseFile, text, path);
  };
}

/** Parses for real with the queue recorded, then applies the recorded sites; keeps the tree if the parse was clean. */
function record(parser: ParserLike, parseFile: ParseFile, text: string, path: string): void {
  const real = { backlog: parser.backlog, seenlog: parser.seenlog, dependees: parser.dependees };
  const sources = parser.sources.length, diagnostics = parser.diagnostics.length;
  const sites: Site[] = [];
  let fileSeen: string | null = null;
  parser.seenlog = Object.assign(new Set<string>(), {
    has(p: string) { sites.push({ path: p, node: null, addsSeen: false }); return false; },
    add(p: string) {
      const site = sites[sites.length - 1];
      if (site && site.path === p && !site.addsSeen) site.addsSeen = true;
      else fileSeen = p; // parseFile's own `seenlog.add(internalPath)`, before any site
      return this;
    },
  }) as Set<string>;
  parser.backlog = Object.assign([], { push: () => 0 }) as string[];
  parser.dependees = Object.assign(new Map<string, DependeeLike>(), {
    set(_path: string, dependee: DependeeLike) {
      dependeeClass ??= dependee.constructor as unknown as NonNullable<typeof dependeeClass>;
      sites[sites.length - 1].node = dependee.reportNode;
      return this;
    },
  }) as Map<string, DependeeLike>;
  try {
    parseFile.call(parser, text, path, false);
  } finally {
    Object.assign(parser, real);
  }
  if (fileSeen !== null) parser.seenlog.add(fileSeen);
  if (parser.sources.length === sources) return; // done already: parseFile returned at once
  const source = parser.sources[parser.sources.length - 1];
  applySites(parser, source, sites);
  if (parser.diagnostics.length === diagnostics && dependeeClass) parsed.set(path, { text, source, sites, moduleName: parser.currentModuleName });
}

/** What parseFile does for a file, with the tree parsed before. */
function reuse(parser: ParserLike, hit: Parsed): void {
  const { source } = hit;
  if (parser.donelog.has(source.internalPath)) return;
  parser.donelog.add(source.internalPath);
  parser.seenlog.add(source.internalPath);
  source.debugInfoIndex = -1; // set by the last compile that used the tree: this module numbers its files anew
  parser.sources.push(source);
  parser.currentSource = source;
  parser.currentModuleName = hit.moduleName;
  applySites(parser, source, hit.sites);
}

function applySites(parser: ParserLike, source: SourceLike, sites: Site[]): void {
  for (const { path, node, addsSeen } of sites) {
    if (parser.seenlog.has(path)) continue;
    parser.dependees.set(path, new dependeeClass!(source, node));
    parser.backlog.push(path);
    if (addsSeen) parser.seenlog.add(path);
  }
}
