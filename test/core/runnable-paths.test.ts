/** The files of the Kanon home a command line names: what `kanon update` reviews beside a hook. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { homePathsNamed } from "../../src/core/runnable.js";

const where = { home: "/u/.config/kanon", userHome: "/u" };

describe("homePathsNamed", () => {
  // Every other word is a path relative to the home too (`bash`, `--x`): update keeps the ones
  // that name something there.
  it("finds a path by ~, $HOME, ${HOME}, $KANON_HOME, absolute or relative to the home", () => {
    expect(
      homePathsNamed(
        [
          "~/.config/kanon/hooks/a.sh",
          'bash "$HOME/.config/kanon/hooks/b.sh" --x',
          "${HOME}/.config/kanon/c.py;echo",
          "$KANON_HOME/hooks/d.sh",
          "--config=/u/.config/kanon/conf/e.json",
          "hooks/f.sh",
          "./hooks/../hooks/g.sh",
        ],
        where,
      ),
    ).toEqual([
      "--config",
      "--x",
      "bash",
      "c.py",
      "conf/e.json",
      "echo",
      "hooks/a.sh",
      "hooks/b.sh",
      "hooks/d.sh",
      "hooks/f.sh",
      "hooks/g.sh",
    ]);
  });

  it("names nothing outside the home, in its .git, or behind another variable", () => {
    expect(
      homePathsNamed(
        [
          "/etc/passwd",
          "~/.ssh/id_rsa",
          "../outside.sh",
          "$HOME/.config/kanon",
          "~/.config/kanon/.git/hooks/post-merge",
          "${CLAUDE_PROJECT_DIR}/hooks/x.sh",
          "$KANON_HOMEX/y",
        ],
        where,
      ),
    ).toEqual([]);
  });

  it("whatever the words, every path is inside the home and relative to it", () => {
    const piece = fc.constantFrom(
      "~",
      "~/",
      "$HOME",
      "${HOME}",
      "$KANON_HOME/",
      "/",
      "..",
      ".",
      "a",
      ".git",
      " ",
      "=",
      "/u/.config/kanon/",
    );
    fc.assert(
      fc.property(fc.array(fc.array(piece, { maxLength: 8 }).map((p) => p.join(""))), (words) => {
        for (const rel of homePathsNamed(words, where)) {
          expect(rel).not.toBe("");
          expect(rel.startsWith("/")).toBe(false);
          expect(rel.split("/")).not.toContain("..");
          expect(rel === ".git" || rel.startsWith(".git/")).toBe(false);
        }
      }),
    );
  });
});
