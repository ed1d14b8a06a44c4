/**
 * The answers to control messages, one shape per action, declared once for the gateway that builds them,
 * teaching mode's engine and every client that reads them.
 */
import type { AutotuneReport, ConfigChange } from '../events';
import type { ErrorCode } from '../errors/codes';
import type { ControlAction } from './control-schema';
import type { RateLimiterSnapshot } from '../rate-limiter/rate-limiter';

/** A saveConfig answer: what was (or would be) written, where the user's previous file is, what to know. */
export interface SaveConfigAck {
  path: string;
  text: string;
  /** unified-style line diff against the file as it is on disk ('' when nothing changes) */
  diff: string;
  dryRun: boolean;
  /** false: a dry run, or the file already held the live values (nothing written, no .bak) */
  written: boolean;
  /** the user's previous file (this save's .bak, or an earlier one kept: backupKept); null when none */
  backup: string | null;
  backupKept: boolean;
  /** dotted paths written */
  changed: string[];
  notes: string[];
  versions: SharedConfigFile;
}

/** One recording as stopRecording answers it (`error`: it could not be written whole). */
export interface RecordingStopped {
  id: string;
  recording: string;
  arrivals: number;
  written: number;
  error?: string;
}

/**
 * What each control action answers beside `ok: true`: declared once, for the gateway that builds the
 * answers (live/control-handler.ts), teaching mode's engine and every client that reads them.
 */
export interface ControlAckBodies {
  setDynamicBatching: { changes: ConfigChange[] };
  setInstanceCount: { changes: ConfigChange[] };
  setAutotune: { autotune: AutotuneReport };
  setResponseCache: { changes: ConfigChange[] };
  setIterativeKnobs: { changes: ConfigChange[] };
  /** the limiter after the change (the resource's new count, who holds and waits) */
  setResourceCount: { rate_limiter: RateLimiterSnapshot };
  setRateLimitPriority: { rate_limiter: RateLimiterSnapshot; instances: number };
  loadModel: NoDetail;
  unloadModel: NoDetail;
  saveConfig: SaveConfigAck;
  startLoad: { id: string; recording?: string };
  stopLoad: { stopped: string[] };
  startRecording: { id: string; recording: string };
  stopRecording: { stopped: RecordingStopped[] };
  startSweep: { id: string; total: number };
  stopSweep: NoDetail;
  startReplay: { id: string };
}
type NoDetail = Record<never, never>;
// every action has its answer (a new action without one fails to compile here)
type Complete<T extends Record<ControlAction, object>> = T;
export type ControlAckBodyOf<A extends ControlAction> = Complete<ControlAckBodies>[A];

/** A refused control message: nothing changed; Triton's code and one sentence. */
export interface ControlRefusal {
  ok: false;
  error: string;
  code: ErrorCode;
}

/** An accepted message of action A: `ok: true` and what that action answers. */
export type ControlAccepted<A extends ControlAction> = { ok: true } & ControlAckBodyOf<A>;

/** The answer to a message of action A. */
export type ControlAckOf<A extends ControlAction> = ControlAccepted<A> | ControlRefusal;

/** The answer to any control message (narrow it with ControlAckOf where the action is known). */
export type ControlAck = { [A in ControlAction]: ControlAckOf<A> }[ControlAction];

/**
 * What a saveConfig answer says about the versions one config.pbtxt governs (Triton has no per-version
 * config): the version whose live values are written, every loaded version the file configures, and for
 * each other version the written fields whose live value differs (what it will run after a restart).
 */
export interface SharedConfigFile {
  saved: string;
  governs: string[];
  differences: Array<{ version: string; path: string; live: unknown; written: unknown }>;
}
