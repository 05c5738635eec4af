/**
 * The server's long jobs (regenerating, the watch's sampling, running the versions) in the
 * status bar, each as the server reports it with work-done progress: what runs and how far,
 * and a click that stops it (`window/workDoneProgress/cancel`). VS Code's own window progress
 * shows such jobs too, but cannot stop them.
 */
import { plainMessage } from './safeText';

export type ProgressToken = string | number;

/** One `$/progress` value of a work-done progress. */
export interface ProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
  cancellable?: boolean;
}

/** The parts of vscode.StatusBarItem used here. */
export interface JobItem {
  text: string;
  tooltip: unknown;
  command: unknown;
  show(): void;
  hide(): void;
}

interface Job {
  title: string;
  message: string;
  percentage: number | undefined;
  cancellable: boolean;
}

const PREFIX = 'codequorum: ';

/** The status-bar text and tooltip of the newest job, and how many run. */
export function jobView(job: Job, running: number): { text: string; tooltip: string } {
  const title = plainMessage(job.title.startsWith(PREFIX) ? job.title.slice(PREFIX.length) : job.title, 80);
  const pct = job.percentage === undefined ? '' : ` ${job.percentage}%`;
  const more = running > 1 ? ` (+${running - 1})` : '';
  const message = job.message ? `: ${plainMessage(job.message, 200)}` : '';
  const stop = job.cancellable ? '\nClick to stop it.' : '';
  return { text: `$(sync~spin) ${title}${pct}${more}`, tooltip: `codequorum: ${title}${message}${stop}` };
}

export class ServerJobs {
  private readonly jobs = new Map<ProgressToken, Job>();

  constructor(
    private readonly item: JobItem,
    private readonly cancel: (token: ProgressToken) => void,
    private readonly stopCommand: string,
  ) {}

  /** The server made a progress token (`window/workDoneProgress/create`). */
  created(token: ProgressToken): void {
    this.jobs.set(token, { title: '', message: '', percentage: undefined, cancellable: false });
  }

  /** A `$/progress` value for `token`. */
  progress(token: ProgressToken, value: ProgressValue): void {
    const job = this.jobs.get(token);
    if (!job) {
      return;
    }
    if (value.kind === 'end') {
      this.jobs.delete(token);
    } else {
      if (value.title !== undefined) {
        job.title = value.title;
      }
      if (value.message !== undefined) {
        job.message = value.message;
      }
      if (typeof value.percentage === 'number') {
        job.percentage = Math.max(0, Math.min(100, Math.round(value.percentage)));
      }
      if (value.cancellable !== undefined) {
        job.cancellable = value.cancellable;
      }
    }
    this.render();
  }

  /** Stop the newest job that can be stopped (the status-bar item's click); false when none can. */
  stopNewest(): boolean {
    const tokens = [...this.jobs.entries()].filter(([, job]) => job.cancellable && job.title);
    const newest = tokens[tokens.length - 1];
    if (!newest) {
      return false;
    }
    this.cancel(newest[0]);
    return true;
  }

  /** The server stopped: its jobs went with it. */
  clear(): void {
    this.jobs.clear();
    this.render();
  }

  private render(): void {
    const shown = [...this.jobs.values()].filter((job) => job.title);
    const newest = shown[shown.length - 1];
    if (!newest) {
      this.item.hide();
      return;
    }
    const view = jobView(newest, shown.length);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.command = newest.cancellable ? this.stopCommand : undefined;
    this.item.show();
  }
}
