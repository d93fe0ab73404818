// `import text from "./file?raw"` gives the file's text, as in Vite (and so in vitest): the OpenCode
// plugin runtime is one source file that the bundle carries as a string.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";

export const rawText = {
  name: "raw-text",
  setup(build) {
    build.onResolve({ filter: /\?raw$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.slice(0, -"?raw".length)),
      namespace: "raw-text",
    }));
    build.onLoad({ filter: /.*/, namespace: "raw-text" }, async (args) => ({
      contents: await readFile(args.path, "utf8"),
      loader: "text",
    }));
  },
};
