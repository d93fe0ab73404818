/** Validation of `continuity:`, `stages:` and `stage_hooks:` (errors named by their place in kanon.yaml). */
import { RESERVED_STAGE_NAMES, STAGE_NAME, stageList } from "../continuity/stages.js";
import type { KanonConfig } from "../model/config.js";
import { closest } from "./did-you-mean.js";

const ON_FAILURE: readonly string[] = ["warn", "error", "ignore"];

type At = (...path: (string | number)[]) => string;

export const MAX_CHARS_RANGE = [300, 10_000] as const;

export function continuityErrors(config: KanonConfig, at: At): string[] {
  const errors: string[] = [];
  const max = config.continuity?.max_chars;
  if (max !== undefined && (max < MAX_CHARS_RANGE[0] || max > MAX_CHARS_RANGE[1]))
    errors.push(
      `${at("continuity", "max_chars")}continuity.max_chars must be between ${MAX_CHARS_RANGE[0]} and ${MAX_CHARS_RANGE[1]} (characters)`,
    );

  if (config.stages && config.stages.length === 0)
    errors.push(
      `${at("stages")}stages is empty: list at least one stage, or leave the key out for the default`,
    );
  const stages = stageList(config.stages);
  const seen = new Set<string>();
  stages.forEach((s, i) => {
    const where = at("stages", i);
    if (!STAGE_NAME.test(s.name))
      errors.push(
        `${where}stage "${s.name}": a stage name is 1 to 64 lower-case letters, digits, - or _, starting with a letter or digit`,
      );
    else if (RESERVED_STAGE_NAMES.has(s.name))
      errors.push(`${where}stage "${s.name}": the name is taken by stage hooks (on: ${s.name}:after)`);
    else if (seen.has(s.name)) errors.push(`${where}stage "${s.name}" is listed twice`);
    seen.add(s.name);
  });

  const kinds = ["*", ...stages.map((s) => s.name), ...RESERVED_STAGE_NAMES];
  (config.stage_hooks ?? []).forEach((h, i) => {
    const where = at("stage_hooks", i);
    const label = `stage hook "${h.name ?? `stage_hooks[${i}]`}"`;
    if (!h.command?.trim()) errors.push(`${where}${label} requires command`);
    if (h.timeout !== undefined && h.timeout < 1)
      errors.push(`${at("stage_hooks", i, "timeout")}${label}: timeout must be at least 1 second`);
    if (h.on_failure !== undefined && !ON_FAILURE.includes(h.on_failure))
      errors.push(
        `${at("stage_hooks", i, "on_failure")}${label}: on_failure "${h.on_failure}" is not ${ON_FAILURE.join(", ")}`,
      );
    if (!h.on) {
      errors.push(`${where}${label} requires on (e.g. plan:before, task:after, change:after)`);
      return;
    }
    const [kind = "", edge, extra] = h.on.split(":");
    const onAt = at("stage_hooks", i, "on");
    if (edge === undefined || extra !== undefined || !["before", "after", "*"].includes(edge)) {
      errors.push(`${onAt}${label}: on "${h.on}" is not <stage|task|change|*>:<before|after|*>`);
      return;
    }
    if (!kinds.includes(kind)) {
      const hint = closest(kind, kinds);
      errors.push(
        `${onAt}${label}: on "${h.on}" names no stage${hint ? ` (did you mean "${hint}"?)` : ""}; stages: ${stages.map((s) => s.name).join(", ")}`,
      );
    } else if (kind === "change" && edge === "before")
      errors.push(`${onAt}${label}: change has only an after edge (change:after fires after the last task)`);
  });
  return errors;
}
