/** The reverse maps import uses: tool IDs, quoted command lines, readable names, the secret scan. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kimiManifest } from "../../src/agents/kimi/manifest.js";
import { opencodeHooks } from "../../src/agents/opencode/hooks.js";
import { readNames, writeNames } from "../../src/core/hooks/matcher.js";
import { commandLine, protectFromExpansion, unprotectExpansion } from "../../src/core/hooks/quote.js";
import { ownerLabel } from "../../src/formats/toml.js";
import { nameFromCommand, neutralToolNames, splitCommandLine } from "../../src/import/hooks.js";
import { secretWarnings } from "../../src/import/secrets.js";

describe("neutralToolNames", () => {
  const tools = opencodeHooks.tools;
  it("maps OpenCode tool IDs back to the neutral names they were translated from", () => {
    expect(neutralToolNames(["bash", "shell"], tools)).toEqual(["Bash"]);
    expect(neutralToolNames(["edit", "apply_patch", "patch", "write"], tools)).toEqual(["Edit", "Write"]);
    expect(neutralToolNames(["write", "apply_patch", "patch", "edit"], tools)).toEqual(["Write", "Edit"]);
    expect(neutralToolNames(["task", "subagent", "mcp__x__y"], tools)).toEqual(["Agent", "mcp__x__y"]);
  });
  it("keeps names no neutral tool maps to, and has no answer for a half translation", () => {
    expect(neutralToolNames(["bash"], tools)).toEqual(["bash"]);
    expect(neutralToolNames(["Bash"], tools)).toBeNull();
  });
});

describe("splitCommandLine", () => {
  it("is the inverse of the POSIX-quoted command line (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (argv) => {
        expect(splitCommandLine(commandLine(argv))).toEqual(argv);
      }),
    );
  });
  it("refuses anything that is not only quoted words", () => {
    for (const s of ["guard --x", "'a' b", "'a'  'b'", "'a", "", "'a' "])
      expect(splitCommandLine(s)).toBeNull();
  });
});

describe("nameFromCommand", () => {
  it("names a hook after its program, not its interpreter", () => {
    const name = (command: string, args?: string[]) =>
      nameFromCommand({ name: "", event: "PreToolUse", command, ...(args ? { args } : {}) });
    expect(name("/usr/local/bin/guard --deny x")).toBe("guard");
    expect(name("npx prettier --write")).toBe("prettier");
    expect(name("FOO=1 bash -c ~/hooks/Lint_Check.sh")).toBe("lint-check");
    expect(name("python3", ["/opt/audit.py"])).toBe("audit");
    expect(name("")).toBe("pre-tool-use");
  });
});

describe("secretWarnings", () => {
  it("flags secret-looking keys and values, never references or variable names", () => {
    const doc = {
      env: { API_KEY: "plain", TOKEN: "${TOKEN}", OTHER: "sk-abc", REF: "op://vault/x" },
      headers: { Authorization: "{env:AUTH}", Cookie: "c=1" },
      env_http_headers: { "X-Api-Key": "API_KEY_VAR" },
      bearer_token_env_var: "MY_TOKEN",
      claudeCodeFirstTokenDate: "2026-01-01",
      list: ["ghp_x"],
    };
    expect(secretWarnings(doc, "codex.config")).toEqual([
      "kept possible plaintext secret at codex.config.env.API_KEY because secret policy is keep",
      "kept possible plaintext secret at codex.config.env.OTHER because secret policy is keep",
      "kept possible plaintext secret at codex.config.headers.Cookie because secret policy is keep",
      "kept possible plaintext secret at codex.config.list[0] because secret policy is keep",
    ]);
  });
});

describe("readNames (an anchored list a regex-only dialect got)", () => {
  const dialect = kimiManifest.hooks.matcher;
  it("is the inverse of writeNames (property)", () => {
    const name = fc.string({ minLength: 1, maxLength: 8 }).filter((n) => !n.includes("|"));
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), (names) => {
        expect(readNames(writeNames(names, dialect), dialect)).toEqual(names);
      }),
    );
    expect(readNames("^(?:mcp__a\\-b__c|Bash)$", dialect)).toEqual(["mcp__a-b__c", "Bash"]);
  });
  it("has no answer for other regexes or for dialects with lists", () => {
    for (const text of ["Bash", "^Bash$", "^(?:Ba.*)$", "^(?:a||b)$", "^(?:a)$x", "^(?:a\\d)$"])
      expect(readNames(text, dialect)).toBeNull();
    expect(readNames("^(?:Bash)$", { ...dialect, listSeparators: ["|"] })).toBeNull();
  });
});

describe("unprotectExpansion (Gemini CLI's settings loader)", () => {
  it("gives back the command protectFromExpansion was given whenever protecting it again gives the text found (property)", () => {
    const part = fc.constantFrom(
      "$HOME",
      "${X:-d}",
      "'$Y'",
      '"$Z"',
      "\\$W",
      '"\\$V"',
      "$1",
      "echo ",
      " ",
      "$$",
      "'",
      '"',
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
        const command = parts.join("");
        const p = protectFromExpansion(command);
        if (!("command" in p)) return;
        const back = unprotectExpansion(p.command);
        // Import keeps the joined text only when protecting it again gives back the text it found.
        const again = protectFromExpansion(back);
        if ("command" in again && again.command === p.command) expect(back).toBe(command);
      }),
    );
  });

  it("joins a $ that needed no protecting too, which protecting again tells apart", () => {
    // `$$""echo` holds no $NAME, so it is rendered as it is; joined, it reads `$$echo`, which is not
    // what kanon would have rendered for it: import keeps the text found.
    const command = '$$""echo hi';
    expect(protectFromExpansion(command)).toEqual({ command });
    expect(unprotectExpansion(command)).toBe("$$echo hi");
    expect(protectFromExpansion("$$echo hi")).not.toEqual({ command });
    const p = protectFromExpansion("a $HOME 'b$X'");
    expect("command" in p && unprotectExpansion(p.command)).toBe("a $HOME 'b$X'");
  });
});

describe("ownerLabel (kanon's [[hooks]] tables in Kimi's config.toml)", () => {
  it("reads the label of a marked header line and nothing else", () => {
    expect(ownerLabel("]] # kanon: guard rm\n", "kanon")).toBe("guard rm");
    expect(ownerLabel("]] #kanon\r\n", "kanon")).toBe("");
    expect(ownerLabel("]]\n", "kanon")).toBeNull();
    expect(ownerLabel("]] # kanonical\n", "kanon")).toBeNull();
    expect(ownerLabel("]] # mine\n", "kanon")).toBeNull();
  });
});
