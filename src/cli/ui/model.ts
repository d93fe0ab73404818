/**
 * The state machine of `kanon ui`, free of React and of the terminal: `update(state, event)` returns
 * the next state and the effects to run (load a plan, apply, run git, quit). The view draws a state;
 * the runner turns key presses and finished effects into events.
 */

export type Mode = "apply" | "import";
export type Focus = "changes" | "diff" | "agents";
export type Phase = "loading" | "ready" | "applying" | "git" | "error";

/** One pending change: a row of the change list. */
export interface Item {
  /** Destination path (apply) or import unit path: the row's identity. */
  path: string;
  /** Agent id, or "all" for an import unit shared by every agent. */
  agent: string;
  action: "create" | "update" | "delete";
  /** Why the change needs a look before applying (a hand-edited file is backed up when applied). */
  attention?: string;
  /** Why it cannot be applied at all: such a row is never selected. */
  conflict?: string;
}

/** A row as the list needs it, from a reviewed change (which carries more: its diff, its basis). */
export function itemOf(r: Item): Item {
  return {
    path: r.path,
    agent: r.agent,
    action: r.action,
    ...(r.attention !== undefined ? { attention: r.attention } : {}),
    ...(r.conflict !== undefined ? { conflict: r.conflict } : {}),
  };
}

export interface AgentRow {
  id: string;
  /** Rendered by this run (`--agent`); the others are listed as inactive. */
  active: boolean;
}

export type SourceState =
  | { kind: "loading" }
  | { kind: "clean" }
  | { kind: "dirty"; short: string }
  | { kind: "unavailable" };

export interface State {
  mode: Mode;
  phase: Phase;
  dryRun: boolean;
  items: Item[];
  agents: AgentRow[];
  selected: ReadonlySet<string>;
  /** Index into the visible (filtered) rows. */
  cursor: number;
  agentCursor: number;
  focus: Focus;
  filter: string;
  filtering: boolean;
  diffScroll: number;
  showHelp: boolean;
  status: string;
  error: string;
  source: SourceState;
  /** Display only: paths under it are shown as `~/…`. */
  userHome: string;
}

export type Key =
  | "up"
  | "down"
  | "pageup"
  | "pagedown"
  | "tab"
  | "shift+tab"
  | "enter"
  | "esc"
  | "backspace"
  | "ctrl+c"
  | (string & {});

export type Event =
  | { type: "key"; key: Key }
  | { type: "loaded"; mode: Mode; items: Item[]; agents: AgentRow[]; status?: string }
  | { type: "source"; source: SourceState }
  | { type: "applied"; count: number; dryRun: boolean; note?: string }
  | { type: "git-done"; op: "pull" | "push"; output: string }
  | { type: "git-failed"; message: string }
  | { type: "failed"; message: string };

export type Effect =
  | { type: "load"; mode: Mode; status?: string }
  | { type: "apply"; mode: Mode; paths: string[]; dryRun: boolean }
  | { type: "git"; op: "pull" | "push" }
  | { type: "source" }
  | { type: "quit" };

/** What the reducer needs to know about the screen: how far the diff of the current row scrolls. */
export interface Context {
  diffLength(item: Item): number;
  /** Lines the diff pane shows at once (page up/down, scroll limit). */
  diffHeight: number;
}

export function initialState(options: {
  mode: Mode;
  dryRun: boolean;
  userHome: string;
  agents: AgentRow[];
}): State {
  return {
    mode: options.mode,
    phase: "loading",
    dryRun: options.dryRun,
    items: [],
    agents: options.agents,
    selected: new Set(),
    cursor: 0,
    agentCursor: 0,
    focus: "changes",
    filter: "",
    filtering: false,
    diffScroll: 0,
    showHelp: false,
    status: "",
    error: "",
    source: { kind: "loading" },
    userHome: options.userHome,
  };
}

/**
 * The first effect: load the plan. The source's git state is read once the change list is up (the
 * "loaded" or "failed" event), so that starting git does not delay it.
 */
export function startEffects(state: State): Effect[] {
  return [{ type: "load", mode: state.mode }];
}

/** The source's git state, after the first load: before it, the source panel shows "loading…". */
const firstSource = (state: State): Effect[] => (state.source.kind === "loading" ? [{ type: "source" }] : []);

/** `~/…` for paths inside the user's home (and only inside: `/home/u2` is not under `/home/u`). */
export function displayPath(path: string, userHome: string): string {
  const home = userHome.replace(/\/+$/, "");
  if (home === "") return path;
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function matchesFilter(item: Item, filter: string, userHome: string): boolean {
  if (filter === "") return true;
  const f = filter.toLowerCase();
  return item.path.toLowerCase().includes(f) || displayPath(item.path, userHome).toLowerCase().includes(f);
}

export function visibleItems(state: State): Item[] {
  return state.items.filter((i) => matchesFilter(i, state.filter, state.userHome));
}

export function currentItem(state: State): Item | undefined {
  return visibleItems(state)[state.cursor];
}

export const selectable = (item: Item) => item.conflict === undefined;

/** The selected rows, in list order; conflicts are never among them. */
export function selectedItems(state: State): Item[] {
  return state.items.filter((i) => selectable(i) && state.selected.has(i.path));
}

export function symbol(item: Item): "+" | "M" | "D" | "!" {
  if (item.conflict !== undefined || item.attention !== undefined) return "!";
  return item.action === "create" ? "+" : item.action === "delete" ? "D" : "M";
}

export function agentCount(state: State, agent: string): number {
  return state.items.filter((i) => i.agent === agent).length;
}

const FOCUS_ORDER: Focus[] = ["changes", "diff", "agents"];

export function update(state: State, event: Event, ctx: Context): [State, Effect[]] {
  switch (event.type) {
    case "key":
      return onKey(state, event.key, ctx);
    case "loaded": {
      const items = event.items;
      // A reload keeps the user's choices: a row seen before in the same state keeps its selection;
      // a new row, or one whose state changed (now needs attention), is selected unless it needs a look.
      const before = state.mode === event.mode ? new Map(state.items.map((i) => [i.path, i])) : new Map();
      const choose = (i: Item) => {
        const old = before.get(i.path);
        if (old && symbol(old) === symbol(i) && old.attention === i.attention)
          return state.selected.has(i.path);
        return before.size === 0 || symbol(i) !== "!";
      };
      const selected = new Set(items.filter((i) => selectable(i) && choose(i)).map((i) => i.path));
      const next: State = {
        ...state,
        mode: event.mode,
        phase: "ready",
        items,
        agents: event.agents,
        selected,
        status: event.status ?? "",
        error: "",
        diffScroll: 0,
      };
      return [{ ...next, cursor: clamp(state.cursor, visibleItems(next).length) }, firstSource(state)];
    }
    case "source":
      return [{ ...state, source: event.source }, []];
    case "applied": {
      const verb = state.mode === "apply" ? "apply" : "import";
      if (event.dryRun) {
        return [{ ...state, phase: "ready", status: `DRY-RUN: would ${verb} ${event.count} change(s).` }, []];
      }
      const done = `${state.mode === "apply" ? "Applied" : "Imported"} ${event.count} change(s).`;
      const status = event.note ? `${done} ${event.note}` : done;
      return [
        { ...state, phase: "loading", status },
        [{ type: "load", mode: state.mode, status }, { type: "source" }],
      ];
    }
    case "git-done": {
      const first = firstLine(event.output) || "done";
      const status = `git ${event.op}: ${first}`;
      // A pull changes the source: plan again. A push changes neither side of the plan.
      if (event.op === "pull") {
        return [
          { ...state, phase: "loading", status },
          [{ type: "load", mode: state.mode, status }, { type: "source" }],
        ];
      }
      return [{ ...state, phase: "ready", status }, [{ type: "source" }]];
    }
    case "git-failed":
      return [{ ...state, phase: "ready", status: `error: ${event.message}` }, [{ type: "source" }]];
    case "failed":
      return [{ ...state, phase: "error", error: event.message, status: "" }, firstSource(state)];
  }
}

function onKey(state: State, key: Key, ctx: Context): [State, Effect[]] {
  // Applying or running git: the files or the repository are being changed; nothing may interrupt it.
  if (state.phase === "applying" || state.phase === "git") return [state, []];
  if (key === "ctrl+c") return [state, [{ type: "quit" }]];
  if (state.phase === "loading") return key === "q" ? [state, [{ type: "quit" }]] : [state, []];
  if (state.phase === "error") {
    if (key === "q") return [state, [{ type: "quit" }]];
    // A plan that cannot load (import: instruction files that differ) must not trap the user in its mode.
    if (key === "m") return switchMode({ ...state, error: "" });
    return reload({ ...state, error: "" });
  }
  if (state.showHelp) {
    if (key === "q") return [state, [{ type: "quit" }]];
    return [{ ...state, showHelp: false }, []];
  }
  if (state.filtering) return onFilterKey(state, key);

  const visible = visibleItems(state);
  switch (key) {
    case "q":
      return [state, [{ type: "quit" }]];
    case "?":
      return [{ ...state, showHelp: true }, []];
    case "up":
    case "k":
      return [move(state, -1, visible.length, ctx), []];
    case "down":
    case "j":
      return [move(state, 1, visible.length, ctx), []];
    case "pageup":
      return [move(state, -Math.max(1, ctx.diffHeight - 1), visible.length, ctx), []];
    case "pagedown":
      return [move(state, Math.max(1, ctx.diffHeight - 1), visible.length, ctx), []];
    case "tab":
    case "shift+tab": {
      const step = key === "tab" ? 1 : FOCUS_ORDER.length - 1;
      const focus = FOCUS_ORDER[(FOCUS_ORDER.indexOf(state.focus) + step) % FOCUS_ORDER.length]!;
      return [{ ...state, focus }, []];
    }
    case "d":
      return [{ ...state, focus: "diff" }, []];
    case " ":
    case "x":
      return [toggle(state, visible), []];
    case "A":
      return [setSelected(state, visible, true), []];
    case "N":
      return [setSelected(state, visible, false), []];
    case "t":
      return [{ ...state, dryRun: !state.dryRun, status: state.dryRun ? "Dry run off." : "Dry run on." }, []];
    case "/":
      return [{ ...state, filtering: true }, []];
    case "esc":
      return state.filter === "" ? [state, []] : [withFilter(state, ""), []];
    case "r":
      return reload(state);
    case "m":
      return switchMode(state);
    case "a":
      return apply(state);
    case "p":
      return [{ ...state, phase: "git", status: "Pulling…" }, [{ type: "git", op: "pull" }]];
    case "P":
      return [{ ...state, phase: "git", status: "Pushing…" }, [{ type: "git", op: "push" }]];
    default:
      return [state, []];
  }
}

/** m: the other mode's plan, with nothing selected and no filter. */
function switchMode(state: State): [State, Effect[]] {
  const mode: Mode = state.mode === "apply" ? "import" : "apply";
  return [
    {
      ...state,
      mode,
      phase: "loading",
      items: [],
      selected: new Set(),
      filter: "",
      cursor: 0,
      diffScroll: 0,
      status: "",
    },
    [{ type: "load", mode }],
  ];
}

function onFilterKey(state: State, key: Key): [State, Effect[]] {
  switch (key) {
    case "enter":
      return [{ ...state, filtering: false }, []];
    case "esc":
      return [{ ...withFilter(state, ""), filtering: false }, []];
    case "backspace":
      return [withFilter(state, state.filter.slice(0, -1)), []];
    default:
      // Printable characters only: named keys (arrows, tab) do not type into the filter.
      return [...key].length === 1 && key >= " " ? [withFilter(state, state.filter + key), []] : [state, []];
  }
}

function withFilter(state: State, filter: string): State {
  return { ...state, filter, cursor: 0, diffScroll: 0 };
}

function reload(state: State): [State, Effect[]] {
  return [
    { ...state, phase: "loading", status: "" },
    [{ type: "load", mode: state.mode }, { type: "source" }],
  ];
}

function move(state: State, delta: number, count: number, ctx: Context): State {
  if (state.focus === "diff") {
    const item = currentItem(state);
    const max = item ? Math.max(0, ctx.diffLength(item) - ctx.diffHeight) : 0;
    return { ...state, diffScroll: Math.min(max, Math.max(0, state.diffScroll + delta)) };
  }
  if (state.focus === "agents") {
    return { ...state, agentCursor: clamp(state.agentCursor + delta, state.agents.length) };
  }
  const cursor = clamp(state.cursor + delta, count);
  return cursor === state.cursor ? state : { ...state, cursor, diffScroll: 0 };
}

/** space/x: the row under the cursor, or in the agents panel every change of that agent. */
function toggle(state: State, visible: Item[]): State {
  if (state.focus === "agents") {
    const agent = state.agents[state.agentCursor];
    if (!agent) return state;
    const rows = visible.filter((i) => i.agent === agent.id && selectable(i));
    const allOn = rows.length > 0 && rows.every((i) => state.selected.has(i.path));
    return setSelected(state, rows, !allOn);
  }
  const item = visible[state.cursor];
  if (!item || !selectable(item)) return state;
  return setSelected(state, [item], !state.selected.has(item.path));
}

function setSelected(state: State, items: readonly Item[], on: boolean): State {
  const selected = new Set(state.selected);
  for (const i of items) {
    if (on && selectable(i)) selected.add(i.path);
    else selected.delete(i.path);
  }
  return { ...state, selected };
}

/** a: the selected rows the list shows; rows the filter hides are never applied unseen. */
function apply(state: State): [State, Effect[]] {
  const shown = new Set(visibleItems(state).map((i) => i.path));
  const chosen = selectedItems(state);
  const paths = chosen.filter((i) => shown.has(i.path)).map((i) => i.path);
  const hidden = chosen.length - paths.length;
  const note =
    hidden > 0 ? ` (${hidden} selected change(s) hidden by the filter are left out; esc clears it)` : "";
  if (paths.length === 0) return [{ ...state, status: `Nothing selected.${note}` }, []];
  const busy = `${state.dryRun ? "Checking dry run…" : state.mode === "apply" ? "Applying…" : "Importing…"}${note}`;
  return [
    { ...state, phase: "applying", status: busy },
    [{ type: "apply", mode: state.mode, paths, dryRun: state.dryRun }],
  ];
}

function clamp(index: number, count: number): number {
  return count === 0 ? 0 : Math.min(count - 1, Math.max(0, index));
}

/** The first line of `text` that is not blank, trimmed ("" when none). */
export function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? ""
  );
}
