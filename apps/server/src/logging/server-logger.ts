/**
 * The server's log with Triton's logging settings, changed live through `/v2/logging` (the logging
 * extension): info/warning/error switches, a verbose level, and the format (`default`: our lines as they
 * have always been; `ISO8601`: each line prefixed by a UTC timestamp and the severity letter, as Triton's
 * ISO8601 format). The log file is chosen at start (`--log-file`) and, as in current Triton, cannot be
 * changed over the network.
 */
import { InferError } from '@inferscope/core';
import { appendFileSync } from 'node:fs';

export interface LogSettings {
  log_file: string;
  log_info: boolean;
  log_warning: boolean;
  log_error: boolean;
  log_verbose_level: number;
  log_format: 'default' | 'ISO8601';
}

export class LogSettingError extends InferError {
  constructor(message: string, code: 'INVALID_ARG' | 'UNSUPPORTED' = 'INVALID_ARG') {
    super(code, message);
  }
}

type Severity = 'I' | 'W' | 'E' | 'V';

export class ServerLogger {
  private s: LogSettings;

  /** `sink` receives each line when there is no log file (the console by default). */
  constructor(private readonly sink: (line: string) => void, init: Partial<LogSettings> = {}) {
    this.s = { log_file: '', log_info: true, log_warning: true, log_error: true, log_verbose_level: 0, log_format: 'default', ...init };
  }

  settings(): LogSettings {
    return { ...this.s };
  }

  /** Applies a POST /v2/logging body (null values are ignored, as Triton does) and returns the settings. */
  update(body: unknown): LogSettings {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new LogSettingError('logging request must be a JSON object');
    const next = { ...this.s };
    for (const [key, v] of Object.entries(body as Record<string, unknown>)) {
      if (v === null) continue;
      switch (key) {
        case 'log_file':
          throw new LogSettingError('log file location can not be updated through network protocol', 'UNSUPPORTED');
        case 'log_info':
        case 'log_warning':
        case 'log_error':
          if (typeof v !== 'boolean') throw new LogSettingError(`'${key}' must be a boolean`);
          next[key] = v;
          break;
        case 'log_verbose_level':
          if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 2 ** 31 - 1) throw new LogSettingError(`'log_verbose_level' must be an unsigned integer`);
          next.log_verbose_level = v as number;
          break;
        case 'log_format':
          if (v !== 'default' && v !== 'ISO8601') throw new LogSettingError(`invalid argument for --log_format, got: ${String(v).slice(0, 60)}`);
          next.log_format = v;
          break;
        default:
          throw new LogSettingError(`unknown logging setting '${key.slice(0, 60)}'`);
      }
    }
    this.s = next;
    return this.settings();
  }

  info = (msg: string): void => this.write('I', msg, this.s.log_info);
  warn = (msg: string): void => this.write('W', msg, this.s.log_warning);
  error = (msg: string): void => this.write('E', msg, this.s.log_error);
  /** detail that is off by default: shown when the verbose level is at least `level` */
  verbose = (level: number, msg: string): void => this.write('V', msg, this.s.log_verbose_level >= level);

  private write(sev: Severity, msg: string, on: boolean): void {
    if (!on) return;
    const line = this.s.log_format === 'ISO8601' ? `${new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')} ${sev} ${msg}` : msg;
    if (!this.s.log_file) return this.sink(line);
    try {
      appendFileSync(this.s.log_file, line + '\n');
    } catch {
      this.sink(line); // a log file that cannot be written must not lose the line
    }
  }
}
