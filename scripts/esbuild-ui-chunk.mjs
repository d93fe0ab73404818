// kanon ui runs Ink, whose layout engine (yoga) loads with a top-level await: the terminal UI cannot be
// part of the CommonJS scripts every other command runs from. It is a separate ES module that holds only
// src/cli/ui/ and the packages it uses; the kanon modules it imports from outside src/cli/ui/ (pipeline,
// agents, destination, KanonError…) are lent to it when it loads by the script that imports it (the
// cold chunk, which has them or takes them from the bundle), so there is one copy of each (one
// KanonError class, one set of caches).
import { relative, resolve, sep } from "node:path";

const UI_DIR = resolve("src/cli/ui");
const SRC_DIR = resolve("src");
const UI_ENTRY = resolve(UI_DIR, "app.tsx");
const MODULES = 'globalThis[Symbol.for("kanon.modules")]';
const inside = (dir, file) => file.startsWith(dir + sep);

/**
 * For the UI chunk: every import of a kanon module outside src/cli/ui/ becomes a CommonJS stub that
 * reads the module lent by the bundle (esbuild reads named imports from it as properties, on use).
 * `borrowed` collects the modules' paths (relative to the repository), for the bundle's side.
 */
export function borrowFromBundle(borrowed) {
  return {
    name: "borrow-from-bundle",
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData === "borrow" || !inside(UI_DIR, args.importer)) return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "borrow",
        });
        // undefined: esbuild resolves the file itself (it applies tsconfig.json only to files it resolved).
        if (found.errors.length > 0 || !inside(SRC_DIR, found.path) || inside(UI_DIR, found.path))
          return undefined;
        const path = relative(".", found.path).split(sep).join("/");
        borrowed.add(path);
        return { path, namespace: "kanon-bundle" };
      });
      build.onLoad({ filter: /.*/, namespace: "kanon-bundle" }, (args) => ({
        contents: `module.exports = ${MODULES}[${JSON.stringify(args.path)}];`,
        loader: "js",
      }));
    },
  };
}

/**
 * For the CommonJS script that imports the UI (the cold chunk): the UI entry (src/cli/ui/app.tsx)
 * becomes a module that lends the borrowed
 * modules and imports the UI chunk with `importChunk` (a free name the loader binds to its own
 * import(): code run by vm.Script cannot import() by itself). `exports` are the chunk's exports, all
 * functions; each is wrapped to load the chunk on its first call.
 */
export function lendToUiChunk({ borrowed, exports, chunk, importChunk }) {
  return {
    name: "lend-to-ui-chunk",
    setup(build) {
      build.onResolve({ filter: /\/ui\/app\.js$/ }, async (args) => {
        if (args.pluginData === "lend") return undefined;
        const found = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "lend",
        });
        if (found.path !== UI_ENTRY) return undefined;
        return { path: "ui-chunk", namespace: "kanon-ui-chunk" };
      });
      build.onLoad({ filter: /.*/, namespace: "kanon-ui-chunk" }, () => {
        const paths = [...borrowed].sort();
        const lines = paths.map((p, i) => `import * as m${i} from ${JSON.stringify(resolve(p))};`);
        lines.push(
          "let chunk;",
          "function load() {",
          `  ${MODULES} = { ${paths.map((p, i) => `${JSON.stringify(p)}: m${i}`).join(", ")} };`,
          `  chunk ??= ${importChunk}(${JSON.stringify(chunk)});`,
          "  return chunk;",
          "}",
          ...exports.map(
            (name) => `export const ${name} = (...args) => load().then((m) => m.${name}(...args));`,
          ),
        );
        return { contents: lines.join("\n"), loader: "js", resolveDir: resolve(".") };
      });
    },
  };
}
