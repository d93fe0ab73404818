// The agents the suite knows. To add one, write a driver module (see types.ts) and list it here.

import { claude } from "./claude.js";
import { codex } from "./codex.js";
import { gemini } from "./gemini.js";
import { kimi } from "./kimi.js";
import { opencode } from "./opencode.js";
import type { AgentDriver } from "./types.js";

/** In start order: the slowest agent first, so that concurrent runs finish close together. */
export const drivers: readonly AgentDriver[] = [kimi, opencode, gemini, codex, claude];
