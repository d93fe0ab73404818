/**
 * `kanon schema`: the JSON Schema of kanon.yaml, for editors (yaml-language-server and others);
 * `--envelope`: that of the stdin a hook with envelope: neutral reads.
 */
import { AGENT_IDS, AGENTS } from "../../agents/index.js";
import { envelopeSchema, replySchema } from "../../core/hooks/envelope.js";
import { NEUTRAL_EVENTS } from "../../core/hooks/vocabulary.js";
import { mcpFieldAgents } from "../../core/mcp.js";
import { kanonSchema, toJsonSchema } from "../../source/schema.js";
import { type Io, out } from "../context.js";

export function schemaCommand(opts: { envelope?: boolean }, io: Io): void {
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
