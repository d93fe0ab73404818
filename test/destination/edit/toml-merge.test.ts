// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { describe, expect, it } from "vitest";
import { mergeCoOwned } from "../../../src/destination/edit/index.js";
import { encodeToml, encodeTomlTable } from "../../../src/formats/toml.js";
import type { PlainObject } from "../../../src/formats/values.js";
import { KanonError, type MergeSpec } from "../../../src/model/types.js";
import { fixture, mergeChecked, parseAny, replaceOnce } from "./support.js";

const codex: MergeSpec = { kind: "entries", format: "toml", key: "mcp_servers" };
const github = {
  command: "github-mcp",
  args: ["stdio"],
  env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" },
  startup_timeout_sec: 20,
};

describe("Codex config.toml (mcp_servers by name)", () => {
  const existing = fixture("codex-config.toml");

  it("changes only the values of a server that change, quoted like the server's other strings", () => {
    const result = mergeChecked(existing, codex, { mcp_servers: { github } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
startup_timeout_sec = 20
# token comes from the shell
`,
        `command = "github-mcp"
args = ["stdio"]
startup_timeout_sec = 20
# token comes from the shell
`,
      ),
    );
  });

  it("adds and removes keys inside a server's table, leaving its other lines alone", () => {
    const text =
      '[mcp_servers.github]\n# mine\ncommand = "c" # why\nstartup_timeout_sec = 5\n\n[other]\nx = 1\n';
    expect(mergeChecked(text, codex, { mcp_servers: { github: { command: "c", args: ["a"] } } })).toBe(
      '[mcp_servers.github]\n# mine\ncommand = "c" # why\nargs = ["a"]\n\n[other]\nx = 1\n',
    );
  });

  it("gives a server written only as sub-tables its own header before them, and edits those", () => {
    const playwright = {
      command: "npx",
      args: ["@playwright/mcp"],
      tools: { browser_navigate: { approval: "auto" } },
    };
    const result = mergeChecked(existing, codex, { mcp_servers: { playwright } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `[mcp_servers.playwright.tools.browser_navigate]
approval = "auto"

[mcp_servers.playwright.tools.browser_click]
approval = "prompt"
`,
        `[mcp_servers.playwright]
args = ["@playwright/mcp"]
command = "npx"

[mcp_servers.playwright.tools.browser_navigate]
approval = "auto"
`,
      ),
    );
    expect(result).toContain(
      "# Playwright only has per-tool settings, so it is written as sub-tables.\n[mcp_servers.playwright]\n",
    );
  });

  it("adds a new server after the last mcp_servers table", () => {
    const context = { command: "context-server", args: ["--stdio"], env: { PLAIN: "it's" } };
    const result = mergeChecked(existing, codex, { mcp_servers: { context } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `  "/home/dev/data/app.db",
]
`,
        `  "/home/dev/data/app.db",
]

[mcp_servers.context]
args = ['--stdio']
command = 'context-server'

[mcp_servers.context.env]
PLAIN = "it's"
`,
      ),
    );
  });

  it("changes one server and adds two in one merge", () => {
    const a = { command: "a" };
    const b = { url: "https://b.example.com/mcp" };
    const result = mergeChecked(existing, codex, { mcp_servers: { github, b, a } });
    const withGithub = mergeCoOwned(existing, codex, { mcp_servers: { github } }, "config.toml");
    expect(result).toBe(
      replaceOnce(
        withGithub,
        '"/home/dev/data/app.db",\n]\n',
        `"/home/dev/data/app.db",\n]\n\n${encodeTomlTable(["mcp_servers", "a"], a)}\n${encodeTomlTable(["mcp_servers", "b"], b)}`,
      ),
    );
  });

  it("returns the very same string when the servers already match, whatever their quoting", () => {
    const docs = { bearer_token_env_var: "DOCS_TOKEN", url: "https://docs.example.com/mcp" };
    const sqlite = { command: "uvx", args: ["mcp-server-sqlite", "--db-path", "/home/dev/data/app.db"] };
    expect(mergeCoOwned(existing, codex, { mcp_servers: { docs, sqlite } }, "config.toml")).toBe(existing);
  });
});

describe("a hand-written config.toml: only the keys whose value changes change", () => {
  const hand = fixture("codex-hand.toml");
  const current = parseAny(hand, "toml").mcp_servers as Record<string, PlainObject>;
  const search = current.search!;
  const merge = (servers: PlainObject) => mergeChecked(hand, codex, { mcp_servers: servers });

  it("writes a ${VAR} env entry as env_vars: the env table goes, env_vars joins the server's keys", () => {
    const github = { command: "github-mcp", args: ["--stdio"], env_vars: ["GITHUB_TOKEN"] };
    expect(merge({ github })).toBe(
      replaceOnce(
        hand,
        'args = ["--stdio"]\n\n[mcp_servers.github.env]\nGITHUB_TOKEN = "${GITHUB_TOKEN}"\n',
        'args = ["--stdio"]\nenv_vars = ["GITHUB_TOKEN"]\n',
      ),
    );
  });

  it("replaces only the bytes of a value that changes: a multi-line array", () => {
    const args = ["-y", "@acme/search-mcp", "--verbose"];
    expect(merge({ search: { ...search, args } })).toBe(
      replaceOnce(
        hand,
        '[\n    "-y",          # install on demand\n    "@acme/search-mcp",\n]',
        '["-y", "@acme/search-mcp", "--verbose"]',
      ),
    );
  });

  it("edits a member of an inline table, and takes one out with its comma", () => {
    const env = search.env as PlainObject;
    expect(merge({ search: { ...search, env: { ...env, SEARCH_DEBUG: "1" } } })).toBe(
      replaceOnce(hand, 'SEARCH_DEBUG = "0"', 'SEARCH_DEBUG = "1"'),
    );
    expect(merge({ search: { ...search, env: { SEARCH_REGION: "eu" } } })).toBe(
      replaceOnce(hand, '{ SEARCH_REGION = "eu", SEARCH_DEBUG = "0" }', '{ SEARCH_REGION = "eu" }'),
    );
  });

  it("edits a dotted key where it is and adds a new key after the table's last one", () => {
    const tools = { search: { approval_mode: "prompt" } };
    expect(merge({ search: { ...search, tools, enabled_tools: ["search"] } })).toBe(
      replaceOnce(
        hand,
        'tools.search.approval_mode = "auto"\nstartup_timeout_sec   =   30\n',
        'tools.search.approval_mode = "prompt"\nstartup_timeout_sec   =   30\nenabled_tools = ["search"]\n',
      ),
    );
  });

  it("takes a dotted key out with its line, quoting what it adds like the server's strings", () => {
    const notes = { command: "notes-mcp", env: { NOTES_DIR: "/home/dev/notes" }, env_vars: ["NOTES_TOKEN"] };
    expect(merge({ notes })).toBe(
      replaceOnce(hand, "env.NOTES_TOKEN = '${NOTES_TOKEN}'\n", "env_vars = ['NOTES_TOKEN']\n"),
    );
  });

  it("returns the very same text for the same values, however they are spelt", () => {
    expect(mergeCoOwned(hand, codex, { mcp_servers: current }, "config.toml")).toBe(hand);
  });
});

describe("other legal forms of a server", () => {
  const forms = fixture("codex-forms.toml");

  it("edits top-level dotted keys where they are, and adds new ones beside them", () => {
    const dotted = { command: "dotted-server", args: ["--port", "9001"] };
    const result = mergeChecked(forms, codex, { mcp_servers: { dotted } });
    expect(result).toBe(replaceOnce(forms, '["--port", "9000"]', '["--port", "9001"]'));
    const more = { command: "dotted-server", env: { A: "1" }, startup_timeout_sec: 5 };
    expect(mergeChecked(forms, codex, { mcp_servers: { dotted: more } })).toBe(
      replaceOnce(
        forms,
        `mcp_servers.dotted.args = ["--port", "9000"]   # dotted keys at the top level
`,
        `mcp_servers.dotted.env = {A = "1"}
mcp_servers.dotted.startup_timeout_sec = 5
`,
      ),
    );
  });

  it("adds a server after the last table when mcp_servers also has dotted keys, without a [mcp_servers] header", () => {
    const result = mergeChecked(forms, codex, { mcp_servers: { fresh: { command: "f" } } });
    expect(result).toBe(`${forms}\n[mcp_servers.fresh]\ncommand = 'f'\n`);
  });

  it("edits a key of a table's sub-table, and only that key", () => {
    const inline = { command: "inline-server", env: { MODE: "dev" } };
    const result = mergeChecked(forms, codex, { mcp_servers: { inline } });
    expect(result).toBe(
      replaceOnce(
        forms,
        "[mcp_servers.inline]\ncommand = \"inline-server\"\n\n[mcp_servers.inline.env]\nMODE = 'prod'\n",
        '[mcp_servers.inline]\ncommand = "inline-server"\n\n[mcp_servers.inline.env]\nMODE = "dev"\n',
      ),
    );
  });

  it("edits an inline table under [mcp_servers] member by member and adds new servers as tables", () => {
    const text =
      '[mcp_servers]\ngithub = { command = "x" } # mine\nother = { command = "o" }\n\n[profiles.a]\nm = 1\n';
    const result = mergeChecked(text, codex, {
      mcp_servers: { github: { command: "y", args: [] }, zz: { url: "u" } },
    });
    expect(result).toBe(
      '[mcp_servers]\ngithub = { command = "y", args = [] } # mine\nother = { command = "o" }\n\n[mcp_servers.zz]\nurl = \'u\'\n\n[profiles.a]\nm = 1\n',
    );
  });

  it("edits inside a top-level mcp_servers inline table", () => {
    const text = 'mcp_servers = { other = { command = "o" }, github = { command = "x" } }\n';
    const result = mergeChecked(text, codex, {
      mcp_servers: { github: { command: "y" }, new: { command: "n" } },
    });
    expect(result).toBe(
      'mcp_servers = { other = { command = "o" }, github = { command = "y" }, new = {command = "n"} }\n',
    );
    expect(mergeChecked("mcp_servers = {}\n", codex, { mcp_servers: { a: { b: 1 } } })).toBe(
      "mcp_servers = {a = {b = 1}}\n",
    );
  });

  it("edits a server spread over dotted keys inside an inline table member by member", () => {
    const text = 'mcp_servers = { github.command = "x", keep = {}, github.args = ["a"] }\n';
    expect(mergeChecked(text, codex, { mcp_servers: { github: { command: "y" } } })).toBe(
      'mcp_servers = { github.command = "y", keep = {} }\n',
    );
    expect(mergeChecked(text, codex, { mcp_servers: { github: { command: "x", env: { A: "1" } } } })).toBe(
      'mcp_servers = { github.command = "x", keep = {}, github.env = {A = "1"} }\n',
    );
  });

  it("edits dotted keys under [mcp_servers] and a sub-table defined elsewhere, each where it is", () => {
    const text =
      '[mcp_servers]\ngithub.command = "x"\nother.command = "o"\n\n[mcp_servers.github.env]\nA = "1"\n';
    const result = mergeChecked(text, codex, {
      mcp_servers: { github: { command: "y", args: ["a"], env: { A: "2" } } },
    });
    expect(result).toBe(
      '[mcp_servers]\ngithub.command = "y"\ngithub.args = ["a"]\nother.command = "o"\n\n[mcp_servers.github.env]\nA = "2"\n',
    );
  });

  it("edits a server whose tables are spread around the file where each one is", () => {
    const text =
      '[mcp_servers.github.env]\nA = "1"\n\n[profiles.a]\nx = 1\n\n[mcp_servers.github]\ncommand = "c"\n\n[projects.b]\ny = 2\n';
    const server = { command: "d", env: { A: "1" } };
    expect(mergeChecked(text, codex, { mcp_servers: { github: server } })).toBe(
      text.replace('command = "c"', 'command = "d"'),
    );
  });

  it("adds a new sub-table after the server's last table, wherever its tables are", () => {
    const text =
      '[mcp_servers.github.env]\nA = "1"\n\n[profiles.a]\nx = 1\n\n[mcp_servers.github]\ncommand = "c"\n\n[projects.b]\ny = 2\n';
    const server = { command: "d", env: { A: "1" }, tools: { t: { approval: "auto" } } };
    expect(mergeChecked(text, codex, { mcp_servers: { github: server } })).toBe(
      replaceOnce(
        text,
        '[mcp_servers.github]\ncommand = "c"\n',
        '[mcp_servers.github]\ncommand = "d"\n\n[mcp_servers.github.tools]\n[mcp_servers.github.tools.t]\napproval = "auto"\n',
      ),
    );
  });

  it("removes a server kanon wrote before, in each of its forms", () => {
    const tables =
      "[mcp_servers.old]\ncommand = 'o'\n\n[mcp_servers.old.env]\nA = '1'\n\n[mcp_servers.mine]\ncommand = 'm'\n";
    expect(mergeCoOwned(tables, codex, { mcp_servers: {} }, "c.toml", ["old"])).toBe(
      "[mcp_servers.mine]\ncommand = 'm'\n",
    );
    const inline = "[mcp_servers]\nold = { command = 'o' }\nmine = { command = 'm' }\n";
    expect(mergeCoOwned(inline, codex, { mcp_servers: {} }, "c.toml", ["old"])).toBe(
      "[mcp_servers]\nmine = { command = 'm' }\n",
    );
    const parent = "mcp_servers = { old = { command = 'o' }, mine = { command = 'm' } }\n";
    expect(mergeCoOwned(parent, codex, { mcp_servers: {} }, "c.toml", ["old"])).toBe(
      "mcp_servers = { mine = { command = 'm' } }\n",
    );
    const dotted = "[mcp_servers]\nold.command = 'o'\nmine.command = 'm'\n";
    expect(mergeCoOwned(dotted, codex, { mcp_servers: {} }, "c.toml", ["old"])).toBe(
      "[mcp_servers]\nmine.command = 'm'\n",
    );
  });
});

describe("layout details", () => {
  it("adds mcp_servers at the end of a file that has none, with its header", () => {
    const text = '# mine\nmodel = "x"\n\n[profiles.a]\nmodel = "y"\n';
    const managed = { mcp_servers: { github } };
    expect(mergeChecked(text, codex, managed)).toBe(`${text}\n${encodeToml(managed)}`);
    expect(mergeChecked(`${text}\n`, codex, managed)).toBe(`${text}\n${encodeToml(managed)}`);
  });

  it("adds right under a bare [mcp_servers] header without a blank line", () => {
    const text = "[mcp_servers]\n\n[profiles.a]\nx = 1\n";
    expect(mergeChecked(text, codex, { mcp_servers: { s: { command: "c" } } })).toBe(
      "[mcp_servers]\n[mcp_servers.s]\ncommand = 'c'\n\n[profiles.a]\nx = 1\n",
    );
  });

  it("keeps CRLF line endings and a missing final newline", () => {
    const text = 'a = 1\r\n\r\n[mcp_servers.github]\r\ncommand = "c"';
    expect(mergeChecked(text, codex, { mcp_servers: { github: { command: "d", env: { K: "v" } } } })).toBe(
      'a = 1\r\n\r\n[mcp_servers.github]\r\ncommand = "d"\r\n\r\n[mcp_servers.github.env]\r\nK = "v"',
    );
    expect(mergeChecked("a = 1", codex, { mcp_servers: { s: {} } })).toBe(
      "a = 1\n\n[mcp_servers]\n[mcp_servers.s]",
    );
  });

  it("edits the table of the value kind key by key too", () => {
    const spec: MergeSpec = { kind: "value", format: "toml", key: "hooks" };
    const text = 'a = 1\n\n[hooks.state."x"]\nenabled = true\n\n[tui]\nn = 1\n';
    expect(mergeChecked(text, spec, { hooks: { state: { y: { enabled: false } } } })).toBe(
      "a = 1\n\n[hooks.state.y]\nenabled = false\n\n[tui]\nn = 1\n",
    );
    expect(mergeChecked("a = 1\n", spec, { hooks: { state: { y: { enabled: false } } } })).toBe(
      "a = 1\n\n[hooks]\n[hooks.state]\n[hooks.state.y]\nenabled = false\n",
    );
  });
});

describe("empty files and errors", () => {
  it("treats an empty or whitespace-only file as an empty document", () => {
    const managed = { mcp_servers: { github } };
    expect(mergeCoOwned("", codex, managed, "config.toml")).toBe(encodeToml(managed));
    expect(mergeCoOwned("\n \n", codex, managed, "config.toml")).toBe(encodeToml(managed));
  });

  const failures: [string, string, string][] = [
    [
      "unparsable",
      "mcp_servers = [",
      "cannot parse ~/.codex/config.toml for merge: unfinished array encountered at 1:16",
    ],
    ["bad table", "[mcp_servers.a\n", "cannot parse ~/.codex/config.toml for merge:"],
    ["not a table", "mcp_servers = 1\n", "cannot merge ~/.codex/config.toml: mcp_servers is not an object"],
    [
      "an array of tables",
      "[[mcp_servers]]\na = 1\n",
      "cannot merge ~/.codex/config.toml: mcp_servers is not an object",
    ],
    [
      "an inline array",
      'mcp_servers = ["a"]\n',
      "cannot merge ~/.codex/config.toml: mcp_servers is not an object",
    ],
  ];
  it.each(failures)("%s", (_name, text, message) => {
    const merge = () => mergeCoOwned(text, codex, { mcp_servers: { github } }, "~/.codex/config.toml");
    expect(merge).toThrow(KanonError);
    expect(merge).toThrow(message);
  });

  it("refuses a managed server that is not a table", () => {
    const merge = () => mergeCoOwned("a = 1\n", codex, { mcp_servers: { github: "x" } }, "config.toml");
    expect(merge).toThrow("cannot merge config.toml: kanon's mcp_servers.github is not a table");
  });

  it("names the file, line and column of a parse error on one line", () => {
    const merge = () => mergeCoOwned('model = "x"\n[a]\nb = \n', codex, { mcp_servers: {} }, "config.toml");
    expect(merge).toThrow(/^cannot parse config.toml for merge: [^\n]+ at 3:\d+$/);
  });
});
