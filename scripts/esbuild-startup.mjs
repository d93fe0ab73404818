// Start-up work the bundle skips: a small command (`kanon diff`) takes little more time than Node's own
// start, so a few milliseconds of work that the command does not need are worth removing at build time.

// Node compiles a built-in module's JavaScript when it is first required, and some cost several
// milliseconds: node:child_process (with net and dgram) and node:crypto; node:os a little less.
// commander and the git runner require child_process at their top level, the ownership record and
// the providers require crypto, and the CLI asks os for the home directory only when HOME is unset.
// In the bundle these modules become stand-ins that export the functions kanon uses and require the
// real module on the first call. A stand-in lists its functions by name: importing any other name
// fails the build (esbuild: "No matching export"), so a new use is never undefined at run time.
const LAZY = {
  "node:child_process": ["spawn"],
  "node:crypto": ["createHash", "randomBytes"],
  "node:os": ["homedir", "hostname"],
};
const lazyIds = new RegExp(
  `^(?:node:)?(?:${Object.keys(LAZY)
    .map((id) => id.slice("node:".length))
    .join("|")})$`,
);

// node:fs/promises loads its FileHandle machinery with readline, watchers and directory streams, and
// its first call starts libuv's four worker threads. kanon uses only functions whose synchronous form
// in node:fs (loaded with Node itself) gives the same result and the same errors, and a command waits
// for its files anyway: in the bundle these functions run synchronously and return a promise.
const FS_PROMISES = [
  "lstat",
  "mkdir",
  "mkdtemp",
  "readFile",
  "readdir",
  "rename",
  "rm",
  "rmdir",
  "stat",
  "writeFile",
];
// (Named imports: a namespace import would copy every export of node:fs into a getter, 50 KB a run.)
const FS_PROMISES_STAND_IN = [
  `import { ${FS_PROMISES.map((f) => `${f}Sync`).join(", ")} } from "node:fs";`,
  ...FS_PROMISES.map((f) => `export const ${f} = async (...args) => ${f}Sync(...args);`),
].join("\n");

export const standIns = {
  name: "start-up-stand-ins",
  setup(build) {
    build.onResolve({ filter: lazyIds }, (args) =>
      // The stand-in's own require of the real module stays a require.
      args.namespace === "lazy-builtin"
        ? { path: args.path, external: true }
        : { path: `node:${args.path.replace(/^node:/, "")}`, namespace: "lazy-builtin" },
    );
    build.onResolve({ filter: /^(?:node:)?fs\/promises$/ }, () => ({
      path: "fs/promises",
      namespace: "fs-promises",
    }));
    build.onLoad({ filter: /.*/, namespace: "fs-promises" }, () => ({
      contents: FS_PROMISES_STAND_IN,
      loader: "js",
      resolveDir: ".",
    }));
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => ({
      contents: [
        "let real;",
        `const load = () => (real ??= require(${JSON.stringify(args.path)}));`,
        ...LAZY[args.path].map((f) => `export function ${f}(...args) { return load().${f}(...args); }`),
      ].join("\n"),
      loader: "js",
      resolveDir: ".",
    }));
  },
};

// jsonc-parser's formatter interns its indentation strings in tables it fills when the module loads:
// 1,200 strings (~270 KB) on every run, which also brings the first garbage collection forward. Here
// each table entry is made on first use, with the same value; `length` is the same, so the formatter's
// choice between a table entry and its own repeat() is unchanged.
const JSONC_INTERN = /[\\/]jsonc-parser[\\/]lib[\\/]esm[\\/]impl[\\/]string-intern\.js$/;
export const LAZY_INTERN = `
const table = (length, make) =>
  new Proxy(new Array(length), {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\\d+$/.test(key) && Number(key) < length)
        return (target[key] ??= make(Number(key)));
      return Reflect.get(target, key, receiver);
    },
  });
const maxCachedValues = 200;
const lines = (indent) => ({
  "\\n": table(maxCachedValues, (n) => "\\n" + indent.repeat(n)),
  "\\r": table(maxCachedValues, (n) => "\\r" + indent.repeat(n)),
  "\\r\\n": table(maxCachedValues, (n) => "\\r\\n" + indent.repeat(n)),
});
export const cachedSpaces = table(20, (n) => " ".repeat(n));
export const cachedBreakLinesWithSpaces = { " ": lines(" "), "\\t": lines("\\t") };
export const supportedEols = ["\\n", "\\r", "\\r\\n"];
`;

export const lazyJsoncIntern = {
  name: "lazy-jsonc-intern",
  setup(build) {
    build.onLoad({ filter: JSONC_INTERN }, () => ({ contents: LAZY_INTERN, loader: "js" }));
  },
};
