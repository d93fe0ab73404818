// Builds dist/ with esbuild, in one step per output:
//   kanon.js       the executable: every command, one CommonJS bundle (a module loaded with import()
//                  runs its top level when first imported: esbuild wraps it)
//   kanon-ui.mjs   kanon ui's terminal UI (Ink, React), loaded by import() from kanon ui only; an ES
//                  module because Ink has top-level awaits (for React's devtools). It holds no kanon
//                  module but its model and view: the command hands it the CLI bundle's
//                  (src/cli/ui/host.ts).
//   kanon-docs.mjs `npm run docs` (not part of the package's commands)
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { rawText } from "./esbuild-text.mjs";

await rm("dist", { recursive: true, force: true });
await mkdir("dist");
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  minify: true,
  legalComments: "none",
  // React's production build (its development build is large and slow).
  define: {
    __KANON_VERSION__: JSON.stringify(pkg.version),
    "process.env.NODE_ENV": '"production"',
  },
  logLevel: "warning",
  // Prefer ESM builds: jsonc-parser's UMD build loads its modules with a dynamic require().
  mainFields: ["module", "main"],
  plugins: [rawText],
};
// An ES module bundle gets a require() for the CommonJS dependencies that load Node built-ins.
const esmRequire =
  "import { createRequire as __kanonRequire } from 'node:module'; const require = __kanonRequire(import.meta.url);";

// kanon ui's import() of its screen loads the UI bundle, outside the CLI's.
const uiChunk = {
  name: "ui-chunk",
  setup(build) {
    build.onResolve({ filter: /\/ui\/app\.js$/ }, () => ({ path: "./kanon-ui.mjs", external: true }));
  },
};

// Ink's layout engine (yoga-layout) instantiates its WebAssembly by fetch() of a data: URL, which loads
// Node's fetch (undici) and decodes the URL. Its Emscripten loader takes an instantiateWasm hook: one
// that instantiates synchronously from the bytes (moved from the data: URL into the hook) leaves the
// engine ready when the loader returns.
// Measured (import of the UI chunk alone, Node 20.20): 1,300 M -> 1,159 M instructions (valgrind),
// 360 -> 280 ms CPU (median of 9).
const yogaSync = {
  name: "yoga-sync",
  setup(build) {
    const binary = async (path) => {
      const text = await readFile(path, "utf8");
      const url = /"data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)"/.exec(text);
      if (!url || !text.includes("h.instantiateWasm(") || !text.includes("import.meta.url"))
        throw new Error(`yoga-sync: ${path} is not the loader this plugin knows`);
      return { text, url: url[0], base64: url[1] };
    };
    build.onLoad({ filter: /[/\\]yoga-layout[/\\]dist[/\\]binaries[/\\][^/\\]+\.js$/ }, async (args) => {
      const { text, url } = await binary(args.path);
      const contents = text
        .replace(url, '"data:application/octet-stream;base64,"')
        .replace("import.meta.url", "undefined");
      return { contents, loader: "js" };
    });
    build.onLoad({ filter: /[/\\]yoga-layout[/\\]dist[/\\]src[/\\]index\.js$/ }, async (args) => {
      const loader = "../binaries/yoga-wasm-base64-esm.js";
      const { base64 } = await binary(join(dirname(args.path), loader));
      const contents = `import loadYoga from "${loader}";
import wrapAssembly from "./wrapAssembly.js";
const yoga = {
  instantiateWasm(imports, done) {
    const bytes = Buffer.from("${base64}", "base64");
    done(new WebAssembly.Instance(new WebAssembly.Module(bytes), imports));
    return {};
  },
};
loadYoga(yoga);
export default wrapAssembly(yoga);
export * from "./generated/YGEnums.js";
`;
      return { contents, resolveDir: dirname(args.path), loader: "js" };
    });
  },
};

// Ink connects to React's devtools when DEV=true is set; kanon does not ship them, so that module is empty.
const noInkDevtools = {
  name: "no-ink-devtools",
  setup(build) {
    build.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[/\\]node_modules[/\\]ink[/\\]/.test(args.importer)
        ? { path: "ink-devtools", namespace: "empty" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

await Promise.all([
  build({
    ...common,
    // CommonJS: Node starts a CommonJS entry faster than an ES module one.
    format: "cjs",
    entryPoints: ["src/cli/bin.ts"],
    outfile: "dist/kanon.js",
    plugins: [...common.plugins, uiChunk],
    banner: { js: "#!/usr/bin/env node" },
  }),
  build({
    ...common,
    format: "esm",
    entryPoints: ["src/cli/ui/app.tsx"],
    outfile: "dist/kanon-ui.mjs",
    banner: { js: esmRequire },
    plugins: [...common.plugins, noInkDevtools, yogaSync],
  }),
  build({
    ...common,
    format: "esm",
    minify: false,
    entryPoints: ["src/docs/cli.ts"],
    outfile: "dist/kanon-docs.mjs",
    banner: { js: esmRequire },
  }),
]);
// dist/ is CommonJS (the root package is ESM).
await writeFile("dist/package.json", '{ "type": "commonjs" }\n');
await chmod("dist/kanon.js", 0o755);
