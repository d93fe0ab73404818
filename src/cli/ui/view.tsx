/**
 * What `kanon ui` draws for a state: agents and source on the left, the change list and the diff on
 * the right, a status line and the keys at the bottom. Pure: the same state and size give the same
 * screen (tests render it to a string).
 */
import { Box, Text as InkText } from "ink";
import { Children, type ComponentProps } from "react";
import { visible } from "../../model/visible.js";
import type { PaneLine } from "./diff-pane.js";
import {
  agentCount,
  currentItem,
  displayPath,
  type Item,
  type State,
  selectable,
  selectedItems,
  symbol,
  visibleItems,
} from "./model.js";

/**
 * Ink's Text with every string in it made visible (model/visible.ts): a path, a diff line, a hook
 * name or a git message holding `\e[2J` or `\r` shows as text and cannot redraw the review. Every
 * Text of the screen is this one.
 */
function Text(props: ComponentProps<typeof InkText>) {
  const children = Children.map(props.children, (c) => (typeof c === "string" ? visible(c) : c));
  return <InkText {...props}>{children}</InkText>;
}

const MIN_WIDTH = 60;
const MIN_HEIGHT = 16;

interface Layout {
  leftWidth: number;
  rightWidth: number;
  /** Rows of the change list and of the diff pane (inside their borders and titles). */
  listRows: number;
  diffRows: number;
  bodyHeight: number;
}

/**
 * Ink redraws the whole terminal on every frame when its output is as tall as the terminal, so the
 * screen leaves the last row free.
 */
export function layout(width: number, height: number): Layout {
  const bodyHeight = height - 3; // one row free, then the status line and the hint bar
  const leftWidth = Math.min(34, Math.floor(width * 0.3));
  const listBox = Math.max(6, Math.floor(bodyHeight * 0.4));
  return {
    leftWidth,
    rightWidth: width - leftWidth,
    listRows: listBox - 3,
    diffRows: bodyHeight - listBox - 3,
    bodyHeight,
  };
}

export interface ScreenProps {
  state: State;
  width: number;
  height: number;
  colors: boolean;
  diff(item: Item): PaneLine[];
}

export function Screen(props: ScreenProps) {
  const { state, width, height } = props;
  if (width < MIN_WIDTH || height < MIN_HEIGHT) {
    return (
      <Text>
        Terminal too small — need at least {MIN_WIDTH}×{MIN_HEIGHT}, have {width}×{height}.
      </Text>
    );
  }
  const l = layout(width, height);
  return (
    <Box flexDirection="column" width={width} height={height - 1}>
      {state.showHelp ? (
        <Help height={l.bodyHeight} />
      ) : (
        <Box flexDirection="row" height={l.bodyHeight}>
          <Box flexDirection="column" width={l.leftWidth}>
            <AgentsPanel {...props} />
            <SourcePanel {...props} layout={l} />
          </Box>
          <Box flexDirection="column" width={l.rightWidth}>
            <ChangeList {...props} layout={l} />
            <DiffPane {...props} layout={l} />
          </Box>
        </Box>
      )}
      <StatusLine {...props} />
      <Text dimColor wrap="truncate-end">
        {hints(state)}
      </Text>
    </Box>
  );
}

const paint = (props: { colors: boolean }, color: string) => (props.colors ? color : undefined);

function Panel(props: {
  title: string;
  focused: boolean;
  colors: boolean;
  height?: number;
  flexGrow?: number;
  /** Clip what does not fit; costly on every frame, so only for content of unknown height. */
  clip?: boolean;
  children: React.ReactNode;
}) {
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={props.focused ? paint(props, "cyan") : paint(props, "gray")}
      paddingX={1}
      {...(props.clip ? { overflow: "hidden" as const } : {})}
      {...(props.height !== undefined ? { height: props.height } : {})}
      {...(props.flexGrow !== undefined ? { flexGrow: props.flexGrow } : {})}
    >
      <Text bold wrap="truncate-end">
        {props.title}
      </Text>
      {props.children}
    </Box>
  );
}

function AgentsPanel(props: ScreenProps) {
  const { state } = props;
  return (
    <Panel title="Mode / Agents" focused={state.focus === "agents"} colors={props.colors}>
      <Text wrap="truncate-end">mode: {state.mode}</Text>
      {state.agents.map((a, i) => (
        <Text key={a.id} wrap="truncate-end" bold={state.focus === "agents" && i === state.agentCursor}>
          {state.focus === "agents" && i === state.agentCursor ? "> " : "  "}
          <Text color={a.active ? paint(props, "green") : undefined}>{a.active ? "●" : "○"}</Text> {a.id} (
          {agentCount(state, a.id)})
        </Text>
      ))}
    </Panel>
  );
}

function SourcePanel(props: ScreenProps & { layout: Layout }) {
  const s = props.state.source;
  // The rows left under the agents panel, its border and title, and the state line.
  const room = props.layout.bodyHeight - (props.state.agents.length + 4) - 4;
  const lines =
    s.kind === "dirty"
      ? s.short
          .split("\n")
          .filter((l) => l.trim() !== "")
          .slice(0, Math.max(0, room))
      : [];
  return (
    <Panel title="Source" focused={false} colors={props.colors} flexGrow={1}>
      {s.kind === "loading" && <Text dimColor>loading…</Text>}
      {s.kind === "clean" && <Text color={paint(props, "green")}>✓ clean</Text>}
      {s.kind === "unavailable" && <Text dimColor>git unavailable</Text>}
      {s.kind === "dirty" && <Text color={paint(props, "yellow")}>● dirty</Text>}
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: status lines can repeat
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
    </Panel>
  );
}

function ChangeList(props: ScreenProps & { layout: Layout }) {
  const { state, layout: l } = props;
  const visible = visibleItems(state);
  const conflicts = state.items.filter((i) => !selectable(i)).length;
  const title = `${state.mode === "apply" ? "Apply" : "Import"} Changes (${state.items.length} changed · ${conflicts} conflict · ${selectedItems(state).length} selected)`;
  const rows = l.listRows;
  const offset = Math.max(0, Math.min(state.cursor - Math.floor(rows / 2), visible.length - rows));
  let body: React.ReactNode;
  if (state.phase === "loading") body = <Text dimColor>loading…</Text>;
  else if (state.phase === "error")
    body = (
      <>
        <Text color={paint(props, "red")} wrap="wrap">
          error: {state.error}
        </Text>
        <Text dimColor>press any key to reload, m to switch mode, q to quit</Text>
      </>
    );
  else if (state.items.length === 0) body = <Text>No changes. Source matches destination.</Text>;
  else if (visible.length === 0) body = <Text>No files match filter.</Text>;
  else
    body = visible.slice(offset, offset + rows).map((item, i) => {
      const at = offset + i === state.cursor;
      const mark = !selectable(item) ? "[-]" : state.selected.has(item.path) ? "[x]" : "[ ]";
      const sym = symbol(item);
      const color = sym === "+" ? "green" : sym === "D" ? "red" : sym === "!" ? "yellow" : "cyan";
      return (
        <Text key={item.path} wrap="truncate-end" bold={at}>
          {at ? "> " : "  "}
          {mark} <Text color={paint(props, color)}>{sym}</Text> {displayPath(item.path, state.userHome)}
        </Text>
      );
    });
  return (
    <Panel
      title={title}
      focused={state.focus === "changes"}
      colors={props.colors}
      height={rows + 3}
      clip={state.phase === "error"}
    >
      {body}
    </Panel>
  );
}

const LINE_COLOR: Record<PaneLine["kind"], string | undefined> = {
  header: undefined,
  hunk: "cyan",
  add: "green",
  del: "red",
  context: undefined,
  note: "yellow",
};

function DiffPane(props: ScreenProps & { layout: Layout }) {
  const { state, layout: l } = props;
  const item = state.phase === "ready" ? currentItem(state) : undefined;
  const lines = item ? props.diff(item) : [];
  const reason = item ? (item.conflict ?? item.attention) : undefined;
  const rows = reason ? l.diffRows - 1 : l.diffRows;
  return (
    <Panel title="Diff" focused={state.focus === "diff"} colors={props.colors} height={l.diffRows + 3}>
      {reason !== undefined && (
        <Text color={paint(props, "yellow")} wrap="truncate-end">
          ! {reason}
        </Text>
      )}
      {lines.slice(state.diffScroll, state.diffScroll + rows).map((line, i) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: a diff line's identity is its position
          key={i}
          wrap="truncate-end"
          bold={line.kind === "header"}
          color={LINE_COLOR[line.kind] ? paint(props, LINE_COLOR[line.kind]!) : undefined}
        >
          {line.text === "" ? " " : line.text.replaceAll("\t", "  ")}
        </Text>
      ))}
    </Panel>
  );
}

function StatusLine(props: ScreenProps) {
  const { state } = props;
  return (
    <Box height={1}>
      {state.dryRun && (
        <Text inverse bold color={paint(props, "yellow")}>
          {" DRY-RUN "}
        </Text>
      )}
      {state.dryRun && <Text> </Text>}
      <Text
        wrap="truncate-end"
        color={state.status.startsWith("error:") || state.phase === "error" ? paint(props, "red") : undefined}
      >
        {state.filtering || state.filter !== ""
          ? `/${state.filter}${state.filtering ? "▏" : ""}${state.status ? `  ${state.status}` : ""}`
          : state.status || " "}
      </Text>
    </Box>
  );
}

function hints(state: State): string {
  if (state.phase === "applying" || state.phase === "git") return "working…";
  if (state.phase === "loading") return "q quit";
  if (state.phase === "error") return "any key reload · m mode · q quit";
  if (state.showHelp) return "any key close · q quit";
  if (state.filtering) return "type to filter · enter keep · esc clear · ctrl+c quit";
  const a = `a ${state.mode}`;
  if (state.focus === "diff") return `↑/k ↓/j scroll · tab focus · ${a} · ? help · q quit`;
  if (state.focus === "agents") return "↑/k ↓/j move · space toggle agent · tab focus · ? help · q quit";
  return `space toggle · A all · N none · / filter · ${a} · t dry-run · m mode · r reload · p pull · P push · ? help · q quit`;
}

const HELP: [string, string][] = [
  ["↑/k ↓/j", "move (scroll the diff when it has focus)"],
  ["tab / shift+tab", "focus changes → diff → agents"],
  ["space / x", "toggle the change (in agents: all of that agent's changes)"],
  ["A / N", "select all / none (of the rows the filter shows)"],
  ["d", "focus the diff"],
  ["/", "filter by path (enter keeps it, esc clears it)"],
  ["a", "apply (import) the selected changes; re-plans first"],
  ["t", "toggle dry-run (check without writing)"],
  ["m", "switch apply ↔ import"],
  ["r", "reload"],
  ["p / P", "git pull --ff-only (then reload) / git push"],
  ["?", "this help"],
  ["q / ctrl+c", "quit"],
];

function Help(props: { height: number }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} height={props.height} overflow="hidden">
      <Text bold>Keys</Text>
      {HELP.map(([keys, what]) => (
        <Text key={keys} wrap="truncate-end">
          {keys.padEnd(18)}
          {what}
        </Text>
      ))}
      <Text> </Text>
      <Text wrap="wrap">
        + create · M update · D delete · ! needs attention (a hand-edited file is backed up when applied)
      </Text>
    </Box>
  );
}
