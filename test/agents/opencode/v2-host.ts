/**
 * A small stand-in for OpenCode 2's plugin host, written from its source (anomalyco/opencode
 * packages/core/src/plugin/module.ts, hooks.ts and packages/plugin/src/promise/adapter.ts):
 * - the module's default export is decoded as `{ id: string, setup: function }` (anything else,
 *   such as `server`, is ignored);
 * - `setup(ctx)` registers callbacks with `ctx.tool.hook(name, cb)` / `ctx.session.hook(name, cb)`,
 *   each resolving to a `{ dispose }` registration;
 * - a trigger runs the callbacks of one hook in order on one mutable event object, and a throw
 *   propagates to the caller (for execute.before: that tool call fails with the error);
 * - `ctx.event.subscribe()` is an async iterable of `{ id, type, data, location }`;
 * - the function `setup` returns is the cleanup, run when the plugin unloads.
 */

type Callback = (event: unknown) => Promise<void> | void;

export interface Registration {
  dispose: () => Promise<void>;
}

class EventStream {
  private queue: unknown[] = [];
  private waiting: ((r: IteratorResult<unknown>) => void) | undefined;
  closed = false;

  push(event: unknown) {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: event, done: false });
    } else this.queue.push(event);
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return {
      next: () => {
        if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift(), done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        this.closed = true;
        this.waiting?.({ value: undefined, done: true });
        this.waiting = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

export class V2Host {
  readonly callbacks = new Map<string, Callback[]>();
  readonly streams: EventStream[] = [];
  registrations = 0;
  cleanup: (() => Promise<void>) | undefined;
  readonly ctx: Record<string, unknown>;

  constructor(readonly directory: string) {
    const hook =
      (domain: string) =>
      async (name: string, cb: Callback): Promise<Registration> => {
        const key = `${domain}.${name}`;
        this.callbacks.set(key, [...(this.callbacks.get(key) ?? []), cb]);
        this.registrations++;
        return {
          dispose: async () => {
            this.callbacks.set(
              key,
              (this.callbacks.get(key) ?? []).filter((c) => c !== cb),
            );
          },
        };
      };
    this.ctx = {
      app: { version: "2.1.4" },
      location: { directory, project: { id: "p", directory, canonical: directory } },
      options: undefined,
      tool: { hook: hook("tool") },
      session: { hook: hook("session") },
      event: {
        subscribe: () => {
          const s = new EventStream();
          this.streams.push(s);
          return s;
        },
      },
    };
  }

  /** module.ts: Schema.Struct({ default: Union([{ id, effect }, { id, setup }]) }). */
  static decode(mod: { default?: unknown }): { id: string; setup: (ctx: unknown) => unknown } {
    const d = mod.default as { id?: unknown; setup?: unknown } | undefined;
    if (!d || typeof d.id !== "string" || typeof d.setup !== "function") {
      throw new Error("Plugin must export a default definition with an id and an effect or setup function.");
    }
    return d as { id: string; setup: (ctx: unknown) => unknown };
  }

  async activate(plugin: { setup: (ctx: unknown) => unknown }): Promise<void> {
    const cleanup = await Promise.resolve(plugin.setup(this.ctx));
    this.cleanup = typeof cleanup === "function" ? (cleanup as () => Promise<void>) : undefined;
  }

  /** Runs every callback of `domain.name` on `event`; a throw rejects, as in PluginHooks.trigger. */
  async trigger<E>(domain: string, name: string, event: E): Promise<E> {
    for (const cb of this.callbacks.get(`${domain}.${name}`) ?? []) await cb(event);
    return event;
  }

  emit(
    type: string,
    data: object,
    location: { directory: string } | undefined = { directory: this.directory },
  ) {
    for (const s of this.streams)
      s.push({ id: `evt_${type}`, type, data, ...(location ? { location } : {}) });
  }

  async unload(): Promise<void> {
    await this.cleanup?.();
  }
}
