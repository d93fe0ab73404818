/**
 * `kanon schema`: the JSON Schema of kanon.yaml, for editors (yaml-language-server and others);
 * `--envelope`: that of the stdin a hook with envelope: neutral reads; `--command`, `--subagent`:
 * that of a command's or subagent's front matter.
 */
import { AGENT_IDS, AGENTS } from "../../agents/index.js";
import { envelopeSchema, replySchema } from "../../core/hooks/envelope.js";
import { NEUTRAL_EVENTS } from "../../core/hooks/vocabulary.js";
import { mcpFieldAgents } from "../../core/mcp.js";
import { KanonError } from "../../model/types.js";
import { commandFrontMatter, kanonSchema, subagentFrontMatter, toJsonSchema } from "../../source/schema.js";
import { type Io, out } from "../context.js";

export function schemaCommand(
  opts: { envelope?: boolean; command?: boolean; subagent?: boolean },
  io: Io,
): void {
  const chosen = (["envelope", "command", "subagent"] as const).filter((k) => opts[k]);
  if (chosen.length > 1) throw new KanonError(`use only one of ${chosen.map((k) => `--${k}`).join(" or ")}`);
  if (opts.command || opts.subagent) {
    const front = (opts.command ? commandFrontMatter : subagentFrontMatter)([...AGENT_IDS]);
    out(io, `${JSON.stringify(toJsonSchema(front), null, 2)}\n`);
    return;
  }
  const schema = opts.envelope
    ? {
        ...envelopeSchema(
          NEUTRAL_EVENTS.map((e) => e.name),
          AGENT_IDS,
        ),
        $defs: { reply: replySchema() },
      }
    : toJsonSchema(
        kanonSchema(
          [...AGENT_IDS],
          NEUTRAL_EVENTS.map((e) => e.name),
          mcpFieldAgents(AGENTS),
        ),
      );
  out(io, `${JSON.stringify(schema, null, 2)}\n`);
}
