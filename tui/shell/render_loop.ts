/**
 * The shell's render loop: at most one frame per {@link FRAME_MS}, only when the state or the
 * terminal's size changed, the finished items written above the live region.
 *
 * @module
 */
import { composerWidth, createRenderCache, renderItem, renderLive, type View } from "../render.ts";
import { type ClientState, drainOutbox } from "../state/mod.ts";
import type { LiveRegion } from "../terminal.ts";
import type { Style } from "../text.ts";
import type { ExitLatch } from "./exit.ts";

/** The shortest time between two frames. */
export const FRAME_MS = 8;

/** Options of {@link RenderLoop}. */
export interface RenderLoopOptions {
  state: ClientState;
  region: LiveRegion;
  style: Style;
  home: string | undefined;
  exit: ExitLatch;
  /** Writes bytes to the terminal, all of them. */
  write: (s: string) => void;
  /** The terminal's size now. */
  size: () => { cols: number; rows: number };
}

/** Renders the state to the terminal when asked, coalescing requests into frames. */
export class RenderLoop implements Disposable {
  #o: RenderLoopOptions;
  #cache = createRenderCache();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastRender = 0;
  #renderedVersion = -1;
  #renderedSize = "";
  #pendingClear = false;
  /** False until the terminal is in raw mode; no frame is written before. */
  ready = false;

  /** A loop over `options`; nothing is drawn until {@link ready} and a request. */
  constructor(options: RenderLoopOptions) {
    this.#o = options;
  }

  /** The terminal's size, at least 11 columns and 4 rows. */
  size(): { cols: number; rows: number } {
    const { cols, rows } = this.#o.size();
    return { cols: Math.max(11, cols), rows: Math.max(4, rows) };
  }

  /** How the renderer sees a terminal of `sz`. */
  view(sz: { cols: number; rows: number } = this.size()): View {
    return { width: sz.cols - 1, height: sz.rows, style: this.#o.style, home: this.#o.home };
  }

  /** The composer's width for the current size (Up/Down move by visual row). */
  composerWidth(): number {
    return composerWidth(this.view().width);
  }

  /** Clears the screen with the next frame. */
  requestClear(): void {
    this.#pendingClear = true;
  }

  /** Draws a frame now if anything changed. */
  renderNow(): void {
    this.#timer = undefined;
    if (!this.ready) return;
    this.#lastRender = performance.now();
    const sz = this.size();
    const clear = this.#pendingClear;
    this.#pendingClear = false;
    const sizeKey = `${sz.cols}x${sz.rows}`;
    const state = this.#o.state;
    if (state.version === this.#renderedVersion && !clear && sizeKey === this.#renderedSize) {
      return;
    }
    this.#renderedVersion = state.version;
    this.#renderedSize = sizeKey;
    const v = this.view(sz);
    const above = drainOutbox(state).flatMap((item) => renderItem(item, v));
    const live = renderLive(state, v, this.#cache);
    this.#o.write(this.#o.region.update(live, sz, { above, cleared: clear }));
  }

  /** Asks for a frame, at most one per {@link FRAME_MS}; none once exiting. */
  schedule(): void {
    if (this.#timer !== undefined || this.#o.exit.exiting) return;
    const delay = Math.max(0, this.#lastRender + FRAME_MS - performance.now());
    this.#timer = setTimeout(() => this.renderNow(), delay);
  }

  /** Writes the outbox now rather than at the next frame (many items finished at once). */
  flush(): void {
    if (this.#o.exit.exiting) return; // the last frame writes them
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.renderNow();
  }

  /**
   * The last frame: what finished goes to scrollback (so the last answer is there) and the live
   * region is removed. The terminal may be gone; nothing is thrown.
   */
  finalFrame(): void {
    if (!this.ready) return;
    try {
      const sz = this.size();
      const above = drainOutbox(this.#o.state).flatMap((item) => renderItem(item, this.view(sz)));
      this.#o.write(this.#o.region.update([], sz, { above }) + this.#o.region.erase());
    } catch {
      // The terminal may be gone; restoring it is still attempted.
    }
  }

  /** Drops a pending frame. */
  [Symbol.dispose](): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
