/**
 * The edge of `kanon ui`: mounts the view with Ink on the alternate screen, turns key presses into
 * model events and runs the model's effects (plan, apply, git) through the host the command made
 * (host.ts). Loaded only by `kanon ui`, so Ink and React stay out of every other command's start-up;
 * it imports no kanon module but the model and the view (the host brings the rest).
 */
import ansiEscapes from "ansi-escapes";
import { type Key as InkKey, render, useApp, useInput, useStdout } from "ink";
import { useEffect, useSyncExternalStore } from "react";
import type { Io } from "../context.js";
import type { PaneLine } from "./diff-pane.js";
import type { UiHost } from "./host.js";
import {
  type Effect,
  type Event,
  type Item,
  initialState,
  itemOf,
  type Key,
  type Mode,
  type State,
  startEffects,
  update,
} from "./model.js";
import type { Review } from "./review.js";
import { layout, Screen } from "./view.js";

export interface UiOptions {
  mode: Mode;
  dryRun: boolean;
}

export async function runUi(host: UiHost, options: UiOptions, io: Io): Promise<void> {
  const stdout = io.stdout as NodeJS.WriteStream;
  const initial = initialState({
    mode: options.mode,
    dryRun: options.dryRun,
    userHome: io.userHome,
    agents: host.agents,
  });
  stdout.write(ansiEscapes.enterAlternativeScreen);
  try {
    const session = new Session(initial, host, {
      width: stdout.columns || 80,
      height: stdout.rows || 24,
    });
    const app = render(<App session={session} colors={io.env.NO_COLOR === undefined} />, {
      stdout,
      stdin: io.stdin,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    await app.waitUntilExit();
  } finally {
    stdout.write(ansiEscapes.exitAlternativeScreen);
  }
}

/** Ink's key description → the model's key names; pasted or quickly typed text is one key per character. */
function keyNames(input: string, key: InkKey): Key[] {
  const name = keyName(input, key);
  return name === input && [...input].length > 1 ? [...input].map((c) => CONTROL[c] ?? c) : [name];
}

/** Control characters inside pasted or quickly typed text. */
const CONTROL: Record<string, Key> = {
  "\r": "enter",
  "\n": "enter",
  "\t": "tab",
  "\u001b": "esc",
  "\u007f": "backspace",
  "\b": "backspace",
  "\u0003": "ctrl+c",
};

function keyName(input: string, key: InkKey): Key {
  if (key.ctrl && input === "c") return "ctrl+c";
  if (key.upArrow) return "up";
  if (key.downArrow) return "down";
  if (key.pageUp) return "pageup";
  if (key.pageDown) return "pagedown";
  if (key.tab) return key.shift ? "shift+tab" : "tab";
  if (key.return) return "enter";
  if (key.escape) return "esc";
  if (key.backspace || key.delete) return "backspace";
  return input;
}

/** The running UI outside React: the model's state, the reviewed plan, and the effects' results. */
export class Session {
  private state: State;
  private snapshot: Snapshot;
  private review: Review | null = null;
  private readonly diffs = new Map<string, PaneLine[]>();
  private readonly listeners = new Set<() => void>();
  private size: { width: number; height: number };
  private started = false;
  onQuit: () => void = () => {};

  constructor(
    initial: State,
    private readonly host: UiHost,
    size: { width: number; height: number },
  ) {
    this.state = initial;
    this.size = size;
    this.snapshot = { state: initial, ...size };
  }

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = () => this.snapshot;

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const effect of startEffects(this.state)) void this.run(effect);
  }

  resize(width: number, height: number): void {
    this.size = { width, height };
    this.publish();
  }

  /** The diff pane's lines for a row, computed once per load. */
  readonly diff = (item: Item): PaneLine[] => {
    const cached = this.diffs.get(item.path);
    if (cached) return cached;
    const source = this.review?.changes.find((c) => c.path === item.path);
    const lines = source ? this.host.diffLines(source) : [];
    this.diffs.set(item.path, lines);
    return lines;
  };

  dispatch(event: Event): void {
    const ctx = {
      diffLength: (item: Item) => this.diff(item).length,
      diffHeight: layout(this.size.width, this.size.height).diffRows,
    };
    const [next, effects] = update(this.state, event, ctx);
    this.state = next;
    this.publish();
    for (const effect of effects) void this.run(effect);
  }

  private publish(): void {
    this.snapshot = { state: this.state, ...this.size };
    for (const l of this.listeners) l();
  }

  private async run(effect: Effect): Promise<void> {
    switch (effect.type) {
      case "quit":
        this.onQuit();
        return;
      case "load":
        // Let the loading screen paint before planning (which reads every destination file).
        await new Promise((r) => setImmediate(r));
        try {
          const r = await this.host.reviewers[effect.mode].load();
          this.review = r;
          this.diffs.clear();
          const warned = r.warnings.length ? `${r.warnings.length} warning(s): ${r.warnings[0]}` : undefined;
          const status = effect.status ?? warned;
          this.dispatch({
            type: "loaded",
            mode: effect.mode,
            items: r.changes.map(itemOf),
            agents: r.agents,
            ...(status !== undefined ? { status } : {}),
          });
        } catch (e) {
          this.dispatch({ type: "failed", message: (e as Error).message });
        }
        return;
      case "apply":
        try {
          const r = await this.host.reviewers[effect.mode].apply(
            this.review?.changes ?? [],
            effect.paths,
            effect.dryRun,
          );
          this.dispatch({
            type: "applied",
            count: r.count,
            dryRun: effect.dryRun,
            ...(r.note ? { note: r.note } : {}),
          });
        } catch (e) {
          this.dispatch({ type: "failed", message: (e as Error).message });
        }
        return;
      case "git":
        this.dispatch(await this.host.git(effect.op));
        return;
      case "source":
        this.dispatch({ type: "source", source: await this.host.source() });
        return;
    }
  }
}

interface Snapshot {
  state: State;
  width: number;
  height: number;
}

function App(props: { session: Session; colors: boolean }) {
  const { session } = props;
  const { exit } = useApp();
  const { stdout } = useStdout();
  const { state, width, height } = useSyncExternalStore(session.subscribe, session.getSnapshot);
  useEffect(() => {
    session.onQuit = exit;
    const onResize = () => session.resize(stdout.columns || 80, stdout.rows || 24);
    stdout.on("resize", onResize);
    session.start();
    return () => {
      stdout.off("resize", onResize);
    };
  }, [session, exit, stdout]);
  useInput((input, key) => {
    for (const name of keyNames(input, key)) session.dispatch({ type: "key", key: name });
  });
  return <Screen state={state} width={width} height={height} colors={props.colors} diff={session.diff} />;
}
