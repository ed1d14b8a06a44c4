/**
 * Carries out one validated control message and says how it went. Failures become `{ok:false, error}`
 * with the manager's own message; nothing here retries or partially applies: the manager validates a
 * whole change before applying it.
 */
import { InferError, type ControlAck, type ControlMessage } from '@inferscope/core';
import { controlRefusal as refused } from '@inferscope/core/live';
import type { RateLimiter } from '@inferscope/core/rate-limiter';
import type { ControlTarget, LoadControl, SweepControl } from '../control/types';

export async function handleControl(
  msg: ControlMessage,
  by: string,
  control: ControlTarget,
  load: LoadControl | undefined,
  sweep?: SweepControl,
  limiter?: RateLimiter,
): Promise<ControlAck> {
  try {
    switch (msg.action) {
      case 'setDynamicBatching': {
        const { action: _a, model, version, ...patch } = msg;
        const changes = await control.updateDynamicBatching(model, version, patch, by);
        return { ok: true, changes };
      }
      case 'setInstanceCount': {
        const changes = await control.setInstanceCount(msg.model, msg.version, msg.group, msg.count, by);
        return { ok: true, changes };
      }
      case 'setAutotune': {
        if (!control.setAutotune) return refused(new InferError('UNSUPPORTED', 'this server has no autotuner'));
        const autotune = await control.setAutotune(msg.model, msg.version, msg.enabled, msg.target_ms);
        return { ok: true, autotune };
      }
      case 'setResponseCache': {
        if (!control.setResponseCache) return refused(new InferError('UNSUPPORTED', 'this server cannot switch the response cache'));
        return { ok: true, changes: await control.setResponseCache(msg.model, msg.version, msg.enabled, by) };
      }
      case 'setIterativeKnobs': {
        if (!control.setIterativeKnobs) return refused(new InferError('UNSUPPORTED', 'this server cannot change generation knobs live'));
        const { action: _a, model, version, ...patch } = msg;
        return { ok: true, changes: await control.setIterativeKnobs(model, version, patch, by) };
      }
      case 'setResourceCount': {
        if (!limiter) return refused(new InferError('UNSUPPORTED', 'this server has no rate limiter'));
        limiter.setResourceCount(msg.resource, msg.device ?? null, msg.count);
        return { ok: true, rate_limiter: limiter.snapshot() };
      }
      case 'setRateLimitPriority': {
        if (!limiter) return refused(new InferError('UNSUPPORTED', 'this server has no rate limiter'));
        const instances = limiter.setModelPriority(msg.model, msg.priority);
        return { ok: true, instances, rate_limiter: limiter.snapshot() };
      }
      case 'loadModel':
        await control.load(msg.model);
        return { ok: true };
      case 'unloadModel':
        await control.unload(msg.model);
        return { ok: true };
      case 'saveConfig': {
        const r = await control.saveConfig(msg.model, { dryRun: msg.dryRun ?? false, version: msg.version });
        return {
          ok: true, path: r.path, text: r.text, diff: r.diff, dryRun: msg.dryRun ?? false, written: r.written,
          backup: r.backup ?? null, backupKept: r.backupKept, changed: r.changed, notes: r.notes, versions: r.versions,
        };
      }
      case 'startLoad': {
        if (!load) return refused(new InferError('UNSUPPORTED', 'this server has no load generator'));
        const { action: _a, ...req } = msg;
        const r = await load.start(req, by);
        return { ok: true, ...r };
      }
      case 'stopLoad': {
        if (!load) return refused(new InferError('UNSUPPORTED', 'this server has no load generator'));
        const stopped = load.stop(msg.id);
        if (msg.id !== undefined && stopped.length === 0) return refused(new InferError('NOT_FOUND', `no running load with id '${msg.id}'`));
        return { ok: true, stopped };
      }
      case 'startRecording': {
        if (!load?.startRecording) return refused(new InferError('UNSUPPORTED', 'this server cannot record'));
        return { ok: true, ...load.startRecording(msg.models, by) };
      }
      case 'stopRecording': {
        if (!load?.stopRecording) return refused(new InferError('UNSUPPORTED', 'this server cannot record'));
        const stopped = await load.stopRecording(msg.id);
        if (stopped.length === 0) return refused(new InferError('NOT_FOUND', msg.id ? `no recording with id '${msg.id}'` : 'no recording is running'));
        // a recording that could not be written is a failure the user must see, not an ok
        const lost = stopped.filter((r) => r.error !== undefined);
        if (lost.length > 0) {
          return refused(new InferError('INTERNAL', lost.map((r) => `recording ${r.recording}: ${r.written} of ${r.arrivals} arrivals written, then ${r.error}`).join('; ')));
        }
        return { ok: true, stopped };
      }
      case 'startSweep': {
        if (!sweep) return refused(new InferError('UNSUPPORTED', 'this server cannot run sweeps'));
        const { action: _a, ...req } = msg;
        return { ok: true, ...sweep.start(req, by) };
      }
      case 'stopSweep':
        if (!sweep?.stop()) return refused(new InferError('NOT_FOUND', 'no sweep is running'));
        return { ok: true };
      case 'startReplay': {
        if (!load) return refused(new InferError('UNSUPPORTED', 'this server has no load generator'));
        const r = await load.startReplay({ trace: msg.trace, speed: msg.speed, model: msg.model }, by);
        return { ok: true, ...r };
      }
    }
  } catch (err) {
    return refused(err);
  }
}
