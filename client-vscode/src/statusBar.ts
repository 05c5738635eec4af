/** The status-bar item: stability of the function under the cursor, click to compare. */
import { comparedWords, type FunctionReport, type LspPosition } from './report';
import { errorText } from './json';
import { safeText } from './safeText';

export interface StatusView {
  visible: boolean;
  text: string;
  tooltip: string;
  warning: boolean;
  /** What a click does. */
  action: 'compare' | 'regenerate' | 'restart';
}

/** What the analyze callback answers when there is no running server to ask. */
export const NO_SERVER = 'no-server';

export function formatFigure(x: number): string {
  return x.toFixed(2);
}

/** What the item shows for the function under the cursor (`undefined`: none there). */
export function statusView(report: FunctionReport | undefined | typeof NO_SERVER): StatusView {
  if (report === NO_SERVER) {
    return {
      visible: true,
      text: '$(circle-slash) codequorum',
      tooltip: 'The codequorum language server is not running (or still starting). Click to start it; the codequorum log says why it stopped.',
      warning: false,
      action: 'restart',
    };
  }
  if (!report) {
    return { visible: false, text: '', tooltip: '', warning: false, action: 'compare' };
  }
  const name = safeText(report.qualifiedName || 'this function', 200);
  const scored = report.versions.filter((v) => !v.skipped).length;
  if (report.stability === undefined || scored < 2) {
    return {
      visible: true,
      text: '$(pulse) –',
      tooltip: `codequorum: ${name} has no versions to compare yet. Click to regenerate it.`,
      warning: false,
      action: 'regenerate',
    };
  }
  const stable = report.stable ?? report.stability >= 0.8;
  const figure = formatFigure(report.stability);
  const headline = report.headline ? `\n${report.headline}` : '';
  return {
    visible: true,
    text: stable ? `$(pulse) ${figure} stable` : `$(warning) ${figure} unstable`,
    tooltip: `codequorum: ${name}, ${safeText(comparedWords(report), 80)} agree at ${figure}.${headline}\nClick to compare the versions.`,
    warning: !stable,
    action: 'compare',
  };
}

export interface StatusItem {
  text: string;
  tooltip: unknown;
  command: unknown;
  backgroundColor: unknown;
  show(): void;
  hide(): void;
}

export type Analyze = (uri: string, position: LspPosition) => Promise<FunctionReport | undefined | typeof NO_SERVER>;

/**
 * Asks the server about the cursor's function after the cursor has rested for `delayMs`;
 * an answer that arrives after a newer question is dropped.
 */
export class StabilityStatus {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private generation = 0;
  private enabled = true;
  private last: { uri: string; position: LspPosition } | undefined;

  constructor(
    private readonly item: StatusItem,
    private readonly analyze: Analyze,
    private readonly options: {
      delayMs: number;
      command: string;
      warningColor: unknown;
      log: (line: string) => void;
      /** Which commands the item runs: compare when there are versions, else regenerate, restart without a server. */
      regenerateCommand: string;
      restartCommand: string;
    },
  ) {}

  /** The cursor moved (or the document changed) at `position` of `uri`. */
  cursorMoved(uri: string, position: LspPosition): void {
    this.last = { uri, position };
    this.schedule();
  }

  /** Ask again about the last position (after new versions arrived). */
  refresh(): void {
    if (this.last) {
      this.schedule(0);
    }
  }

  /** No editor: nothing to show. */
  clear(): void {
    this.last = undefined;
    this.generation++;
    this.cancelTimer();
    this.item.hide();
  }

  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    if (!enabled) {
      this.generation++;
      this.cancelTimer();
      this.item.hide();
    } else {
      this.refresh();
    }
  }

  dispose(): void {
    this.generation++;
    this.cancelTimer();
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private schedule(delay = this.options.delayMs): void {
    if (!this.enabled) {
      return;
    }
    this.cancelTimer();
    const generation = ++this.generation;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.update(generation);
    }, delay);
  }

  private async update(generation: number): Promise<void> {
    const target = this.last;
    if (!target) {
      return;
    }
    let report: FunctionReport | undefined | typeof NO_SERVER;
    try {
      report = await this.analyze(target.uri, target.position);
    } catch (err) {
      this.options.log(`status: analyze failed: ${errorText(err)}`);
      report = undefined;
    }
    if (generation !== this.generation || !this.enabled) {
      return;
    }
    this.render(statusView(report));
  }

  private render(view: StatusView): void {
    if (!view.visible) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = { compare: this.options.command, regenerate: this.options.regenerateCommand, restart: this.options.restartCommand }[view.action];
    this.item.backgroundColor = view.warning ? this.options.warningColor : undefined;
    this.item.show();
  }
}
