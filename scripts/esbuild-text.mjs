// `import text from "./file?raw"` gives the file's text, as in Vite (and so in vitest): the OpenCode
// plugin runtime is one source file that the bundle carries as a string.
// `import text from "./entry.ts?bundle"` gives the module bundled with its imports into one script
// that sets `var __kanonBundle` to its exports (vitest.config.ts reads it the same way): kanon's
// continuity code, which the hook runner file carries (src/runner/file.ts).
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { build } from "esbuild";

/** The script `?bundle` gives: Node built-ins are `require`d, so the one who runs it provides `require`. */
export async function bundleText(path) {
  const result = await build({
    entryPoints: [path],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "iife",
    globalName: "__kanonBundle",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "warning",
  });
  return result.outputFiles[0].text;
}

export const rawText = {
  name: "raw-text",
  setup(build) {
    build.onResolve({ filter: /\?(raw|bundle)$/ }, (args) => {
      const kind = args.path.endsWith("?raw") ? "raw" : "bundle";
      return {
        path: resolve(args.resolveDir, args.path.slice(0, -`?${kind}`.length)),
        namespace: `${kind}-text`,
      };
    });
    build.onLoad({ filter: /.*/, namespace: "raw-text" }, async (args) => ({
      contents: await readFile(args.path, "utf8"),
      loader: "text",
    }));
    build.onLoad({ filter: /.*/, namespace: "bundle-text" }, async (args) => ({
      contents: await bundleText(args.path),
      loader: "text",
    }));
  },
};
