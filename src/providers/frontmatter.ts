/**
 * The `name:` rewrite of a provider skill's SKILL.md (reference §4.3): the frontmatter is parsed, `name`
 * is set to the render name, and the mapping is written back the way the Go original writes it (yaml.v3:
 * keys in Go's sort order, 4-space indentation, `---` as the closing line even when the source used
 * `...`). The body after the frontmatter is kept byte for byte.
 */
import { trimSpace } from "../model/text.js";
import { KanonError } from "../model/types.js";
import { encodeGoYaml, GoYamlError } from "./goyaml.js";
import { decodeGoYamlMap } from "./goyaml-decode.js";

/** Go's strings.SplitAfter(s, "\n"). */
function splitAfterNewline(s: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", start)) {
    parts.push(s.slice(start, i + 1));
    start = i + 1;
  }
  parts.push(s.slice(start));
  return parts;
}

export function rewriteSkillName(skillMd: string, renderName: string): string {
  const fail = (why: string) => new KanonError(`skill "${renderName}" SKILL.md: ${why}`);
  const lines = splitAfterNewline(skillMd);
  const first = lines[0]!;
  if (trimSpace(first) !== "---") throw fail("missing YAML frontmatter");
  let offset = first.length;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = trimSpace(line);
    if (trimmed !== "---" && trimmed !== "...") {
      offset += line.length;
      continue;
    }
    let encoded: string;
    try {
      const frontmatter = decodeGoYamlMap(skillMd.slice(first.length, offset));
      frontmatter.entries = frontmatter.entries.filter(([key]) => key !== "name");
      frontmatter.entries.push(["name", renderName]);
      encoded = encodeGoYaml(frontmatter, 4);
    } catch (e) {
      if (e instanceof GoYamlError) throw fail(`yaml: ${e.message}`);
      throw e;
    }
    return `---\n${encoded}---\n${skillMd.slice(offset + line.length)}`;
  }
  throw fail("unterminated YAML frontmatter");
}

/**
 * The same rewrite on file bytes: the body after the frontmatter is kept byte for byte even when it is
 * not valid UTF-8 (only the frontmatter is decoded).
 */
export function rewriteSkillNameBytes(skillMd: Uint8Array, renderName: string): Uint8Array {
  const bytes = Buffer.from(skillMd.buffer, skillMd.byteOffset, skillMd.byteLength);
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return Buffer.from(rewriteSkillName(text, renderName), "utf8");
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  // Not UTF-8: find the closing line on bytes (every marker is ASCII), rewrite the head, append the body.
  let end = -1;
  for (let start = 0, i = 0; start <= bytes.length; start = i + 1, i = start) {
    while (i < bytes.length && bytes[i] !== 0x0a) i++;
    if (start > 0) {
      const line = trimSpace(bytes.subarray(start, i).toString("latin1"));
      if (line === "---" || line === "...") {
        end = Math.min(i + 1, bytes.length);
        break;
      }
    }
    if (i >= bytes.length) break;
  }
  if (end < 0) return Buffer.from(rewriteSkillName(bytes.toString("utf8"), renderName), "utf8");
  const head = rewriteSkillName(bytes.subarray(0, end).toString("utf8"), renderName);
  return Buffer.concat([Buffer.from(head, "utf8"), bytes.subarray(end)]);
}
