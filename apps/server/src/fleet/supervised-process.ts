/**
 * One child process of the local fleet (a replica, HAProxy, Prometheus): its output goes to the fleet's
 * log one line at a time with a prefix, readiness is a line it prints (or a probe), and stopping is
 * SIGTERM, then SIGKILL after a grace period, always waiting for the exit so no zombie is left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readBoundedLines } from '../child-process/bounded-lines';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  log(line: string): void;
}

export class SupervisedProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly lineWaiters: Array<{ re: RegExp; resolve(m: RegExpMatchArray): void }> = [];
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly tail: string[] = [];

  constructor(readonly spec: ProcessSpec) {
    this.child = spawn(spec.command, spec.args, { env: spec.env ?? process.env, cwd: spec.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      readBoundedLines(stream, (line) => this.onLine(line)); // a child's one endless line cannot exhaust memory
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      this.child.once('error', (err) => {
        this.spec.log(`[${this.spec.name}] cannot start: ${err.message}`);
        this.exitInfo = { code: -1, signal: null };
        resolve(this.exitInfo);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  private onLine(line: string): void {
    this.spec.log(`[${this.spec.name}] ${line}`);
    this.tail.push(line);
    if (this.tail.length > 20) this.tail.shift();
    for (let i = this.lineWaiters.length - 1; i >= 0; i--) {
      const m = line.match(this.lineWaiters[i].re);
      if (m) {
        this.lineWaiters[i].resolve(m);
        this.lineWaiters.splice(i, 1);
      }
    }
  }

  /** Resolves with the first output line matching `re`; rejects if the process exits or time runs out. */
  waitForLine(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        re,
        resolve: (m: RegExpMatchArray) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.lineWaiters.push(waiter);
      const fail = (why: string) => {
        const i = this.lineWaiters.indexOf(waiter);
        if (i >= 0) this.lineWaiters.splice(i, 1);
        reject(new Error(`${this.spec.name} ${why}; last output:\n  ${this.tail.join('\n  ')}`));
      };
      timer = setTimeout(() => fail(`did not become ready within ${timeoutMs} ms`), timeoutMs);
      void this.exited.then((e) => {
        clearTimeout(timer);
        if (this.lineWaiters.includes(waiter)) fail(`exited (code ${e.code}, signal ${e.signal}) before it was ready`);
      });
    });
  }

  /** SIGKILL now (a crash, for tests); resolves when it is gone. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
