// The bundle holds what the commands run many times a day need (render, diff, apply, status…); the
// rest (commander for help and usage errors, import, init, the git providers, the positional YAML
// decoder behind validation messages) is a second script, dist/kanon-cold.js, run the first time one
// of its modules is imported. A run pays for every byte of the bundle's source and every function it
// declares, whether it runs them or not: the cold part was two fifths of the bundle.
//
// A cold module is one of COLD_ROOTS, imported with import(), and the modules only they use. The cold
// chunk takes every module the bundle has from the bundle (one copy of each: one KanonError class, one
// agent table), as the UI chunk does (esbuild-ui-chunk.mjs).
import { readFileSync } from "node:fs";
import { relative, resolve, sep } from "node:path";

/** Modules that the common commands never import: the roots of the cold chunk. */
export const COLD_ROOTS = [
  // commander: help, usage errors, and the commands quick-parse.ts does not read.
  "src/cli/program.ts",
  "src/cli/commands/import.ts",
  "src/cli/commands/init.ts",
  "src/cli/commands/lock.ts",
  "src/cli/commands/sync.ts",
  "src/cli/commands/ui.ts",
  // kanon waypoint, stage and task (subcommands: commander reads them).
  "src/cli/commands/continuity.ts",
  // The agents' readers for import.
  "src/agents/claude/import.ts",
  "src/agents/codex/import.ts",
  "src/agents/gemini/import.ts",
  "src/agents/kimi/import.ts",
  "src/agents/opencode/import.ts",
  // Git skill providers: only homes that have them.
  "src/providers/frontmatter.ts",
  "src/providers/lock.ts",
  "src/providers/lock-parse.ts",
  "src/providers/materialize.ts",
  // FILE:LINE:COL messages for a kanon.yaml with something to report (with the yaml package).
  "src/source/decode-positional.ts",
];

const LENT = "__kanonLent";
const rel = (file) => relative(".", file).split(sep).join("/");

/**
 * For the bundle: `import()` of a cold root becomes a stub that asks the cold chunk for the module.
 * `lent` maps each of the bundle's modules the chunk takes to its export names (empty on the build that
 * finds them); `chunk` is the chunk's file name, `importChunk` the free name of the loader's import()
 * (for the UI chunk) and `cached` the free name of the loader's function that gives the chunk's
 * verified code cache. The modules are lent as objects of getters made when the chunk loads:
 * a namespace import would make each module's namespace object on every run.
 */
export function coldStubs({ lent, chunk, importChunk, cached }) {
  return {
    name: "cold-stubs",
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.kind !== "dynamic-import" || args.pluginData === "cold") return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "cold",
        });
        if (found.errors.length > 0 || !COLD_ROOTS.includes(rel(found.path))) return undefined;
        return { path: rel(found.path), namespace: "kanon-cold" };
      });
      build.onLoad({ filter: /.*/, namespace: "kanon-cold" }, (args) => ({
        contents: `module.exports = require("kanon-cold-chunk").coldModule(${JSON.stringify(args.path)});`,
        loader: "js",
        resolveDir: resolve("."),
      }));
      build.onResolve({ filter: /^kanon-cold-chunk$/ }, () => ({
        path: "chunk",
        namespace: "kanon-cold-chunk",
      }));
      build.onLoad({ filter: /.*/, namespace: "kanon-cold-chunk" }, () => {
        const paths = [...lent.keys()].sort();
        const names = (i) => lent.get(paths[i]).map((name, j) => [name, `m${i}_${j}`]);
        const lentObject = (i) =>
          `{ ${names(i)
            .map(([name, local]) => `get ${JSON.stringify(name)}() { return ${local}; }`)
            .join(", ")} }`;
        return {
          contents: [
            ...paths.map(
              (p, i) =>
                `import { ${names(i)
                  .map(([name, local]) => `${JSON.stringify(name)} as ${local}`)
                  .join(", ")} } from ${JSON.stringify(resolve(p))};`,
            ),
            'import { readFileSync } from "node:fs";',
            'import { join } from "node:path";',
            'import { Script } from "node:vm";',
            "let roots;",
            "export function coldModule(path) {",
            "  if (!roots) {",
            `    const file = join(__dirname, ${JSON.stringify(chunk)});`,
            `    const lent = { ${paths.map((p, i) => `${JSON.stringify(p)}: ${lentObject(i)}`).join(", ")} };`,
            `    const cachedData = ${cached}?.("cold");`,
            '    const run = new Script(readFileSync(file, "latin1"), { filename: file, cachedData }).runInThisContext();',
            `    roots = run(require, __dirname, ${importChunk}, lent);`,
            "  }",
            "  return roots[path];",
            "}",
          ].join("\n"),
          loader: "js",
          resolveDir: resolve("."),
        };
      });
    },
  };
}

/** The export names of each module in `paths` (esbuild reads them without bundling). */
export async function exportNames(build, paths) {
  for (const p of paths)
    if (/^export \*/m.test(readFileSync(p, "utf8")))
      throw new Error(`${p} re-exports with export *: name its exports, the cold chunk borrows them by name`);
  const result = await build({
    entryPoints: paths,
    bundle: false,
    write: false,
    format: "esm",
    outdir: "out",
    metafile: true,
    logLevel: "silent",
  });
  const names = new Map();
  for (const output of Object.values(result.metafile.outputs))
    if (output.entryPoint) names.set(output.entryPoint, output.exports);
  return new Map(paths.map((p) => [p, names.get(p) ?? []]));
}

/** For the cold chunk: its entry, which gives each root's module by path. */
export const coldEntry = {
  name: "cold-entry",
  setup(build) {
    build.onResolve({ filter: /^kanon-cold-entry$/ }, () => ({
      path: "entry",
      namespace: "kanon-cold-entry",
    }));
    build.onLoad({ filter: /.*/, namespace: "kanon-cold-entry" }, () => ({
      contents: [
        ...COLD_ROOTS.map((p, i) => `import * as c${i} from ${JSON.stringify(resolve(p))};`),
        `export const roots = { ${COLD_ROOTS.map((p, i) => `${JSON.stringify(p)}: c${i}`).join(", ")} };`,
      ].join("\n"),
      loader: "js",
      resolveDir: resolve("."),
    }));
  },
};

/** The cold chunk's wrapper: a function of the bundle's require, __dirname, import() and lent modules. */
export const coldWrapper = (importChunk) => ({
  banner: `(function (require, __dirname, ${importChunk}, ${LENT}) {\nconst module = { exports: {} }, exports = module.exports;`,
  footer: "return module.exports.roots;\n})",
});

/**
 * For the cold chunk: a module the bundle has (`hot`: the bundle's inputs) becomes a stub that reads
 * the bundle's copy, lent when the chunk runs. `lent` collects their paths, for the bundle's side.
 */
export function borrowHot({ hot, lent }) {
  return {
    name: "borrow-hot",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        // (A plugin's own resolve, this one's or another's, is answered by esbuild.)
        if (args.pluginData !== undefined) return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "borrow-hot",
        });
        if (found.errors.length > 0 || found.external || found.namespace !== "file") return undefined;
        const path = rel(found.path);
        if (!hot.has(path)) return undefined;
        lent.add(path);
        // (.cjs: esbuild reads a .mjs path as an ES module, whatever the stub says.)
        return { path: `${path}.cjs`, namespace: "kanon-hot", pluginData: path };
      });
      build.onLoad({ filter: /.*/, namespace: "kanon-hot" }, (args) => ({
        contents: `module.exports = ${LENT}[${JSON.stringify(args.pluginData)}];`,
        loader: "js",
      }));
    },
  };
}
